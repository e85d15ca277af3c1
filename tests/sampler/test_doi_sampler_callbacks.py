"""The spider's callbacks on hand-made responses: listing, the sample stored before its visits, sample ranks."""

import asyncio
import json
import sys
from dataclasses import replace

import pytest
from scrapy.http import HtmlResponse, Request, TextResponse
from scrapy.utils.test import get_crawler

from landing import settings as project_settings
from landing.config import SettingsError
from landing.core.registries.names import Names, keyed
from landing.core.registries.names import read as names_in
from landing.sampler.doi_sampler import DoiSamplerSpider
from landing.sampler.items import AnalysisItem, LedgerItem, PidItem, Visit
from landing.sampler.pipelines import AnalysisPipeline
from landing.sampler.run import ALONE, OpenRun
from tests import forked

PROJECT = {name: getattr(project_settings, name) for name in dir(project_settings) if name.isupper()}


def _spider(**overrides):
    crawler = get_crawler(settings_dict={**PROJECT, **overrides})
    crawler.spider = DoiSamplerSpider.from_crawler(crawler)
    crawler.stats.open_spider()
    return crawler.spider


def _response(url, payload, **meta):
    return TextResponse(url, body=json.dumps(payload).encode(), encoding="utf-8", request=Request(url, meta=meta))


def _members(n, start=0):
    return [{"id": start + i, "primary-name": f"m{i}", "counts": {"total-dois": 10 * (i + 1)}} for i in range(n)]


def _opened(spider, run_id="r"):
    """Run `run_id` open in the spider's planner, with no store: enough for samples answered without a shared frontier."""
    planner = spider.planner
    planner.run = OpenRun(
        id=run_id,
        resumed=False,
        docs=None,
        ledger=None,
        records=None,
        frontier=planner.frontier,
        samples=planner.samples,
        visitor=spider.visitor,
        lead=ALONE,
        shared=False,
        crawler=spider.crawler,
        logger=spider.logger,
    )
    return spider


def _listing(spider, **sources):
    spider.planner.listing.counts = dict(sources)
    return spider


def test_members_without_a_next_cursor_are_paged_by_offset_until_total_results():
    spider = _listing(_spider(), crossref=1)
    out = list(
        spider.parse_members(
            _response(
                "https://api.crossref.org/members?rows=1000&cursor=*",
                {"message": {"items": _members(2), "total-results": 3}},
            )
        )
    )
    assert [r.url for r in out] == ["https://api.crossref.org/members?rows=1000&offset=2"]
    assert (out[0].meta["listing"], spider.planner.listing.over.is_set()) == ("crossref", False)


def test_the_last_member_page_ends_the_listing_with_every_member_and_its_count():
    spider = _listing(_spider(), crossref=1)
    out = list(
        spider.parse_members(
            _response(
                "https://api.crossref.org/members?rows=1000&cursor=*",
                {"message": {"items": _members(3), "total-results": 3}},
            )
        )
    )
    assert out == [] and spider.planner.listing.over.is_set()
    assert spider.planner.listing.owners() == (
        [("crossref", "0", 10), ("crossref", "1", 20), ("crossref", "2", 30)],
        True,
    )


def test_a_client_page_counts_its_count_requests_before_any_can_answer():
    spider = _listing(_spider(), datacite=1)
    out = spider.parse_clients(_response("https://api.datacite.org/clients", {"data": [{"id": "a.b"}, {"id": "c.d"}]}))
    first = next(out)
    assert spider.planner.listing.counts["datacite"] == 2  # both counts, before the first one is even yielded
    spider.parse_count(_response(first.url, {"meta": {"total": 7}}, owner="a.b"))
    assert not spider.planner.listing.over.is_set()
    second = next(out)
    spider.parse_count(_response(second.url, {"meta": {"total": 0}}, owner="c.d"))
    assert spider.planner.listing.over.is_set() and spider.planner.listing.owners() == (
        [("datacite", "a.b", 7), ("datacite", "c.d", 0)],
        True,
    )


def test_a_listing_keeps_each_members_name_and_each_clients_name_and_provider():
    spider = _listing(_spider(), crossref=1, datacite=1)
    listing = spider.planner.listing
    list(spider.parse_members(_response("https://api.crossref.org/members", {"message": {"items": _members(1)}})))
    page = {
        "data": [
            {
                "id": "cern.zenodo",
                "attributes": {"name": "Zenodo"},
                "relationships": {"provider": {"data": {"id": "cern", "type": "providers"}}},
            }
        ],
        "included": [{"id": "cern", "type": "providers", "attributes": {"name": "CERN"}}],
    }
    list(spider.parse_clients(_response("https://api.datacite.org/clients", page)))
    assert listing.names_of == {
        ("crossref", "0"): Names("m0"),
        ("datacite", "cern.zenodo"): Names("Zenodo", "cern", "CERN"),
    }


