"""landing.sampler.progress_log: the progress line, in DOIs, for a crawl that leads its run or follows one."""

import logging

from scrapy.statscollectors import MemoryStatsCollector
from scrapy.utils.test import get_crawler

from landing.sampler.progress_log import Progress


def line(caplog, elapsed=10.0, shared=False, continuous=False, points=None, **stats):
    """The line said at time 100 by a crawl started `elapsed` seconds before, its earlier (time, visits) `points`."""
    collector = MemoryStatsCollector(get_crawler())
    for key, value in stats.items():
        collector.set_value(key, value)
    progress = Progress(collector, 5, now=lambda: 100.0, shared=shared, continuous=continuous)
    progress.started = 100.0 - elapsed
    progress.points = points if points is not None else [(progress.started, 0)]
    with caplog.at_level(logging.INFO, logger="landing.sampler.progress_log"):
        progress.report()
    return caplog.records[-1].getMessage()


LEADING = {
    "landing/run/id": "r1",
    "landing/run/owners_sampled": 3,
    "landing/run/owners": 10,
    "landing/run/dois_planned": 100,
    "landing/run/dois_planned_sampled": 30,
    "landing/run/dois": 28,
    "landing/visits": 12,
    "landing/visits/failed": 1,
    "landing/requests": 40,
}


def test_a_leading_crawl_says_the_share_of_its_runs_dois_visited_and_the_time_left(caplog):
    # 98 DOIs expected (70 planned for the owners not sampled yet, 28 from those sampled), 12 visited at 1.2 a second.
    assert line(caplog, **LEADING) == (
        "progress: 28 DOIs sampled, 12 visited (11 pages, 1 failed), 1.2 DOIs/s, 40 requests; "
        "run r1: 3 of 10 owners sampled, 12.2% of its 98 DOIs visited, about 0:01:12 left"
    )


def test_pages_and_failures_add_up_to_the_dois_visited_when_the_browser_retried_one(caplog):
    # The DOI sent to the browser left an HTTP snapshot that failed (js-required) and a browser one that reached its
    # page: one DOI visited, two snapshots; the line counts the DOI once.
    stats = {**LEADING, "landing/visits": 2, "landing/visits/failed": 0, "landing/error/js-required": 1}
    stats["landing/correctness/ok"] = 2
    assert line(caplog, **stats).startswith("progress: 28 DOIs sampled, 2 visited (2 pages, 0 failed), ")


def test_a_resumed_crawl_counts_the_visits_before_it_apart(caplog):
    message = line(caplog, **{**LEADING, "landing/run/visited_before": 50})
    assert message.startswith("progress: 28 DOIs sampled, 62 visited (50 before this crawl, 11 pages, 1 failed), ")
    assert message.endswith(", 63.3% of its 98 DOIs visited, about 0:00:30 left")


def test_no_time_left_is_guessed_before_a_doi_is_visited(caplog):
    message = line(caplog, **{**LEADING, "landing/visits": 0, "landing/visits/failed": 0})
    assert message.endswith("; run r1: 3 of 10 owners sampled, 0.0% of its 98 DOIs visited")


def test_a_run_whose_dois_are_all_visited_says_no_time_left(caplog):
    message = line(caplog, **{**LEADING, "landing/visits": 98, "landing/visits/failed": 0})
    assert message.endswith("; run r1: 3 of 10 owners sampled, 100.0% of its 98 DOIs visited")


def test_before_the_plan_is_stored_the_line_has_no_share(caplog):
    message = line(caplog, **{"landing/run/id": "r1", "landing/run/owners": "?"})
    assert message.endswith("; run r1: 0 of ? owners sampled")


def test_a_following_worker_names_the_run_it_follows_and_guesses_no_share(caplog):
    message = line(caplog, **{"landing/run/id": "r1", "landing/run/following": 1, "landing/visits": 5})
    assert message == (
        "progress: 0 DOIs sampled, 5 visited (5 pages, 0 failed), 0.5 DOIs/s, 0 requests; "
        "run r1: following the worker that leads it"
    )


def test_the_worker_leading_a_shared_run_guesses_no_share_from_its_own_visits_alone(caplog):
    message = line(caplog, shared=True, **LEADING)
    assert message.endswith("; run r1: 3 of 10 owners sampled")


def test_a_crawl_that_stopped_visiting_says_a_rate_of_0_and_no_time_left(caplog):
    # 12 visits in its first 30 seconds, none in the 70 since: the last minute's rate is 0, not 12 / 100 s.
    message = line(caplog, elapsed=100.0, points=[(0.0, 0), (30.0, 12), (40.0, 12)], **LEADING)
    assert ", 0.0 DOIs/s, " in message
    assert message.endswith("; run r1: 3 of 10 owners sampled, 12.2% of its 98 DOIs visited")


def test_the_time_left_goes_by_the_last_minutes_rate(caplog):
    # 2 visits a second over the last minute (40 at time 40, 160 at time 100), not 1.6 since the start: 40 DOIs of
    # the 200 expected (172 planned for the owners not sampled yet, 28 from those sampled) left, 20 seconds.
    stats = {**LEADING, "landing/visits": 160, "landing/run/dois_planned": 202}
    message = line(caplog, elapsed=100.0, points=[(0.0, 0), (40.0, 40)], **stats)
    assert ", 2.0 DOIs/s, " in message
    assert message.endswith(", 80.0% of its 200 DOIs visited, about 0:00:20 left")


CONTINUOUS = {
    "landing/run/id": "continuous",
    "landing/run/owners": 26,
    "landing/run/owners_sampled": 26,
    "landing/continuous/picks": 26,
    "landing/continuous/rounds": 3,
    "landing/continuous/prefixes": 15,
    "landing/continuous/never_sampled": 2,
    "landing/continuous/requests_today": 120,
    "landing/continuous/budget": 2400.0,
}


def test_a_continuous_run_says_its_prefixes_rounds_and_requests_against_the_budget_not_owners(caplog):
    message = line(caplog, continuous=True, **CONTINUOUS)
    assert message.endswith(
        "; run continuous: 26 prefixes picked in this crawl, 3 rounds closed, 15 prefixes known (2 never sampled), "
        "120 of 2400 requests today (LANDING_BUDGET)"
    )
