"""landing.core.publishing.proportions: intervals, the test of a fall, and when a p-value stands out among many."""

import pytest

from landing.core.publishing.proportions import beyond_noise, falls, fell, interval, missed


@pytest.fixture(scope="module")
def stats():
    """scipy.stats, imported by the worker that runs these tests: at module level every worker's collection would
    import it (about 1.5 CPU-seconds each, and its compilation on a fresh checkout)."""
    from scipy import stats

    return stats


COUNTS = [(hits, of) for of in (1, 2, 7, 14, 20, 99, 1000) for hits in sorted({0, 1, of // 3, of // 2, of - 1, of})]


@pytest.mark.parametrize("hits,of", COUNTS)
def test_the_interval_is_scipys_wilson_interval(stats, hits, of):
    found = stats.binomtest(hits, of).proportion_ci(confidence_level=0.95, method="wilson")
    assert interval(hits, of) == pytest.approx((found.low, found.high), abs=1e-12)


@pytest.mark.parametrize("share,draws", [(0.0, 5), (0.01, 300), (0.2, 7), (0.5, 3), (1.0, 2), (0.3, 0)])
def test_the_chance_of_missing_a_pair_is_scipys_binomial_chance_of_none(stats, share, draws):
    assert missed(share, draws) == pytest.approx(stats.binom.pmf(0, draws, share), abs=1e-15)


def test_a_fall_from_all_to_six_in_seven_of_fourteen_dois_does_not_stand_out_among_300_members():
    assert beyond_noise(fell(14, 14, 12, 14), 300) is False


def test_a_fall_from_all_to_none_of_twenty_dois_stands_out_among_300_members():
    assert beyond_noise(fell(20, 20, 0, 20), 300) is True


def test_the_bar_a_p_value_must_pass_is_the_level_shared_among_the_tests():
    assert (beyond_noise(0.001 / 300, 300), beyond_noise(0.0011 / 300, 300)) == (True, False)


def test_a_trend_marks_a_fall_beyond_noise_and_not_one_on_fewer_than_the_minimum():
    assert falls([(14, 14), (2, 14), (40, 40), (38, 40), (10, 40)], minimum=20) == [False, False, False, False, True]


def test_an_empty_trend_marks_nothing():
    assert falls([], minimum=20) == []
