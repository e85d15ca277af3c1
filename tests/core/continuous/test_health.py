from datetime import UTC, datetime, timedelta

from landing.core.continuous import health

NOW = datetime(2026, 11, 26, 12, tzinfo=UTC)


def test_freshness_passes_at_the_bound_and_fails_past_it():
    assert (health.freshness(7.0, 7).ok, health.freshness(7.01, 7).ok) == (True, False)


def test_failures_are_judged_only_from_the_least_number_of_visits():
    assert health.failures(99, 90, 0.5, 100) is None
    assert health.failures(100, 50, 0.5, 100) == health.Check(
        "failures", True, "50 of 100 visits failed (50%), bound 50%"
    )
    assert health.failures(100, 51, 0.5, 100).ok is False


def test_the_failure_window_is_the_visits_since_the_last_judged_check():
    # 1,000 good visits, then 200 of which 150 failed: the whole crawl's share (15%) would hide it.
    visits, failed = health.window(1200, 150, [1000, 0])
    assert (visits, failed) == (200, 150)
    assert health.failures(visits, failed, 0.5, 100).ok is False


def test_a_window_base_above_the_counts_judges_everything_seen():
    assert health.window(50, 5, [1000, 10]) == (50, 5)  # counts restarted (a new process): the base is no base


def test_export_counts_from_the_last_version_and_before_the_first_from_the_start():
    started = NOW - timedelta(hours=47)
    assert health.export(None, started, NOW, 48).ok is True
    assert health.export(None, NOW - timedelta(hours=49), NOW, 48).ok is False
    assert health.export(NOW - timedelta(hours=49), started, NOW, 48) == health.Check(
        "export", False, "last version 49 h ago, bound 48 h"
    )


def test_the_verdict_names_every_failed_check_with_what_it_saw():
    checks = [
        health.freshness(8.25, 7),
        health.failures(200, 20, 0.5, 100),
        health.export(None, NOW - timedelta(days=3), NOW, 48),
    ]
    assert health.verdict(checks) == (
        "FAILED: freshness (oldest prefix 8.2 d, bound 7 d); export (no version exported in 3 d, bound 48 h)"
    )
