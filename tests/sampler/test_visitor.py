"""landing.sampler.visitor with the analysis pipeline: one parse per fetched body, whatever readings the visit needs;
and its first requests' priority, by which the crawl's scheduler interleaves the owners' DOIs."""

import asyncio

import pytest
from scrapy.exceptions import DownloadConnectionRefusedError
from scrapy.http import HtmlResponse, Request
from scrapy.spidermiddlewares.httperror import HttpError
from scrapy.utils.misc import load_object
from scrapy.utils.test import get_crawler
from twisted.internet.error import TimeoutError as DownloadTimeout
from twisted.python.failure import Failure

from landing import settings as project_settings
from landing.browser.driver import Navigation
from landing.core.pages import analysis
from landing.sampler.doi_sampler import DoiSamplerSpider
from landing.sampler.frontier import Frontier
from landing.sampler.items import AnalysisItem, Visit
from landing.sampler.pipelines import AnalysisPipeline

PROJECT = {name: getattr(project_settings, name) for name in dir(project_settings) if name.isupper()}
DOI = "10.1234/abc"
URL = "https://pub.example/a"
PID = {
    "pid/doi": DOI,
    "pid/doi-prefix": "10.1234",
    "pid/ra": "crossref",
    "pid/member-id": "7",
    "pid/global-member-id": "crossref/7",
    "pid/timestamp": "2026-01-01T00:00:00Z",
}
# Each page asks a different set of readings of its visit: the script hop's target and whether the page states its
# DOI, then the analysis, the cookie notice and the script-only test.
PAGES = {
    "a landing page that also scripts a move": (
        f'<html><head><meta name="citation_doi" content="{DOI}"></head>'
        "<body><p>An article.</p><script>location.href = '/elsewhere';</script></body></html>",
        None,
    ),
    "a script-only page": (
        "<html><head><script src='/app.js'></script></head><body><div id='root'></div></body></html>",
        "js-required",
    ),
    "a script-only page that moves to itself": (
        f"<html><head><script>window.location = '{URL}';</script></head><body></body></html>",
        "js-required",
    ),
    "a page asking for cookies": (
        "<html><body><p>Please enable cookies in your browser to continue.</p></body></html>",
        "cookie-required",
    ),
}


@pytest.fixture
def parses(monkeypatch):
    """Counts the bodies decoded for parsing: every parse of a page starts with html_to_unicode."""
    counted = []
    decode = analysis.html_to_unicode

    def counting(content_type, body):
        counted.append(body)
        return decode(content_type, body)

    monkeypatch.setattr(analysis, "html_to_unicode", counting)
    return counted


def _spider(tmp_path, driver):
    chromium = tmp_path / "chromium"
    chromium.write_text("#!/bin/sh\n")
    chromium.chmod(0o755)
    crawler = get_crawler(settings_dict={**PROJECT, "LANDING_DRIVER": driver, "LANDING_CHROMIUM": str(chromium)})
    crawler.spider = DoiSamplerSpider.from_crawler(crawler)
    crawler.stats.open_spider()
    return crawler.spider


@pytest.mark.parametrize("driver", ["http", "auto"])
@pytest.mark.parametrize("name", sorted(PAGES))
def test_a_visit_parses_its_page_once_from_the_script_hop_to_the_analysis(tmp_path, parses, driver, name):
    html, error = PAGES[name]
    body = html.encode()
    spider = _spider(tmp_path, driver)
    meta = {"pid": PID, "visit": ("r", 0, 0)}
    response = HtmlResponse(URL, body=body, headers={"Content-Type": "text/html"}, request=Request(URL, meta=meta))
    [visit] = [output for output in spider.parse_page(response) if isinstance(output, Visit)]
    item = AnalysisPipeline().process_item(visit)
    assert isinstance(item, AnalysisItem) and item["snapshot/error"] == error
    assert parses == [body]


def test_a_visit_that_fetched_no_page_is_never_parsed(tmp_path, parses):
    spider = _spider(tmp_path, "auto")
    meta = {"pid": PID, "visit": ("r", 0, 0)}
    response = HtmlResponse(
        URL, status=404, body=b"<html><body>Not here</body></html>", request=Request(URL, meta=meta)
    )
    [visit] = list(spider.parse_page(response))
    assert AnalysisPipeline().process_item(visit)["snapshot/error"] == "http-4xx"
    assert parses == []


