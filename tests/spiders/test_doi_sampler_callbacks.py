"""The spider's callbacks on hand-made responses: paging, sample ranks, what a failure becomes."""
import json

from scrapy.http import Request, TextResponse
from scrapy.utils.test import get_crawler

from landing import settings as project_settings
from landing.items import PidItem
from landing.spiders.doi_sampler import DoiSamplerSpider


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


def test_members_without_a_next_cursor_are_paged_by_offset_until_total_results():
    spider = _spider()
    out = list(spider.parse_members(_response("https://api.crossref.org/members?rows=1000&cursor=*",
                                              {"message": {"items": _members(2), "total-results": 3}})))
    assert [r.url for r in out] == ["https://api.crossref.org/members?rows=1000&offset=2"]


def test_the_last_member_page_schedules_one_sample_per_member_sized_by_the_rule():
    spider = _spider(LANDING_SAMPLE_MIN=10, LANDING_SAMPLE_MAX=100)
    out = list(spider.parse_members(_response("https://api.crossref.org/members?rows=1000&cursor=*",
                                              {"message": {"items": _members(3), "total-results": 3}})))
    assert [r.url.split("?")[1] for r in out] == [
        "sample=10&filter=member:0&select=DOI", "sample=20&filter=member:1&select=DOI",
        "sample=30&filter=member:2&select=DOI"]
    assert all(r.meta["dont_obey_robotstxt"] and r.priority == 100 for r in out)


def test_a_sample_yields_each_new_doi_once_with_priority_minus_its_rank():
    spider = _spider()
    payload = {"message": {"items": [{"DOI": "10.1/A"}, {"DOI": "10.1/a"}, {"DOI": "10.1/b"}]}}
    out = list(spider.parse_sample(_response("https://api.crossref.org/works", payload, ra="crossref", owner="7")))
    pids = [o for o in out if isinstance(o, PidItem)]
    visits = [o for o in out if isinstance(o, Request)]
    assert [p["pid/doi"] for p in pids] == ["10.1/a", "10.1/b"]
    assert [(v.url, v.priority, v.dont_filter) for v in visits] == [
        ("https://doi.org/10.1/a", 0, True), ("https://doi.org/10.1/b", -1, True)]
    again = list(spider.parse_sample(_response("https://api.crossref.org/works", payload, ra="crossref", owner="7")))
    assert again == []


def test_a_doi_with_url_unsafe_characters_is_quoted_for_the_resolver():
    spider = _spider()
    payload = {"message": {"items": [{"DOI": "10.1002/(SICI)1097-4636(199706)35:4<447::AID-JBM5>3.0.CO;2-G"}]}}
    out = list(spider.parse_sample(_response("https://api.crossref.org/works", payload, ra="crossref", owner="7")))
    assert out[1].url == "https://doi.org/10.1002/(sici)1097-4636(199706)35:4%3C447::aid-jbm5%3E3.0.co;2-g"


def test_auto_without_chromium_works_as_http_and_says_so(tmp_path, caplog):
    spider = _spider(LANDING_DRIVER="auto", LANDING_CHROMIUM=str(tmp_path / "no-chromium"))
    assert spider.driver == "http"
    assert spider.crawler.stats.get_value("landing/browser/unavailable") == 1
    assert "LANDING_DRIVER=auto, but LANDING_CHROMIUM=" in caplog.text


def test_auto_without_chromium_installs_no_browser_handler(tmp_path):
    crawler = get_crawler(DoiSamplerSpider, settings_dict={
        **PROJECT, "LANDING_DRIVER": "auto", "LANDING_CHROMIUM": str(tmp_path / "no-chromium")})
    assert "landing.browser" not in str(crawler.settings.getdict("DOWNLOAD_HANDLERS"))


def test_auto_with_chromium_installs_one_browser_handler_for_both_schemes(tmp_path):
    chromium = tmp_path / "chromium"
    chromium.write_text("#!/bin/sh\n")
    chromium.chmod(0o755)
    crawler = get_crawler(DoiSamplerSpider, settings_dict={**PROJECT, "LANDING_DRIVER": "auto",
                                                           "LANDING_CHROMIUM": str(chromium)})
    handlers = crawler.settings.getdict("DOWNLOAD_HANDLERS")
    assert (handlers["http"], handlers["https"]) == ("landing.browser.BrowserHandler",) * 2
