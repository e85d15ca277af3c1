"""Continuous sampling's decisions (landing/core/continuous/schedule.py): the listing's diff, picks as samples, a prefix's
record after its visits, and the schedule in the state document (exports, the day's budget, the carry)."""

from datetime import timedelta

from landing.core.continuous import rotation, schedule
from landing.core.continuous.freshness import (
    DOMAIN_CHANGED,
    FAILING,
    NEVER_SAMPLED,
    NEW,
    SIGNALLED,
    STALE,
    Pick,
    Prefix,
    moment,
    prefix_doc,
    prefix_of,
)
from landing.core.registries.names import Names, keyed
from landing.core.registries.names import read as names_in

LISTED = "2026-11-01T00:00:00Z"
NAMED = Names("X Repository", "x", "X Consortium")


def _visit(doi, domain, at, error=None):
    return {
        "pid/doi": doi,
        "snapshot/final-url-domain": None if error else domain,
        "snapshot/error": error,
        "snapshot/resource-url": f"https://{domain}/",
        "snapshot/timestamp": at,
        "analysis/meta-tag-correctness": None if error else "ok",
    }


def test_an_owners_count_is_divided_among_its_prefixes_the_remainder_to_the_first():
    found = schedule.listed_prefixes(
        [("crossref", "7", 11), ("datacite", "x.y", 4)],
        {("crossref", "7"): ["10.3", "10.1", "10.2"], ("datacite", "x.y"): ["10.9"]},
    )
    assert found == {
        ("crossref", "10.1"): {"7": 4},
        ("crossref", "10.2"): {"7": 4},
        ("crossref", "10.3"): {"7": 3},
        ("datacite", "10.9"): {"x.y": 4},
    }


def test_an_owner_without_listed_prefixes_lists_none():
    assert schedule.listed_prefixes([("datacite", "x.y", 40)], {}) == {}


def test_a_listing_stores_a_new_prefix_never_sampled():
    docs, counts = schedule.relisted({}, {("crossref", "10.5"): {"8": 12, "3": 1}}, LISTED)
    assert docs == [prefix_doc(Prefix("crossref", "3", "10.5", 1), LISTED)]
    assert counts == {"new": 1, "moved": 0, "resized": 0}
    assert docs[0]["prefix/sampled"] is None


def test_a_prefix_still_listed_under_its_owner_keeps_its_record_and_takes_the_new_count():
    sampled = prefix_doc(Prefix("crossref", "7", "10.1", 5, moment(LISTED), frozenset({FAILING})), LISTED, LISTED)
    unchanged, counts = schedule.relisted({"crossref 10.1": sampled}, {("crossref", "10.1"): {"7": 5}}, LISTED)
    assert (unchanged, counts) == ([], {"new": 0, "moved": 0, "resized": 0})
    resized, counts = schedule.relisted({"crossref 10.1": sampled}, {("crossref", "10.1"): {"7": 9, "2": 1}}, LISTED)
    assert resized == [{**sampled, "prefix/dois": 9}]
    assert counts == {"new": 0, "moved": 0, "resized": 1}


def test_a_prefix_listed_under_another_owner_moves_with_the_signal_new_and_keeps_its_history():
    sampled = prefix_doc(Prefix("crossref", "7", "10.1", 5, moment(LISTED)), LISTED, panel=["10.1/a"])
    moved, counts = schedule.relisted(
        {"crossref 10.1": sampled}, {("crossref", "10.1"): {"9": 6}}, "2026-11-03T00:00:00Z"
    )
    assert moved == [{**sampled, "prefix/owner": "9", "prefix/dois": 6, "prefix/signals": [NEW]}]
    assert counts == {"new": 0, "moved": 1, "resized": 0}


def test_a_known_prefix_the_listing_lacks_is_kept_as_it_is():
    known = {"crossref 10.1": prefix_doc(Prefix("crossref", "7", "10.1", 5), LISTED)}
    assert schedule.relisted(known, {}, LISTED) == ([], {"new": 0, "moved": 0, "resized": 0})


