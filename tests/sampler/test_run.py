"""The open run as a value (landing.sampler.run): opened once in a real SQLite store, told to its lead, and what a
sampled DOI's visit is, alone or sharing a Redis frontier."""

import asyncio
import dataclasses

from scrapy.http import Request
from scrapy.utils.test import get_crawler

from landing import settings as project_settings
from landing.sampler.answers import API_PRIORITY
from landing.sampler.doi_sampler import DoiSamplerSpider
from landing.sampler.frontier_redis import SHARED
from landing.sampler.items import PidItem
from landing.sampler.run import ALONE, open_run
from landing.sampler.visitor import FIRST_PRIORITY

PROJECT = {name: getattr(project_settings, name) for name in dir(project_settings) if name.isupper()}
SAMPLE = {
    "sample/ra": "crossref",
    "sample/owner": "7",
    "sample/order": 4,
    "sample/timestamp": "2026-11-25T00:00:00Z",
    "sample/dois": ["10.1/a", "10.1/b"],
}


class Told:
    """A lead that leads, as ALONE does, and keeps the run ids it is told."""

    leading, inherited = True, ""

    def __init__(self):
        self.published = []

    def publish(self, run_id: str) -> None:
        self.published.append(run_id)


def _opened(tmp_path, lead, **settings):
    """(the run `named` opened in a fresh SQLite store, what opening answered, the crawler)."""
    crawler = get_crawler(settings_dict={**PROJECT, "LANDING_DOCS": f"sqlite:///{tmp_path / 'landing.db'}", **settings})
    spider = crawler.spider = DoiSamplerSpider.from_crawler(crawler)
    crawler.stats.open_spider()
    planner = spider.planner
    run, opened = asyncio.run(
        open_run(crawler, spider.logger, lead, "named", 0, planner.frontier, planner.samples, spider.visitor)
    )
    run.docs.worker.shutdown()
    run.docs.store.close()
    return run, opened, crawler


def test_a_run_opened_is_named_as_asked_told_to_its_lead_and_counted_in_the_stats(tmp_path):
    lead = Told()
    run, (record, resumed), crawler = _opened(tmp_path, lead)
    assert (run.id, record["run/id"], record["run/state"], resumed, run.resumed) == (
        "named",
        "named",
        "listing",
        False,
        False,
    )
    assert lead.published == ["named"]
    assert crawler.stats.get_value("landing/run/id") == "named"
    assert (run.lead, run.ledger.wanted, run.records) == (lead, "named", run.ledger)


def test_a_doi_of_a_run_crawled_alone_is_its_pid_then_the_first_request_of_its_visit(tmp_path):
    run, _, _ = _opened(tmp_path, ALONE)
    pid, request = run.pid_and_visit(SAMPLE, 1, "10.1/b")
    assert isinstance(pid, PidItem) and (pid["pid/doi"], pid["pid/ra"]) == ("10.1/b", "crossref")
    assert isinstance(request, Request) and request.meta["visit"] == ("named", 4, 1)
    assert SHARED not in request.meta


def test_a_doi_of_a_shared_run_is_only_its_request_queued_once_under_its_visit_id(tmp_path):
    run, _, _ = _opened(tmp_path, ALONE)
    (request,) = dataclasses.replace(run, shared=True).pid_and_visit(SAMPLE, 1, "10.1/b")
    assert (request.meta["visit"], request.meta[SHARED]) == (("named", 4, 1), "named/0000004/0001")


def test_a_crawl_alone_always_leads_its_run_and_inherits_none():
    assert (ALONE.leading, ALONE.inherited, ALONE.publish("r")) == (True, "", None)


def test_a_doi_the_registries_say_moved_is_visited_before_every_queued_refresh_and_after_the_apis(tmp_path):
    run, _, _ = _opened(tmp_path, ALONE)
    _, refresh = run.pid_and_visit({**SAMPLE, "sample/reason": "stale"}, 0, "10.1/a")
    _, moved = run.pid_and_visit({**SAMPLE, "sample/reason": "registry"}, 1, "10.1/b")
    assert (refresh.priority, moved.priority) == (0, FIRST_PRIORITY)
    assert 0 < FIRST_PRIORITY < API_PRIORITY
