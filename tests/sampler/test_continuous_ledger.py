"""Continuous mode's records (landing.sampler.continuous_ledger) on a real SQLite store: the run and its state, a
listing's prefixes, rounds appended to the plan and closed once their visits are stored."""

import pytest

from landing.core.continuous import freshness, registry_deltas, schedule
from landing.core.registries.names import Names
from landing.core.registries.names import read as names_in
from landing.core.sampling import runs
from landing.core.sampling.runs import RunError
from landing.sampler.continuous_ledger import ContinuousLedger
from landing.sampler.ledger import Ledger
from landing.stores import open_docs

T0, T1 = "2026-11-01T00:00:00Z", "2026-11-01T01:00:00Z"
POLICY = freshness.Policy(refresh_days=7, recheck_days=1, sample_min=2, sample_max=4, changed_dois=3)
BUDGET = freshness.Budget(requests_per_day=100_000, requests_per_doi=3)


@pytest.fixture
def records(tmp_path):
    docs = open_docs(f"sqlite:///{tmp_path / 'landing.db'}")
    yield ContinuousLedger(Ledger(docs, runs.CONTINUOUS, ["crossref"], 2, 4))
    docs.close()


def _visit(records, run, sample, rank, domain, at):
    doi = sample["sample/dois"][rank]
    analysis = {
        "pid/doi": doi,
        "snapshot/driver": "http",
        "snapshot/timestamp": at,
        "snapshot/final-url-domain": domain,
        "snapshot/resource-url": f"https://{domain}/",
        "snapshot/error": None,
        "analysis/meta-tag-correctness": "ok",
    }
    records.docs.put("analysis", f"{doi} http {at[:10]}", analysis)
    order = sample["sample/order"]
    records.docs.put(
        "visit", runs.visit_id(run["run/id"], order, rank), runs.visit_doc(run["run/id"], order, rank, doi, "s")
    )


def _planned(records, run, state, at):
    known = records.prefixes()
    plan = freshness.plan(known, freshness.moment(at), POLICY, BUDGET, freshness.DAY / 24)
    return records.begin(run, state, plan, at), plan


def test_a_new_continuous_run_is_visiting_at_once_and_a_full_run_of_that_name_is_refused(records, tmp_path):
    run, state, resumed = records.open(T0)
    assert (run["run/id"], run["run/state"], run["run/mode"], run["run/owners"], resumed) == (
        "continuous",
        "visiting",
        "continuous",
        0,
        False,
    )
    assert state == schedule.new_state("continuous", T0)
    assert records.open(T1)[1:] == (state, True)  # reopened: the same state, resumed
    docs = open_docs(f"sqlite:///{tmp_path / 'full.db'}")
    ledger = Ledger(docs, "named", ["crossref"], 2, 4)
    ledger.open(T0)
    with pytest.raises(RunError, match="is a full run"):
        ContinuousLedger(ledger).open(T1)
    docs.close()


def test_a_round_closes_once_every_sampled_doi_is_visited_and_records_its_prefixes(records):
    run, state, _ = records.open(T0)
    state, counts = records.relist({("crossref", "10.1"): {"7": 40}, ("crossref", "10.2"): {"7": 2}}, state, T0, True)
    assert (counts, state["continuous/listed"]) == ({"new": 2, "moved": 0, "resized": 0}, T0)
    (run, state, asked), plan = _planned(records, run, state, T1)
    assert asked == 2 and [p.reason for p in plan.picks] == ["never-sampled", "never-sampled"]
    assert state["continuous/open"] == [
        {"from": 0, "to": 2, "planned": T1, "prefixes": ["crossref 10.1", "crossref 10.2"]}
    ]
    samples = [
        runs.sampled(s, [f"{s['sample/prefix']}/{n}" for n in range(2)], T1) for s in records.docs.scan("sample")
    ]
    for sample in samples:
        records.ledger.store("sample", runs.sample_id("continuous", sample["sample/order"]), sample)
    _visit(records, run, samples[0], 0, "a.example", T1)
    _visit(records, run, samples[0], 1, "a.example", T1)
    _visit(records, run, samples[1], 0, "b.example", T1)
    unchanged, figures = records.close(run, state, T1, idle=False)  # 10.2's second DOI has no visit yet
    assert (unchanged, figures["rounds"]) == (state, 0)
    _visit(records, run, samples[1], 1, "b.example", T1)
    closed, figures = records.close(run, state, T1, idle=False)
    assert figures == {"rounds": 1, "overdue": 0, "sampled": 2, "signalled": 0, "failed": 0, "dois": 4}
    assert (closed["continuous/open"], closed["continuous/rounds"], closed["continuous/sampled-since"]) == ([], 1, 2)
    prefix = records.docs.get("prefix", "crossref 10.1")
    # Both of 10.1's DOIs reached a.example: one DOI per site known is its panel.
    assert (prefix["prefix/sampled"], prefix["prefix/panel"], prefix["prefix/drawn"]) == (T1, ["10.1/0"], 2)
    assert records.seen() == (4, 2)  # DOIs drawn, sites seen: both prefixes'