@pytest.mark.parametrize(("declared", "error"), [(3 * 1024 * 1024, "too-large"), (1024, "timeout")])
def test_a_browser_visit_that_timed_out_on_a_page_declared_over_the_limit_is_too_large(tmp_path, declared, error):
    spider = _spider(tmp_path, "browser")
    navigation = Navigation()
    navigation.responses.append((URL, 200, {"content-length": str(declared), "content-type": "text/html"}))
    meta = {"pid": PID, "visit": ("r", 0, 0), "landing_navigation": navigation}
    failure = Failure(DownloadTimeout("navigation timed out"))
    failure.request = Request(URL, meta=meta)
    visit = asyncio.run(spider.visitor.browser_failed(failure))
    assert visit.snapshot["snapshot/error"] == error


def _failed_at(spider, url, error):
    failure = Failure(error)
    failure.request = Request(url, meta={"pid": PID, "visit": ("r", 0, 0)})
    frontier = Frontier.of(spider.crawler)
    frontier.size = 1  # the DOI's place in the frontier
    return list(spider.visitor.visit_failed(failure)), frontier


def test_a_doi_whose_resolver_stayed_down_is_left_unrecorded_for_a_later_walk(tmp_path):
    spider = _spider(tmp_path, "http")
    visits, frontier = _failed_at(spider, f"https://doi.org/{DOI}", DownloadConnectionRefusedError("refused"))
    assert (visits, frontier.size, spider.crawler.stats.get_value("landing/visit/deferred")) == ([], 0, 1)


def test_a_doi_whose_resolver_answered_503_to_the_last_try_is_left_for_a_later_walk(tmp_path):
    spider = _spider(tmp_path, "http")
    request = Request(f"https://doi.org/{DOI}", meta={"pid": PID, "visit": ("r", 0, 0)})
    visits, frontier = _failed_at(
        spider, request.url, HttpError(HtmlResponse(request.url, status=503, request=request))
    )
    assert (visits, frontier.size) == ([], 0)


def test_a_publisher_that_refused_the_connection_is_recorded_as_a_connection_failure(tmp_path):
    spider = _spider(tmp_path, "http")
    visits, frontier = _failed_at(spider, URL, DownloadConnectionRefusedError("refused"))
    assert [visit.snapshot["snapshot/error"] for visit in visits] == ["connection"]
    assert frontier.size == 1  # it leaves once its snapshot is stored


def _scheduler(spider):
    """The crawl's own scheduler (Scrapy's, as LANDING_FRONTIER_REDIS is unset), opened for `spider`."""
    crawler = spider.crawler
    crawler.engine = crawler._create_engine()  # the scheduler's queue asks the downloader about its slots
    scheduler = load_object(crawler.settings["SCHEDULER"]).from_crawler(crawler)
    scheduler.open(spider)
    return scheduler


def _queue(spider, scheduler, owner: str, size: int) -> None:
    """An owner's sample arrives: its DOIs' first requests, rank by rank, as the planner queues them."""
    for rank in range(size):
        pid = {**PID, "pid/doi": f"10.1234/{owner}{rank}", "pid/member-id": owner}
        scheduler.enqueue_request(spider.visitor.visit(pid, ("r", 0, rank)))


def _next(scheduler, count: int | None = None) -> list[str]:
    """The owner and rank of the next `count` requests the scheduler hands out (all of them by default)."""
    out = []
    while (count is None or len(out) < count) and (request := scheduler.next_request()) is not None:
        out.append(request.meta["pid"]["pid/doi"].split("/")[1])
    return out


def test_the_scheduler_hands_out_every_waiting_owners_next_doi_before_any_owners_following_one(tmp_path):
    spider = _spider(tmp_path, "http")
    scheduler = _scheduler(spider)
    for owner, size in {"a": 5, "b": 3, "c": 4}.items():
        _queue(spider, scheduler, owner, size)
    handed = _next(scheduler)
    assert [int(doi[1:]) for doi in handed] == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 4]
    assert {doi[0] for doi in handed[:3]} == {"a", "b", "c"} and handed[-3:] == ["c3", "a3", "a4"]


def test_an_owner_whose_sample_comes_later_has_its_first_doi_handed_out_before_the_others_next_ones(tmp_path):
    spider = _spider(tmp_path, "http")
    scheduler = _scheduler(spider)
    _queue(spider, scheduler, "a", 5)
    assert _next(scheduler, 2) == ["a0", "a1"]  # no other owner's sample has come: its DOIs go back to back
    _queue(spider, scheduler, "b", 3)
    assert _next(scheduler) == ["b0", "b1", "b2", "a2", "a3", "a4"]  # by rank: a had handed out 0 and 1