def test_a_first_pick_asks_the_api_for_the_prefixs_sample():
    pick = Pick(Prefix("datacite", "x.y", "10.9", 40), 12, NEVER_SAMPLED, 37)
    sample = schedule.pick_sample("continuous", 4, pick, [], LISTED)
    assert sample == {
        "sample/run": "continuous",
        "sample/order": 4,
        "sample/ra": "datacite",
        "sample/owner": "x.y",
        "sample/total": 40,
        "sample/size": 12,
        "sample/prefixes": ["10.9"],
        "sample/per-prefix": 0,
        "sample/dois": None,
        "sample/timestamp": None,
        "sample/prefix": "10.9",
        "sample/reason": NEVER_SAMPLED,
        "sample/planned": LISTED,
        "sample/panel": [],
        "sample/owner-name": None,
        "sample/provider-id": None,
        "sample/provider-name": None,
    }


def test_a_picks_sample_keeps_the_owners_names_its_prefix_document_has():
    doc = {**prefix_doc(Prefix("datacite", "x.y", "10.9", 40), LISTED), **keyed("prefix", NAMED)}
    pick = Pick(prefix_of(doc), 12, NEVER_SAMPLED, 37)
    sample = schedule.pick_sample("continuous", 4, pick, [], LISTED, names_in("prefix", doc))
    assert names_in("sample", sample) == NAMED


def test_a_listing_with_names_gives_new_resized_and_moved_prefixes_their_owners_names():
    known = {
        "datacite 10.1": prefix_doc(Prefix("datacite", "x.y", "10.1", 5), LISTED),
        "datacite 10.2": prefix_doc(Prefix("datacite", "x.y", "10.2", 5), LISTED),
    }
    listing = {("datacite", p): {"x.z": 7} for p in ("10.1", "10.3")} | {("datacite", "10.2"): {"x.y": 9}}
    names = {("datacite", "x.y"): Names("Old Repository"), ("datacite", "x.z"): NAMED}
    docs, counts = schedule.relisted(known, listing, LISTED, names)
    assert [(d["prefix/prefix"], names_in("prefix", d)) for d in docs] == [
        ("10.1", NAMED),
        ("10.2", Names("Old Repository")),
        ("10.3", NAMED),
    ]
    assert counts == {"new": 1, "moved": 1, "resized": 1}


def test_a_listing_that_renames_an_owner_changes_its_prefixes_and_counts_no_change():
    known = {"datacite 10.1": {**prefix_doc(Prefix("datacite", "x.z", "10.1", 7), LISTED), **keyed("prefix", NAMED)}}
    renamed = Names("X Repository, renamed", "x", "X Consortium")
    docs, counts = schedule.relisted(known, {("datacite", "10.1"): {"x.z": 7}}, LISTED, {("datacite", "x.z"): renamed})
    assert ([names_in("prefix", d) for d in docs], counts) == ([renamed], {"new": 0, "moved": 0, "resized": 0})
    same, _ = schedule.relisted(known, {("datacite", "10.1"): {"x.z": 7}}, LISTED, {("datacite", "x.z"): NAMED})
    assert same == []


def test_a_signalled_pick_deeper_than_the_panel_asks_for_twice_its_size_keeping_the_panel_and_the_drawn_keys():
    pick = Pick(Prefix("crossref", "7", "10.1", 500, moment(LISTED), frozenset({DOMAIN_CHANGED})), 30, SIGNALLED, 91)
    drawn = rotation.drawn_key("10.1/c")
    sample = schedule.pick_sample("continuous", 9, pick, ["10.1/a", "10.1/b"], LISTED, drawn=drawn)
    assert (sample["sample/dois"], sample["sample/size"], sample["sample/ask"]) == (None, 30, 60)
    assert (sample["sample/panel"], sample["sample/drawn"]) == (["10.1/a", "10.1/b"], drawn)


def test_a_stale_pick_larger_than_its_panel_asks_the_api_for_fresh_dois():
    pick = Pick(Prefix("crossref", "7", "10.1", 500, moment(LISTED)), 10, STALE, 31)
    sample = schedule.pick_sample("continuous", 9, pick, ["10.1/a", "10.1/b"], "2026-11-08T00:00:00Z")
    assert (sample["sample/dois"], sample["sample/size"], sample["sample/ask"], sample["sample/timestamp"]) == (
        None,
        10,
        20,
        None,
    )