def test_a_listing_request_that_failed_before_any_owner_was_listed_leaves_no_plan():
    spider = _listing(_spider(), crossref=1)
    spider.planner.listing.answered("crossref", failed=True)
    assert spider.planner.listing.over.is_set() and spider.planner.listing.owners() is None


def test_a_listing_that_failed_after_some_owners_plans_those_listed_as_incomplete():
    spider = _listing(_spider(), datacite=1)
    out = spider.parse_clients(_response("https://api.datacite.org/clients", {"data": [{"id": "a.b"}, {"id": "c.d"}]}))
    first, _second = next(out), next(out)
    spider.parse_count(_response(first.url, {"meta": {"total": 7}}, owner="a.b"))
    spider.planner.listing.answered("datacite", failed=True)  # c.d's count
    assert spider.planner.listing.over.is_set() and spider.planner.listing.owners() == ([("datacite", "a.b", 7)], False)


def _all(outputs):
    """Everything an async callback yields (no prefix is short here, so it asks the downloader nothing)."""

    async def collect():
        return [output async for output in outputs]

    return asyncio.run(collect())


def _sample_response(dois, order=3, size=3):
    sample = {
        "sample/run": "r",
        "sample/order": order,
        "sample/ra": "crossref",
        "sample/owner": "7",
        "sample/total": 40,
        "sample/size": size,
        "sample/dois": None,
        "sample/timestamp": None,
    }
    payload = {"message": {"items": [{"DOI": doi} for doi in dois]}}
    return _response("https://api.crossref.org/works", payload, sample=sample)


def test_a_sample_is_stored_whole_before_its_dois_are_visited_with_priority_minus_their_rank():
    spider = _spider()
    _opened(spider)
    spider.planner.frontier.size = 3  # the sample's reservation
    out = _all(spider.parse_sample(_sample_response(["10.1/A", "10.1/a", "10.1/b"])))
    assert isinstance(out[0], LedgerItem) and (out[0].kind, out[0].doc_id) == ("sample", "r/0000003")
    assert out[0]["sample/dois"] == ["10.1/a", "10.1/b"]
    pids = [o for o in out if isinstance(o, PidItem)]
    visits = [o for o in out if isinstance(o, Request)]
    assert [p["pid/doi"] for p in pids] == ["10.1/a", "10.1/b"]
    assert [(v.url, v.priority, v.dont_filter, v.meta["visit"]) for v in visits] == [
        ("https://doi.org/10.1/a", 0, True, ("r", 3, 0)),
        ("https://doi.org/10.1/b", -1, True, ("r", 3, 1)),
    ]
    assert spider.planner.frontier.size == 2  # the reservation settled to the DOIs the sample holds


def test_the_pids_of_a_named_owners_sample_carry_its_names():
    spider = _spider()
    _opened(spider)
    response = _sample_response(["10.1/a"], size=1)
    response.meta["sample"].update(keyed("sample", Names("Zenodo", "cern", "CERN")))
    out = _all(spider.parse_sample(response))
    pid = next(o for o in out if isinstance(o, PidItem))
    assert (names_in("sample", out[0]), names_in("pid", pid)) == (Names("Zenodo", "cern", "CERN"),) * 2


def test_a_doi_with_url_unsafe_characters_is_quoted_for_the_resolver():
    spider = _spider()
    _opened(spider)
    out = _all(
        spider.parse_sample(_sample_response(["10.1002/(SICI)1097-4636(199706)35:4<447::AID-JBM5>3.0.CO;2-G"], size=1))
    )
    assert out[2].url == "https://doi.org/10.1002/(sici)1097-4636(199706)35:4%3C447::aid-jbm5%3E3.0.co;2-g"


def test_auto_without_chromium_works_as_http_and_says_so(tmp_path, caplog):
    spider = _spider(LANDING_DRIVER="auto", LANDING_CHROMIUM=str(tmp_path / "no-chromium"))
    spider._say_browser_unavailable()  # connected to spider_opened: stats exist only once the crawl starts
    assert spider.visitor.driver == "http"
    assert spider.crawler.stats.get_value("landing/browser/unavailable") == 1
    assert "LANDING_DRIVER=auto, but LANDING_CHROMIUM=" in caplog.text


def test_auto_without_chromium_installs_no_browser_handler(tmp_path):
    crawler = get_crawler(
        DoiSamplerSpider,
        settings_dict={**PROJECT, "LANDING_DRIVER": "auto", "LANDING_CHROMIUM": str(tmp_path / "no-chromium")},
    )
    assert "landing.browser" not in str(crawler.settings.getdict("DOWNLOAD_HANDLERS"))