def test_a_listings_names_reach_its_prefixes_and_the_samples_planned_of_them(records):
    run, state, _ = records.open(T0)
    named = Names("Harbour Lane Press")
    state, _ = records.relist({("crossref", "10.1"): {"7": 40}}, state, T0, True, {("crossref", "7"): named})
    _planned(records, run, state, T1)
    stored = records.docs.get("prefix", "crossref 10.1"), next(records.docs.scan("sample"))
    assert (names_in("prefix", stored[0]), names_in("sample", stored[1])) == (named, named)


def test_an_idle_crawl_closes_a_round_whose_sample_failed_and_the_prefix_stays_never_sampled(records):
    run, state, _ = records.open(T0)
    state, _ = records.relist({("crossref", "10.1"): {"7": 40}}, state, T0, True)
    (run, state, _), _ = _planned(records, run, state, T1)
    assert records.close(run, state, T1, idle=False)[1]["rounds"] == 0
    closed, figures = records.close(run, state, T1, idle=True)
    assert (figures["rounds"], figures["failed"], closed["continuous/open"]) == (1, 1, [])
    assert records.docs.get("prefix", "crossref 10.1")["prefix/sampled"] is None


def test_a_slice_counts_its_requests_in_the_day_and_carries_its_plans_overdraft_alone(records):
    # The plan's picks are visited over the next slices: its estimate (50) is not settled against this slice's 90.
    _, state, _ = records.open(T0)
    plan = freshness.Plan((), 50.0, -10.0, 0.0, 0.0, True)
    state = records.counted(state, plan, T1, requests=90, visits=60)
    assert (state["continuous/requests-today"], state["continuous/carry"], state["continuous/requests"]) == (
        90,
        -10.0,
        60,
    )
    assert records.state() == state


def test_the_requests_sent_while_the_planner_waited_count_in_the_day_and_as_visits(records):
    _, state, _ = records.open(T0)
    state = records.counted(state, freshness.Plan((), 0.0, 0.0, 0.0, 0.0, True), T1, requests=10, visits=0)
    state = records.spent(state, "2026-11-01T02:00:00Z", 40)
    assert (state["continuous/requests-today"], state["continuous/requests"]) == (50, 40)
    assert records.state() == state


def test_a_round_planned_before_the_overdue_moment_closes_as_it_stands(records):
    run, state, _ = records.open(T0)
    state, _ = records.relist({("crossref", "10.1"): {"7": 40}}, state, T0, True)
    (run, state, _), _ = _planned(records, run, state, T1)
    assert records.close(run, state, T1, idle=False, overdue=T1)[1]["rounds"] == 0  # planned at T1: not before it
    closed, figures = records.close(run, state, "2026-11-03T01:00:00Z", idle=False, overdue="2026-11-01T01:00:01Z")
    assert (figures["rounds"], figures["overdue"], figures["failed"], closed["continuous/open"]) == (1, 1, 1, [])


def test_a_round_visited_in_time_but_looked_at_after_the_overdue_moment_is_not_counted_overdue(records):
    run, state, _ = records.open(T0)
    state, _ = records.relist({("crossref", "10.1"): {"7": 40}}, state, T0, True)
    (run, state, _), _ = _planned(records, run, state, T1)
    sample = runs.sampled(next(records.docs.scan("sample")), ["10.1/0"], T1)
    records.ledger.store("sample", runs.sample_id("continuous", sample["sample/order"]), sample)
    _visit(records, run, sample, 0, "a.example", T1)
    closed, figures = records.close(run, state, "2026-11-03T01:00:00Z", idle=False, overdue="2026-11-01T01:00:01Z")
    assert (figures["rounds"], figures["overdue"], figures["sampled"], closed["continuous/open"]) == (1, 0, 1, [])


def test_the_known_prefixes_the_ledger_keeps_stay_what_the_store_holds_as_it_lists_plans_and_closes(records):
    run, state, _ = records.open(T0)
    assert records.prefixes() == []  # read from the store now; from here on, the ledger's copy
    state, _ = records.relist({("crossref", "10.1"): {"7": 40}, ("crossref", "10.2"): {"7": 0}}, state, T0, True)
    (run, state, _), _ = _planned(records, run, state, T1)  # 10.2 has no DOI: sampled at once
    sample = runs.sampled(next(records.docs.scan("sample")), ["10.1/0"], T1)
    records.ledger.store("sample", runs.sample_id("continuous", 0), sample)
    _visit(records, run, sample, 0, "a.example", T1)
    assert records.close(run, state, T1, idle=False)[1]["sampled"] == 1
    read_again = ContinuousLedger(Ledger(records.docs, runs.CONTINUOUS, ["crossref"], 2, 4)).prefixes()
    kept = sorted(records.prefixes(), key=lambda p: p.prefix)
    assert kept == sorted(read_again, key=lambda p: p.prefix)
    assert [(p.prefix, p.sampled) for p in kept] == [("10.1", freshness.moment(T1)), ("10.2", freshness.moment(T1))]