def test_a_pick_no_larger_than_its_panel_revisits_it_without_a_sample_query():
    pick = Pick(Prefix("crossref", "7", "10.1", 500, moment(LISTED)), 2, STALE, 7)
    sample = schedule.pick_sample("continuous", 9, pick, ["10.1/a", "10.1/b"], "2026-11-08T00:00:00Z")
    assert (sample["sample/dois"], sample["sample/size"], sample["sample/timestamp"]) == (
        ["10.1/a", "10.1/b"],
        2,
        "2026-11-08T00:00:00Z",
    )
    assert "sample/ask" not in sample


def test_a_first_sample_makes_the_panel_and_signals_nothing():
    doc = prefix_doc(Prefix("crossref", "7", "10.1", 5), LISTED)
    sample = {"sample/planned": "2026-11-02T00:00:00Z", "sample/dois": ["10.1/a", "10.1/b"]}
    after = schedule.sampled(doc, sample, [_visit("10.1/a", "a.example", "2026-11-02T00:10:00Z")])
    assert after == {
        **doc,
        "prefix/sampled": "2026-11-02T00:00:00Z",
        "prefix/signals": [],
        "prefix/changed": None,
        "prefix/panel": ["10.1/a"],
        "prefix/sites": {"a.example": "10.1/a"},
        "prefix/drawn": 2,
        "prefix/drawn-keys": rotation.drawn_key("10.1/a") + rotation.drawn_key("10.1/b"),
        "prefix/rounds": 1,
    }


def test_signals_compare_the_panels_visits_only_and_a_quiet_refresh_clears_them():
    doc = prefix_doc(Prefix("crossref", "7", "10.1", 5, signals=frozenset({NEW})), LISTED, panel=["10.1/a"])
    earlier = [_visit("10.1/a", "a.example", "2026-11-02T00:10:00Z")]
    elsewhere = _visit("10.1/z", "other.example", "2026-11-09T00:10:00Z")  # a deeper sample's DOI, not the panel's
    quiet = schedule.sampled(
        doc,
        {"sample/planned": "2026-11-09T00:00:00Z", "sample/dois": ["10.1/a", "10.1/z"]},
        [*earlier, _visit("10.1/a", "a.example", "2026-11-09T00:05:00Z"), elsewhere],
    )
    assert (quiet["prefix/signals"], quiet["prefix/changed"]) == ([], None)
    failing = schedule.sampled(
        doc,
        {"sample/planned": "2026-11-09T00:00:00Z", "sample/dois": ["10.1/a"]},
        [*earlier, _visit("10.1/a", None, "2026-11-09T00:05:00Z", error="http-5xx")],
    )
    assert (failing["prefix/signals"], failing["prefix/changed"]) == ([FAILING], "2026-11-09T00:00:00Z")


def test_the_prefix_document_holds_the_prefix_and_gives_it_back():
    prefix = Prefix("datacite", "x.y", "10.9", 7, moment("2026-11-04T05:06:07Z"), frozenset({FAILING, NEW}))
    doc = prefix_doc(prefix, LISTED, "2026-11-04T05:06:07Z", ["10.9/a"])
    assert doc == {
        "prefix/ra": "datacite",
        "prefix/owner": "x.y",
        "prefix/prefix": "10.9",
        "prefix/dois": 7,
        "prefix/listed": LISTED,
        "prefix/sampled": "2026-11-04T05:06:07Z",
        "prefix/signals": ["failing", "new"],
        "prefix/changed": "2026-11-04T05:06:07Z",
        "prefix/panel": ["10.9/a"],
    }
    assert prefix_of(doc) == prefix