def test_auto_with_chromium_installs_one_browser_handler_for_both_schemes(tmp_path):
    chromium = tmp_path / "chromium"
    chromium.write_text("#!/bin/sh\n")
    chromium.chmod(0o755)
    crawler = get_crawler(
        DoiSamplerSpider, settings_dict={**PROJECT, "LANDING_DRIVER": "auto", "LANDING_CHROMIUM": str(chromium)}
    )
    handlers = crawler.settings.getdict("DOWNLOAD_HANDLERS")
    assert (handlers["http"], handlers["https"]) == ("landing.browser.handler.BrowserHandler",) * 2


def test_a_spider_built_without_scrapy_crawl_refuses_a_bad_setting_in_the_words_of_the_settings_check():
    with pytest.raises(SettingsError, match="TUNING_RESOURCE_URL_FROM='api': use redirect or handle"):
        _spider(TUNING_RESOURCE_URL_FROM="api")
    with pytest.raises(SettingsError, match="LANDING_SOURCES='crossref,orcid': name one or both of crossref,datacite"):
        _spider(LANDING_SOURCES="crossref,orcid")


def test_the_http_driver_never_loads_playwright():
    script = (
        "import sys\n"
        "from scrapy.utils.test import get_crawler\n"
        "from landing import settings\n"
        "from landing.sampler.doi_sampler import DoiSamplerSpider\n"
        "project = {name: getattr(settings, name) for name in dir(settings) if name.isupper()}\n"
        "crawler = get_crawler(DoiSamplerSpider, {**project, 'LANDING_DRIVER': 'http'})\n"
        "DoiSamplerSpider.from_crawler(crawler)\n"
        "print(sorted(name for name in sys.modules if 'playwright' in name))\n"
    )
    done = forked.run([sys.executable, "-c", script], None, None, timeout=120)  # its server preloads no playwright
    assert (done.returncode, done.stdout.strip()) == (0, "[]"), done.stderr[-3000:]


def test_a_script_only_page_goes_to_the_browser_under_auto_and_the_analysis_pipeline_reads_it_js_required(tmp_path):
    chromium = tmp_path / "chromium"
    chromium.write_text("#!/bin/sh\n")
    chromium.chmod(0o755)
    spider = _spider(LANDING_DRIVER="auto", LANDING_CHROMIUM=str(chromium))
    pid = {
        "pid/doi": "10.1/a",
        "pid/doi-prefix": "10.1",
        "pid/ra": "crossref",
        "pid/member-id": "7",
        "pid/global-member-id": "crossref/7",
        "pid/timestamp": "2026-01-01T00:00:00Z",
    }
    meta = {"pid": pid, "visit": ("r", 0, 0)}
    body = b"<html><head><script src='/app.js'></script></head><body><div id='root'></div></body></html>"
    page = HtmlResponse(
        "https://pub.example/a",
        body=body,
        headers={"Content-Type": "text/html"},
        request=Request("https://pub.example/a", meta=meta),
    )
    visit, browser_visit = list(spider.parse_page(page))
    assert isinstance(visit, Visit) and visit.record is None  # not the DOI's last visit
    assert visit.page.body == body and visit.snapshot["snapshot/error"] is None  # the class is reading's to settle
    analysis = AnalysisPipeline().process_item(visit)
    assert isinstance(analysis, AnalysisItem) and analysis["snapshot/error"] == "js-required"
    assert "analysis/meta-tag-correctness" in analysis and analysis.visit is None
    assert browser_visit.meta["playwright"] is True


def test_a_failed_sample_gives_back_its_reservation_and_keeps_the_run_open():
    from twisted.python.failure import Failure

    spider = _spider()
    request = _sample_response([], size=30).request
    spider.planner.frontier.size = 30
    failure = Failure(ConnectionRefusedError("refused"))
    failure.request = request
    spider.api_failed(failure)
    assert spider.planner.frontier.size == 0
    assert spider.crawler.stats.get_value("landing/run/samples_failed") == 1


class _LostLead:
    """The lead of a worker starved past its lease while its sample was on its way: another worker leads now."""

    leading, inherited = True, ""

    def publish(self, run_id: str) -> None:
        pass

    def holds(self) -> bool:
        return False


def test_a_shared_sample_answered_after_its_leader_lost_the_lead_is_dropped_unstored_and_unvisited():
    spider = _spider()
    _opened(spider)  # no store: a sample stored or shared would fail here
    spider.planner.run = replace(spider.planner.run, lead=_LostLead(), shared=True)
    spider.planner.frontier.size = 3  # the sample's reservation
    asyncio.run(spider.parse_shared_sample(_sample_response(["10.1/a", "10.1/b", "10.1/c"])))
    assert (spider.crawler.stats.get_value("landing/run/samples_dropped"), spider.planner.frontier.size) == (1, 0)
