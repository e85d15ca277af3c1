"""landing.core.proportions: intervals, the test of a fall, and when a p-value stands out among many."""

from landing.core.proportions import beyond_noise, falls, fell


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