def _visited_round(records, run, state, at, domain):
    """A round planned at `at`, every DOI of it visited on `domain` (its resource URL there too)."""
    (run, state, _), plan = _planned(records, run, state, at)
    for stored in list(records.docs.scan("sample")):
        if stored.get("sample/dois") is None:
            stored = runs.sampled(stored, [f"{stored['sample/prefix']}/{n}" for n in range(2)], at)
            records.ledger.store("sample", runs.sample_id("continuous", stored["sample/order"]), stored)
    for stored in records.docs.scan("sample"):
        if stored["sample/planned"] == at:
            for rank, doi in enumerate(stored["sample/dois"]):
                _visit(records, run, stored, rank, domain, at)
                analysis = records.docs.get("analysis", f"{doi} http {at[:10]}")
                records.docs.put(
                    "analysis",
                    f"{doi} http {at[:10]}",
                    {**analysis, "snapshot/resource-url": f"https://{domain}/{doi}"},
                )
    state, _ = records.close(run, state, at, idle=False)
    return run, state, plan


def test_a_registry_delta_onto_a_new_domain_is_visited_first_in_the_next_round_and_no_refresh(records):
    run, state, _ = records.open(T0)
    state, _ = records.relist({("crossref", "10.1"): {"7": 40}}, state, T0, True)
    run, state, _ = _visited_round(records, run, state, T1, "old.example")
    assert records.docs.get("prefix", "crossref 10.1")["prefix/resources"] == {"old.example": 2}
    look = registry_deltas.Look(keep=3)
    look.add(
        registry_deltas.entries([("10.1/m", "https://new.example/m"), ("10.1/0", "https://old.example/0")]),
        records.tallies("crossref", ["10.1"]),
    )
    assert records.observe("crossref", look, 3) == {"changes": 1, "signalled": 1}
    state = records.looked(state, {"crossref": T1}, {"dois": 2, "changes": 1, "signalled": 1}, T1)
    assert (state["continuous/delta"], state["continuous/delta-changes"]) == ({"crossref": T1}, 1)
    later = "2026-11-01T02:00:00Z"
    (run, state, asked), plan = _planned(records, run, state, later)
    assert ([(p.reason, p.dois) for p in plan.picks], asked) == ([("registry", 1)], 0)
    sample = records.docs.get("sample", runs.sample_id("continuous", 1))
    assert (sample["sample/dois"], sample["sample/reason"]) == (["10.1/m"], "registry")
    prefix = records.docs.get("prefix", "crossref 10.1")
    assert (prefix["prefix/registry-dois"], prefix["prefix/signals"]) == ([], [])
    _visit(records, run, sample, 0, "new.example", later)
    state, figures = records.close(run, state, later, idle=False)
    prefix = records.docs.get("prefix", "crossref 10.1")
    assert (figures["rounds"], prefix["prefix/sampled"], prefix["prefix/signals"]) == (1, T1, ["domain-changed"])


def test_a_site_the_registries_moved_before_the_first_sample_and_that_sample_missed_is_visited_next(records):
    run, state, _ = records.open(T0)
    state, _ = records.relist({("crossref", "10.1"): {"7": 40}}, state, T0, True)
    look = registry_deltas.Look(keep=3)
    look.add(registry_deltas.entries([("10.1/m", "https://new.example/m")]), records.tallies("crossref", ["10.1"]))
    assert records.observe("crossref", look, 3) == {"changes": 0, "signalled": 0}
    run, state, _ = _visited_round(records, run, state, T1, "old.example")
    prefix = records.docs.get("prefix", "crossref 10.1")
    assert (prefix["prefix/registry-dois"], prefix["prefix/signals"]) == (["10.1/m"], ["registry-changed"])
    (run, state, _), plan = _planned(records, run, state, "2026-11-01T02:00:00Z")
    assert [(p.reason, p.dois) for p in plan.picks] == [("registry", 1)]


def test_a_refresh_asks_for_a_sample_with_the_prefixs_panel_and_its_record_of_dois_drawn(records):
    run, state, _ = records.open(T0)
    state, _ = records.relist({("crossref", "10.1"): {"7": 40}}, state, T0, True)
    (run, state, _), _ = _planned(records, run, state, T1)
    sample = runs.sampled(next(records.docs.scan("sample")), ["10.1/0", "10.1/1"], T1)
    records.ledger.store("sample", runs.sample_id("continuous", 0), sample)
    _visit(records, run, sample, 0, "a.example", T1)
    _visit(records, run, sample, 1, "b.example", T1)
    state, _ = records.close(run, state, T1, idle=False)
    later = "2026-11-08T01:00:00Z"
    (run, state, asked), plan = _planned(records, run, state, later)
    refresh = records.docs.get("sample", runs.sample_id("continuous", 1))
    drawn = records.docs.get("prefix", "crossref 10.1")["prefix/drawn-keys"]
    assert (asked, [p.reason for p in plan.picks]) == (1, ["stale"])
    assert (refresh["sample/dois"], refresh["sample/size"], refresh["sample/ask"]) == (None, 4, 8)
    assert (refresh["sample/panel"], refresh["sample/drawn"]) == (["10.1/0", "10.1/1"], drawn)  # a DOI a site
