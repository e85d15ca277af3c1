from datetime import UTC, datetime, timedelta

from landing.core.continuous import status_line
from landing.core.continuous.freshness import Prefix, prefix_doc
from landing.core.continuous.status_line import Bounds, Version

NOW = datetime(2026, 11, 26, 4, tzinfo=UTC)
BOUNDS = Bounds(refresh_days=7, budget=500_000, export_hours=48)


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def prefixes(ages_days, never=0, listed=NOW - timedelta(days=30)) -> list[dict]:
    """`prefix` documents as continuous mode writes them: one per age (days since sampled), then `never` unsampled."""
    docs = [
        prefix_doc(Prefix("crossref", str(n), f"10.{1000 + n}", 50, NOW - timedelta(days=age)), _stamp(listed))
        for n, age in enumerate(ages_days)
    ]
    docs += [prefix_doc(Prefix("datacite", f"c.{n}", f"10.{5000 + n}", 5), _stamp(NOW)) for n in range(never)]
    return docs


def state(**fields) -> dict:
    doc = {
        "continuous/run": "continuous",
        "continuous/listed": _stamp(NOW - timedelta(hours=5)),
        "continuous/exported": _stamp(NOW - timedelta(hours=3)),
        "continuous/version": "20261126T010000Z",
        "continuous/changes": 4,
        "continuous/carry": 0.0,
        "continuous/pruned": None,
        "continuous/day": "2026-11-26",
        "continuous/requests-today": 240_000,
        "continuous/updated": _stamp(NOW),
    }
    return {**doc, **fields}


def test_a_healthy_continuous_run_is_one_line_with_ages_version_budget_and_health():
    ages = [i * 0.1 for i in range(1, 69)]  # 0.1 to 6.8 days
    line, checks = status_line.continuous(
        state(), prefixes(ages, never=3), Version("20261126T010000Z", 12), NOW, BOUNDS
    )
    assert line == (
        "continuous run continuous: 71 prefixes, age p50 3.4 d p95 6.5 d max 6.8 d (refresh 7 d), 3 never sampled; "
        "last version 20261126T010000Z (3 h ago, 12 pairs changed); budget 48% of today's (240,000 requests); "
        "health OK"
    )
    assert [(c.name, c.ok) for c in checks] == [("freshness", True), ("export", True), ("clock", True)]


def test_the_line_sums_the_dois_drawn_and_the_sites_seen_of_the_prefixes():
    docs = prefixes([1, 2])
    docs[0] |= {"prefix/drawn": 30, "prefix/sites": {"a.example": "10.1000/a", "b.example": None}}
    docs[1] |= {"prefix/drawn": 12, "prefix/sites": {"c.example": "10.1001/c"}}
    line, _ = status_line.continuous(state(), docs, Version("20261126T010000Z", 0), NOW, BOUNDS)
    assert ", 0 never sampled, 42 DOIs drawn, 3 sites seen; " in line


def test_state_written_after_now_fails_the_clock_check_and_shows_no_negative_age():
    # A run restarted with its clock 6 days behind: its prefixes and its last export are in that clock's future.
    behind = NOW - timedelta(days=6)
    line, checks = status_line.continuous(
        state(), prefixes([0.5, 1, 2]), Version("20261126T010000Z", 0), behind, BOUNDS
    )
    assert [(c.name, c.ok) for c in checks][-1] == ("clock", False)
    assert line.startswith(
        "continuous run continuous: 3 prefixes, ages unknown (refresh 7 d), 0 never sampled; "
        "last version 20261126T010000Z (after now, 0 pairs changed); "
    )
    assert line.endswith(
        "; health FAILED: clock (the clock went back: a record is 6 d after now (2026-11-26T04:00:00Z); "
        "set the clock right)"
    )


def test_a_prefix_past_refresh_days_fails_freshness():
    line, checks = status_line.continuous(state(), prefixes([1, 2, 7.5]), Version("20261126T010000Z", 0), NOW, BOUNDS)
    assert line.endswith("; health FAILED: freshness (oldest prefix 7.5 d, bound 7 d)")
    assert [c.ok for c in checks] == [False, True, True]


def test_no_version_for_longer_than_the_bound_fails_export():
    line, checks = status_line.continuous(state(), prefixes([1]), Version("20261123T120000Z", None), NOW, BOUNDS)
    assert "; last version 20261123T120000Z (64 h ago); " in line
    assert line.endswith("; health FAILED: export (last version 64 h ago, bound 48 h)")


def test_before_any_version_export_counts_from_the_first_listing():
    young = status_line.continuous(
        state(**{"continuous/exported": None}), prefixes([1], listed=NOW - timedelta(hours=30)), None, NOW, BOUNDS
    )
    old = status_line.continuous(
        state(**{"continuous/exported": None}), prefixes([1], listed=NOW - timedelta(hours=50)), None, NOW, BOUNDS
    )
    assert "; no version exported yet; " in young[0] and young[0].endswith("; health OK")
    assert old[0].endswith("; health FAILED: export (no version exported in 50 h, bound 48 h)")


def test_the_states_stamp_stands_in_for_an_artifacts_directory_that_is_elsewhere():
    line, _ = status_line.continuous(state(), prefixes([1]), None, NOW, BOUNDS)
    assert "; last version 20261126T010000Z (3 h ago); " in line


def test_yesterdays_request_count_is_not_todays_budget():
    line, _ = status_line.continuous(state(**{"continuous/day": "2026-11-25"}), prefixes([1]), None, NOW, BOUNDS)
    assert "; budget 0% of today's (0 requests); " in line


def test_an_unreadable_prefix_document_is_counted_not_raised():
    docs = prefixes([1, 2]) + [{"prefix/prefix": "10.9"}]
    line, _ = status_line.continuous(state(), docs, None, NOW, BOUNDS)
    assert line.startswith(
        "continuous run continuous: 2 prefixes, age p50 1 d p95 2 d max 2 d (refresh 7 d), "
        "0 never sampled, 1 prefix documents unreadable; "
    )


def test_a_full_run_says_its_progress_and_its_last_version():
    run = {"run/id": "2026-11-25T22:00:00Z", "run/state": "finished", "run/owners": 200, "run/dois-planned": 5000}
    line = status_line.full_run(run, 200, 4990, Version("20261126T000000Z", 812), NOW)
    assert line == (
        "full run 2026-11-25T22:00:00Z (finished): 200 of 200 owners sampled, 4,990 of 5,000 planned DOIs visited; "
        "last version 20261126T000000Z (4 h ago, 812 pairs changed)"
    )


def test_the_line_says_when_the_registries_were_last_read_and_what_moved():
    looked = state(
        **{
            "continuous/delta-looked": _stamp(NOW - timedelta(minutes=20)),
            "continuous/delta-dois": 1200,
            "continuous/delta-changes": 1,
            "continuous/delta-signalled": 1,
        }
    )
    line, _ = status_line.continuous(looked, prefixes([1, 2]), Version("20261126T010000Z", 0), NOW, BOUNDS)
    assert "; registries read 20 min ago (1,200 DOIs updated, 1 moved, 1 prefix signalled); health OK" in line


def test_a_run_that_never_read_the_registries_says_nothing_of_them():
    line, _ = status_line.continuous(state(), prefixes([1, 2]), Version("20261126T010000Z", 0), NOW, BOUNDS)
    assert "registries" not in line