def test_an_export_is_due_at_each_boundary_on_the_clock_never_sooner_never_with_nothing_sampled():
    state = {**schedule.new_state("continuous", LISTED), "continuous/sampled-since": 1}
    first = moment(LISTED) + timedelta(hours=10)
    assert schedule.export_due(state, first, 24) == moment(LISTED)  # no version yet: named for the latest boundary
    state = schedule.exported(state, "20261101T000000Z", LISTED)
    assert (state["continuous/changes"], state["continuous/sampled-since"], state["continuous/exports"]) == (0, 0, 1)
    later = moment(LISTED) + timedelta(hours=24)
    assert schedule.export_due(state, later, 24) is None
    state = {**state, "continuous/sampled-since": 2, "continuous/changes": 500}
    assert schedule.export_due(state, later - timedelta(seconds=1), 24) is None
    assert schedule.export_due(state, later + timedelta(minutes=7), 24) == later


def test_an_export_is_due_at_a_boundary_with_visits_since_the_last_version_while_every_round_is_open():
    state = schedule.exported(schedule.new_state("continuous", LISTED), "20261101T000000Z", LISTED)
    later = moment(LISTED) + timedelta(hours=24)
    assert schedule.export_due(state, later, 24, visited=0) is None
    assert schedule.export_due(state, later, 24, visited=1) == later


def test_a_version_made_at_a_stop_is_followed_by_one_at_the_next_boundary():
    state = {**schedule.new_state("continuous", LISTED), "continuous/sampled-since": 1}
    state = {**schedule.exported(state, "20261101T153000Z", "2026-11-01T15:30:00Z"), "continuous/sampled-since": 1}
    assert schedule.export_due(state, moment("2026-11-01T23:00:00Z"), 24) is None
    assert schedule.export_due(state, moment("2026-11-02T00:00:00Z"), 24) == moment("2026-11-02T00:00:00Z")


def test_requests_are_counted_per_simulated_utc_day():
    state = schedule.new_state("continuous", "2026-11-01T22:00:00Z")
    state = schedule.counted(state, moment("2026-11-01T22:30:00Z"), 300)
    state = schedule.counted(state, moment("2026-11-01T23:59:59Z"), 200)
    assert (state["continuous/day"], state["continuous/requests-today"]) == ("2026-11-01", 500)
    state = schedule.counted(state, moment("2026-11-02T00:00:00Z"), 7)
    assert (state["continuous/day"], state["continuous/requests-today"]) == ("2026-11-02", 7)


def test_a_slice_never_spends_past_what_is_left_of_the_days_budget():
    # 1,000 a day, a 6-hour slice: its share is 250; 900 spent today leaves 100, so the slice starts 150 short.
    assert schedule.slice_carry(0.0, 250.0, 900.0, 1000.0) == -150.0
    assert schedule.slice_carry(-20.0, 250.0, 0.0, 1000.0) == -20.0
    assert schedule.slice_carry(0.0, 250.0, 0.0, 1000.0) == 0.0


def test_the_crawls_own_requests_per_doi_replace_the_setting_once_measured():
    assert schedule.per_doi({"continuous/requests": 99, "continuous/dois": 99}, 3.0) == 3.0
    assert schedule.per_doi({"continuous/requests": 250, "continuous/dois": 100}, 3.0) == 2.5


def test_a_plan_spends_the_budget_of_the_time_since_the_last_plan_at_least_a_slice_at_most_a_day():
    at = moment("2026-11-01T12:00:00Z")
    assert schedule.slice_span(None, at, 30) == timedelta(minutes=30)
    assert schedule.slice_span("2026-11-01T11:50:00Z", at, 30) == timedelta(minutes=30)
    assert schedule.slice_span("2026-11-01T09:00:00Z", at, 30) == timedelta(hours=3)
    assert schedule.slice_span("2026-10-20T00:00:00Z", at, 30) == timedelta(days=1)


def test_the_age_stats_say_minus_one_before_anything_is_sampled():
    prefixes = [Prefix("crossref", "7", "10.1", 5), Prefix("crossref", "7", "10.2", 5)]
    assert schedule.age_stats(prefixes, moment(LISTED)) == {
        "prefixes": 2,
        "never_sampled": 2,
        "age_p50_days": -1,
        "age_p95_days": -1,
        "age_max_days": -1,
    }
