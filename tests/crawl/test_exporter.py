"""The Prometheus exporter, started on a free port against a crawler with the project's settings and its stats, and
scraped over HTTP as Prometheus scrapes it."""

import logging
import socket
import urllib.request

import pytest
from scrapy.exceptions import NotConfigured

from landing import clock
from landing.crawl.exporter import MetricsExporter
from landing.sampler.frontier import Frontier
from tests.crawl.project import crawler as project_crawler

FULL_RUN = {
    "landing/visits": 120,
    "landing/visits/failed": 20,
    "landing/error/timeout": 5,
    "landing/error/http-5xx": 15,
    "landing/correctness/ok": 90,
    "landing/correctness/missing": 10,
    "landing/refused/loopback": 2,
    "landing/requests": 400,
    "scheduler/enqueued": 500,
    "scheduler/dequeued": 470,
    "landing/run/owners": 50,
    "landing/run/owners_sampled": 12,
    "landing/health/failures": 1,
}
CONTINUOUS = {
    "landing/continuous/prefixes": 412,
    "landing/continuous/never_sampled": 3,
    "landing/continuous/age_p50_days": 2.1,
    "landing/continuous/age_p95_days": 6.0,
    "landing/continuous/age_max_days": 6.8,
    "landing/continuous/requests_today": 240000,
    "landing/continuous/budget": 500000.0,
    "landing/continuous/keeps_days": 4.2,
    "landing/continuous/within": 1,
    "landing/continuous/rounds": 30,
    "landing/continuous/signalled": 4,
    "landing/continuous/picks": 90,
    "landing/continuous/requests_per_doi": 2.77,
    "landing/continuous/dois_seen": 5100,
    "landing/continuous/sites_seen": 630,
    "landing/continuous/last_version": "20261126T090000Z",
    "landing/continuous/last_export": "2026-11-26T09:00:00Z",
    "landing/continuous/exports": 7,
    "landing/health/freshness": 1,
    "landing/health/export": 0,
}


@pytest.fixture(autouse=True)
def pinned_clock():
    clock.set_clock("2026-11-26T12:00:00Z", speed=1e-9)  # stands still for the test's length
    yield
    clock.set_clock(None)


@pytest.fixture(scope="module")
def exporter():
    """(crawler, its exporter's port): one exporter for the module (stopping one waits out its server's 0.5 s poll)."""
    made = project_crawler(LANDING_METRICS_PORT=0, LANDING_REFRESH_DAYS=7)
    made.stats.open_spider()
    running = MetricsExporter.from_crawler(made)
    running.start()
    yield made, made.stats.get_value("landing/metrics/port")
    running.stop()


@pytest.fixture
def serving(exporter):
    """(crawler with empty stats, a function that scrapes its /metrics into a set of lines)."""
    made, port = exporter
    made.stats.set_stats({})
    made.landing_frontier = None

    def scrape() -> set[str]:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
            return {line for line in answer.read().decode().splitlines() if not line.startswith("#")}

    return made, scrape


def _with(made, values: dict):
    for key, value in values.items():
        made.stats.set_value(key, value)


def test_no_port_no_exporter():
    with pytest.raises(NotConfigured):
        MetricsExporter.from_crawler(project_crawler())


def test_a_full_runs_stats_are_served_as_counters_and_gauges(serving):
    made, scrape = serving
    _with(made, FULL_RUN)
    made.landing_frontier = Frontier(2000)
    made.landing_frontier.size = 37
    found = scrape()
    assert {
        "landing_dois_visited_total 120.0",
        "landing_visits_failed_total 20.0",
        "landing_requests_total 400.0",
        'landing_snapshot_failures_total{class="timeout"} 5.0',
        'landing_snapshot_failures_total{class="http-5xx"} 15.0',
        'landing_snapshot_failures_total{class="dns"} 0.0',
        'landing_snapshot_pages_total{correctness="ok"} 90.0',
        'landing_snapshot_pages_total{correctness="missing"} 10.0',
        'landing_refused_total{reason="loopback"} 2.0',
        "landing_scheduler_requests 30.0",
        "landing_frontier_dois 37.0",
        "landing_run_owners 50.0",
        "landing_run_owners_sampled 12.0",
        'landing_health_ok{check="failures"} 1.0',
        "landing_clock_timestamp_seconds 1.7956944e+09",  # the pinned clock, in Prometheus's text format
    } <= found
    assert not [line for line in found if line.startswith(("landing_prefix", "landing_last_", "landing_budget"))]


