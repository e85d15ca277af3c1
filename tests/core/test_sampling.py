"""landing.core.sampling: how many DOIs each member or client gives the sample, and the crawl order."""
from landing.core.sampling import sample_size


def test_largest_member_gets_the_maximum():
    assert sample_size(10_000, 10_000, 10, 100) == 100


def test_tiny_member_gets_the_minimum():
    assert sample_size(200, 10_000, 10, 100) == 10  # 2 proportionally, raised to the minimum


def test_member_with_fewer_dois_than_the_minimum_gives_all_of_them():
    assert sample_size(4, 10_000, 10, 100) == 4


def test_member_with_no_dois_gives_none():
    assert sample_size(0, 10_000, 10, 100) == 0


def test_negative_total_gives_none():
    assert sample_size(-3, 10_000, 10, 100) == 0


def test_member_in_the_middle_gets_its_proportional_share():
    assert sample_size(5_000, 10_000, 10, 100) == 50


def test_proportional_share_is_rounded_to_the_nearest_integer():
    assert sample_size(3_337, 10_000, 10, 100) == 33  # 33.37


def test_largest_member_with_fewer_dois_than_the_maximum_gives_all_of_them():
    assert sample_size(60, 60, 10, 100) == 60


def test_minimum_above_maximum_makes_the_minimum_the_size_for_everyone_big_enough():
    # The code caps at max(maximum, minimum): the minimum wins, so no member gets less than it asked for.
    assert [sample_size(t, 10_000, 20, 5) for t in (10_000, 5_000, 100, 7)] == [20, 20, 20, 7]


def test_no_known_largest_gives_the_minimum_or_all():
    assert (sample_size(50, 0, 10, 100), sample_size(3, 0, 10, 100)) == (10, 3)
