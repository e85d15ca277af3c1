"""The run's rules: which run a crawl works on, the plan, the ids that sort by plan order, what is left to visit."""

import pytest

from landing.core.registries.names import KEYS, UNKNOWN, Names
from landing.core.registries.names import read as names_in
from landing.core.sampling import runs
from landing.core.sampling.runs import RunError


def _run(run_id, started, state):
    return {**runs.run_doc(run_id, started, ["crossref"], 10, 100), "run/state": state}


def test_auto_resumes_the_latest_unfinished_run():
    stored = [
        _run("a", "2026-01-01T00:00:00Z", "visiting"),
        _run("b", "2026-02-01T00:00:00Z", "listing"),
        _run("c", "2026-03-01T00:00:00Z", "finished"),
    ]
    assert runs.choose(stored, "auto", "2026-04-01T00:00:00Z") == (stored[1], True)


def test_auto_never_resumes_the_continuous_run_which_never_finishes():
    stored = [
        _run("a", "2026-01-01T00:00:00Z", "visiting"),
        {**_run("continuous", "2026-02-01T00:00:00Z", "visiting"), "run/mode": runs.CONTINUOUS},
    ]
    assert runs.choose(stored, "auto", "2026-04-01T00:00:00Z") == (stored[0], True)
    assert runs.choose(stored, "continuous", "2026-04-01T00:00:00Z") == (stored[1], True)


def test_auto_starts_a_run_named_by_the_time_when_every_run_is_finished():
    stored = [_run("a", "2026-01-01T00:00:00Z", "finished")]
    assert runs.choose(stored, "auto", "2026-04-01T00:00:00Z") == ({"run/id": "2026-04-01T00:00:00Z"}, False)


def test_new_starts_a_run_even_when_one_is_unfinished_and_never_reuses_an_id():
    stored = [_run("2026-04-01T00:00:00Z", "2026-04-01T00:00:00Z", "visiting")]
    assert runs.choose(stored, "new", "2026-04-01T00:00:00Z") == ({"run/id": "2026-04-01T00:00:00Z-2"}, False)


def test_a_named_run_is_resumed_when_unfinished_and_started_when_absent():
    stored = [_run("monthly", "2026-01-01T00:00:00Z", "visiting")]
    assert runs.choose(stored, "monthly", "x") == (stored[0], True)
    assert runs.choose(stored, "other", "x") == ({"run/id": "other"}, False)


def test_a_named_run_that_is_finished_is_refused():
    with pytest.raises(RunError, match="'monthly' is finished"):
        runs.choose([_run("monthly", "2026-01-01T00:00:00Z", "finished")], "monthly", "x")


def test_a_run_document_this_version_cannot_read_is_refused():
    with pytest.raises(RunError, match="not a run this version can read"):
        runs.choose([{"run/id": "a", "run/state": "paused", "run/started": "t"}], "auto", "x")


def test_the_plan_sizes_each_owner_against_the_largest_of_its_own_agency_never_above_its_count():
    owners = [("crossref", "1", 1000), ("crossref", "2", 100), ("datacite", "x.y", 50), ("datacite", "z.w", 5)]
    plan = runs.plan("r", owners, 10, 100)
    sizes = {(s["sample/ra"], s["sample/owner"]): s["sample/size"] for s in plan}
    assert sizes == {("crossref", "1"): 100, ("crossref", "2"): 10, ("datacite", "x.y"): 50, ("datacite", "z.w"): 5}


def test_the_plan_raises_a_budget_to_the_floor_of_each_listed_prefix_and_keeps_the_floor():
    owners = [("crossref", "1", 1000), ("crossref", "2", 100), ("crossref", "3", 100)]
    prefixes = {("crossref", "2"): [f"10.{n}" for n in range(1, 7)], ("crossref", "3"): ["10.9"]}
    plan = runs.plan("r", owners, 10, 100, prefixes, per_prefix=3)
    assert {s["sample/owner"]: (s["sample/size"], len(s["sample/prefixes"]), s["sample/per-prefix"]) for s in plan} == {
        "1": (100, 0, 3),
        "2": (18, 6, 3),
        "3": (10, 1, 3),
    }


def test_the_plan_keeps_each_owners_names_and_null_names_for_an_owner_the_listing_did_not_name():
    owners = [("crossref", "1", 10), ("datacite", "x.y", 10)]
    plan = runs.plan("r", owners, 10, 100, names={("datacite", "x.y"): Names("X Repository", "x", "X Consortium")})
    assert {s["sample/owner"]: names_in("sample", s) for s in plan} == {
        "1": UNKNOWN,
        "x.y": Names("X Repository", "x", "X Consortium"),
    }
    assert set(plan[0]) >= set(KEYS["sample"])


def test_the_plan_leaves_out_owners_without_dois_and_numbers_the_rest_in_order():
    plan = runs.plan("r", [("crossref", str(n), n) for n in range(5)], 1, 100)
    assert [s["sample/order"] for s in plan] == [0, 1, 2, 3]
    assert sorted(s["sample/owner"] for s in plan) == ["1", "2", "3", "4"]


def test_the_plan_order_is_shuffled_by_run_and_the_same_for_any_listing_order():
    owners = [("crossref", str(n), 10 + n) for n in range(50)]
    first = [s["sample/owner"] for s in runs.plan("r1", owners, 10, 100)]
    assert first == [s["sample/owner"] for s in runs.plan("r1", owners[::-1], 10, 100)]
    assert first != [s["sample/owner"] for s in runs.plan("r2", owners, 10, 100)]
    assert first != [o for _, o, _ in owners]


def test_ids_sort_in_plan_order_then_rank_order():
    ids = [runs.visit_id("r", order, rank) for order, rank in ((2, 0), (10, 3), (10, 12), (100, 1))]
    assert sorted(ids) == ids
    assert sorted([runs.sample_id("r", 9), runs.sample_id("r", 10)]) == ["r/0000009", "r/0000010"]


def test_a_sample_keeps_its_dois_in_the_apis_order_each_once():
    sample = runs.sampled(runs.plan("r", [("crossref", "1", 5)], 10, 100)[0], ["10.1/b", "10.1/a", "10.1/b"], "t")
    assert (sample["sample/dois"], sample["sample/timestamp"]) == (["10.1/b", "10.1/a"], "t")


def test_unvisited_are_the_ranks_without_a_visit_record():
    sample = {"sample/dois": ["10.1/a", "10.1/b", "10.1/c"]}
    assert runs.unvisited(sample, {1}) == [(0, "10.1/a"), (2, "10.1/c")]


def test_a_plan_extension_keeps_the_planned_owners_and_numbers_the_new_ones_after_them():
    samples = runs.plan("r", [("datacite", "a", 10), ("datacite", "b", 20), ("crossref", "7", 5)], 2, 10)
    extended = runs.extension(samples, {("datacite", "a")}, 1)
    assert [(s["sample/order"], s["sample/owner"]) for s in extended] == [
        (1 + n, s["sample/owner"]) for n, s in enumerate(x for x in samples if x["sample/owner"] != "a")
    ]
    assert {s["sample/owner"] for s in extended} == {"b", "7"}
