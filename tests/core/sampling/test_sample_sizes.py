"""landing.core.sampling.sample_sizes: how many DOIs each member or client gives the sample, and the crawl order."""

from landing.core.sampling.sample_sizes import budget, compose, sample_size, short_prefixes


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


def test_a_budget_is_raised_to_the_floor_of_every_listed_prefix():
    assert budget(10, 6, 3, 5_000) == 18


def test_a_budget_already_above_the_prefix_floors_is_kept():
    assert budget(100, 6, 3, 5_000) == 100


def test_a_budget_never_exceeds_the_owners_dois():
    assert budget(10, 40, 3, 25) == 25


def test_an_owner_without_dois_has_no_budget():
    assert budget(10, 4, 3, 0) == 0


def test_short_prefixes_are_those_listed_with_fewer_than_the_floor_each_with_its_count():
    dois = ["10.1/a", "10.1/b", "10.1/c", "10.2/a", "10.9/z"]
    assert short_prefixes(dois, ["10.1", "10.2", "10.3"], 3) == {"10.2": 1, "10.3": 0}


def test_no_prefix_is_short_without_a_floor():
    assert short_prefixes([], ["10.1", "10.2"], 0) == {}


def test_compose_keeps_each_prefix_floor_and_fills_the_budget_from_the_member_sample_in_order():
    member = ["10.1/a", "10.1/b", "10.1/c", "10.1/d", "10.2/a"]
    topped = {"10.2": ["10.2/a", "10.2/b"], "10.3": ["10.3/a"]}
    assert compose(member, topped, ["10.1", "10.2", "10.3"], 2, 5) == ["10.1/a", "10.1/b", "10.2/a", "10.2/b", "10.3/a"]


def test_compose_keeps_the_floors_even_past_the_size():
    topped = {"10.2": ["10.2/a"], "10.3": ["10.3/a"]}
    assert compose(["10.1/a", "10.1/b"], topped, ["10.1", "10.2", "10.3"], 1, 2) == ["10.1/a", "10.2/a", "10.3/a"]


def test_compose_drops_a_prefix_samples_doi_of_another_prefix_and_repeats():
    topped = {"10.2": ["10.2/a", "10.2/a", "10.7/x", "10.1/a"]}
    assert compose(["10.1/a"], topped, ["10.1", "10.2"], 3, 10) == ["10.1/a", "10.2/a"]


def test_compose_without_a_floor_is_the_member_sample_once_each_up_to_the_size():
    assert compose(["10.1/a", "10.1/a", "10.1/b", "10.1/c"], {}, ["10.1"], 0, 2) == ["10.1/a", "10.1/b"]
