"""The health checks, run by Spidermon's own runner as its extension runs them, on a crawler with the project's
settings and stats of the shapes the sampler and continuous mode set."""

import logging
from datetime import UTC, datetime, timedelta

import pytest

from landing import clock
from landing import settings as project
from landing.core.continuous import health
from landing.crawl.monitors import Monitoring, began
from tests.crawl.project import crawler as project_crawler

NOW = datetime(2026, 11, 26, 12, tzinfo=UTC)


@pytest.fixture(autouse=True)
def pinned_clock():
    clock.set_clock("2026-11-26T12:00:00Z", speed=1e-9)  # stands still for the test's length
    yield
    clock.set_clock(None)


def crawler(**stats):
    made = project_crawler(LANDING_REFRESH_DAYS=7)  # the export check: twice LANDING_EXPORT_EVERY, 48 h
    made.stats.open_spider()
    made.stats.set_value("start_time", datetime.now(UTC))
    for key, value in stats.items():
        made.stats.set_value(key.replace("__", "/"), value)
    return made


def check(made):
    """Run the suites the project runs at close, as the extension runs them; the verdict stats they left."""
    extension = Monitoring.from_crawler(made)
    extension._run_suites(made.spider, extension.spider_closed_suites)
    found = made.stats.get_stats()
    return {
        f"landing/health/{c}": found[f"landing/health/{c}"] for c in health.CHECKS if f"landing/health/{c}" in found
    }


def continuous(**stats):
    return {
        "landing__continuous__prefixes": 300,
        "landing__continuous__age_max_days": 6.5,
        "landing__continuous__last_export": (NOW - timedelta(hours=3)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        **stats,
    }


def test_the_project_runs_the_suite_periodically_and_at_close():
    assert project.EXTENSIONS["landing.crawl.health_watch.ContinuousHealth"] and project.SPIDERMON_ENABLED
    assert project.SPIDERMON_SPIDER_CLOSE_MONITORS == ["landing.crawl.monitors.HealthSuite"]
    assert list(project.SPIDERMON_PERIODIC_MONITORS) == ["landing.crawl.monitors.HealthSuite"]


def test_a_healthy_continuous_crawl_passes_every_check(caplog):
    made = crawler(**continuous(landing__visits=1000, landing__visits__failed=100))
    with caplog.at_level(logging.INFO):
        assert check(made) == {
            "landing/health/freshness": 1,
            "landing/health/failures": 1,
            "landing/health/export": 1,
            "landing/health/clock": 1,
        }
    assert [r.getMessage() for r in caplog.records] == ["health: OK (freshness, failures, export, clock)"]


def test_a_prefix_older_than_refresh_days_fails_freshness_in_one_error_line(caplog):
    made = crawler(**continuous(landing__continuous__age_max_days=7.4))
    with caplog.at_level(logging.INFO):
        assert check(made) == {"landing/health/freshness": 0, "landing/health/export": 1, "landing/health/clock": 1}
    # Spidermon's own report (a dozen lines, a traceback for each failed check) is at DEBUG
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        ("ERROR", "health: FAILED: freshness (oldest prefix 7.4 d, bound 7 d)")
    ]


def test_a_record_after_now_fails_the_clock_check_in_one_error_line(caplog):
    # A run restarted with its clock 6 days behind: its last export is 6 days in that clock's future.
    ahead = (NOW + timedelta(days=6)).strftime("%Y-%m-%dT%H:%M:%SZ")
    made = crawler(**continuous(landing__continuous__last_export=ahead, landing__continuous__latest_record=ahead))
    with caplog.at_level(logging.INFO, logger="landing.crawl.monitors"):
        assert check(made)["landing/health/clock"] == 0
    assert [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "landing.crawl.monitors"] == [
        (
            "ERROR",
            "health: FAILED: clock (the clock went back: a record is 6 d after now (2026-12-02T12:00:00Z); "
            "set the clock right)",
        )
    ]


def test_no_version_past_the_bound_fails_export():
    stale = (NOW - timedelta(hours=49)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert check(crawler(**continuous(landing__continuous__last_export=stale)))["landing/health/export"] == 0


def test_a_failure_share_past_the_bound_fails_failures_in_a_full_run_too():
    made = crawler(landing__visits=400, landing__visits__failed=201)
    assert check(made) == {"landing/health/failures": 0}  # freshness and export apply to continuous mode only


def test_the_next_check_judges_only_the_visits_since_the_last_judged_one():
    made = crawler(landing__visits=1000, landing__visits__failed=0)
    assert check(made) == {"landing/health/failures": 1}
    made.stats.set_value("landing/visits", 1200)
    made.stats.set_value("landing/visits/failed", 150)  # 150 of the last 200: the crawl's share is only 12.5%
    assert check(made) == {"landing/health/failures": 0}


def test_a_crawl_began_as_long_ago_on_its_clock_as_its_speed_makes_the_real_time():
    clock.set_clock("2026-11-26T12:00:00Z", speed=1440)
    started = datetime.now(UTC) - timedelta(seconds=60)  # a real minute at 1440: a simulated day
    assert abs(began(started, NOW) - (NOW - timedelta(days=1))).total_seconds() < 1440 * 2


def test_too_few_new_visits_keep_the_last_verdict_in_the_stats_and_the_log_line(caplog):
    made = crawler(landing__visits=400, landing__visits__failed=300)
    check(made)
    caplog.clear()
    made.stats.set_value("landing/visits", 450)  # 50 more, all good: too few to judge the crawl recovered
    with caplog.at_level(logging.INFO, logger="landing.crawl.monitors"):
        assert check(made) == {"landing/health/failures": 0}
    assert [r.getMessage() for r in caplog.records if r.name == "landing.crawl.monitors"] == [
        "health: FAILED: failures (300 of 400 visits failed (75%), bound 50%)"
    ]


def test_a_check_that_raises_counts_as_failed():
    made = crawler(**continuous(landing__continuous__age_max_days="unknown"))
    assert check(made)["landing/health/freshness"] == 0
    assert made.landing_health["freshness"].detail.startswith("the check raised TypeError: ")


def test_before_any_prefix_is_sampled_freshness_passes():
    made = crawler(**continuous(landing__continuous__age_max_days=-1))  # continuous mode's "none yet"
    assert check(made)["landing/health/freshness"] == 1
    assert made.landing_health["freshness"].detail == "no prefix sampled yet"


def test_a_continuous_crawl_gets_spidermons_extension_and_a_full_run_none():
    from scrapy.exceptions import NotConfigured

    from landing.crawl.health_watch import ContinuousHealth

    assert type(ContinuousHealth.from_crawler(project_crawler(LANDING_CONTINUOUS=True))) is Monitoring
    with pytest.raises(NotConfigured):
        ContinuousHealth.from_crawler(project_crawler())