def test_continuous_modes_stats_are_served_with_the_age_of_the_last_version(serving):
    made, scrape = serving
    _with(made, CONTINUOUS)
    assert {
        "landing_prefixes 412.0",
        "landing_prefixes_never_sampled 3.0",
        "landing_prefixes_signalled_total 4.0",
        "landing_plan_picks_total 90.0",
        "landing_requests_per_doi 2.77",
        'landing_prefix_age_days{quantile="0.5"} 2.1',
        'landing_prefix_age_days{quantile="0.95"} 6.0',
        'landing_prefix_age_days{quantile="1"} 6.8',
        "landing_refresh_days 7.0",
        "landing_requests_today 240000.0",
        "landing_budget_requests 500000.0",
        "landing_budget_keeps_days 4.2",
        "landing_budget_within 1.0",
        "landing_dois_seen 5100.0",
        "landing_sites_seen 630.0",
        "landing_plan_rounds_total 30.0",
        "landing_exports_total 7.0",
        'landing_last_version{version="20261126T090000Z"} 1.0',
        "landing_last_export_timestamp_seconds 1.7956836e+09",  # 2026-11-26T09:00:00Z
        "landing_last_export_age_seconds 10800.0",
        'landing_health_ok{check="freshness"} 1.0',
        'landing_health_ok{check="export"} 0.0',
    } <= scrape()


def test_each_scrape_reads_the_stats_as_they_are_then(serving):
    made, scrape = serving
    made.stats.set_value("landing/visits", 5)
    assert "landing_dois_visited_total 5.0" in scrape()
    made.stats.inc_value("landing/visits", 3)
    assert "landing_dois_visited_total 8.0" in scrape()


def test_a_port_in_use_is_one_error_line_and_the_crawl_goes_on_without_metrics(caplog):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        made = project_crawler(LANDING_METRICS_PORT=port)
        exporter = MetricsExporter.from_crawler(made)
        with caplog.at_level(logging.ERROR, logger="landing.crawl.exporter"):
            exporter.start()
        exporter.stop()
    assert [r.getMessage() for r in caplog.records] == [
        f"metrics: cannot serve on 127.0.0.1:{port} (Address already in use): this crawl goes on without metrics; "
        "set LANDING_METRICS_PORT to a free port (0: any)"
    ]
    assert made.stats.get_value("landing/metrics/unavailable").startswith(f"127.0.0.1:{port}: ")


def test_figures_continuous_mode_does_not_have_yet_are_no_age_and_an_infinite_period(serving):
    made, scrape = serving
    _with(made, {**CONTINUOUS, "landing/continuous/keeps_days": -1.0})
    for q in ("p50", "p95", "max"):
        made.stats.set_value(f"landing/continuous/age_{q}_days", -1)  # nothing sampled yet
    found = scrape()
    assert "landing_budget_keeps_days +Inf" in found
    assert not [line for line in found if line.startswith("landing_prefix_age_days")]


def test_the_registry_watchers_stats_are_served_as_landing_delta_metrics(serving):
    made, scrape = serving
    _with(
        made,
        {
            **CONTINUOUS,
            "landing/delta/requests": 26,
            "landing/delta/dois": 4000,
            "landing/delta/changes": 3,
            "landing/delta/signalled": 1,
            "landing/delta/last": "2026-11-26T11:00:00Z",
        },
    )
    assert {
        "landing_delta_requests_total 26.0",
        "landing_delta_dois_total 4000.0",
        "landing_delta_changes_total 3.0",
        "landing_delta_signalled_total 1.0",
        "landing_delta_last_timestamp_seconds 1.7956908e+09",  # 2026-11-26T11:00:00Z
        "landing_delta_last_age_seconds 3600.0",
    } <= scrape()


def test_a_crawl_whose_registry_watcher_set_nothing_has_no_delta_metrics(serving):
    made, scrape = serving
    _with(made, CONTINUOUS)
    assert not [line for line in scrape() if line.startswith("landing_delta")]
