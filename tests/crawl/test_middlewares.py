"""landing.crawl's downloader middlewares: robots policy, Retry-After waits, the sandbox proxy, service slots, redirect hops."""
import asyncio
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from types import SimpleNamespace

import pytest
from scrapy.exceptions import NotConfigured
from scrapy.http import HtmlResponse, Request
from scrapy.spiders import Spider
from scrapy.utils.test import get_crawler

import landing.settings
from landing.crawl import redirects, slots
from landing.crawl import retry as retry_module
from landing.crawl import robots as robots_module
from landing.crawl.proxy import SandboxProxyMiddleware
from landing.crawl.retry import RetryAfterMiddleware
from landing.crawl.robots import RobotsPolicyMiddleware

PROJECT = {name: getattr(landing.settings, name) for name in dir(landing.settings) if name.isupper()}
PID = {"pid/doi": "10.1234/abc"}
NOW = datetime(2024, 5, 6, 12, 0, 0, tzinfo=timezone.utc)


def crawler(**settings):
    made = get_crawler(settings_dict={**PROJECT, **settings})
    made.spider = Spider.from_crawler(made, name="test")
    return made


def robots(**settings):
    return RobotsPolicyMiddleware.from_crawler(crawler(**settings))


def flag(middleware, url, **meta):
    request = Request(url, meta=meta)
    middleware.process_request(request)
    return request.meta.get("dont_obey_robotstxt", "unset")


# RobotsPolicyMiddleware

def test_api_request_does_not_obey_robots():
    assert flag(robots(), "https://api.crossref.org/members?rows=1000", landing_api=True) is True


def test_api_request_does_not_obey_robots_even_when_flagged_to():
    assert flag(robots(), "https://api.datacite.org/clients", landing_api=True, dont_obey_robotstxt=False) is True


def test_resolver_hop_ignores_robots_by_default():
    assert flag(robots(), "https://doi.org/10.1234/abc", pid=PID) is True


def test_resolver_hop_obeys_robots_when_the_setting_says_obey():
    assert flag(robots(LANDING_RESOLVER_ROBOTS="obey"), "https://doi.org/10.1234/abc", pid=PID) is False


def test_dx_resolver_hop_ignores_robots_by_default():
    assert flag(robots(), "http://dx.doi.org/10.1234/abc", pid=PID) is True


def test_configured_resolver_host_counts_as_the_resolver():
    middleware = robots(LANDING_DOI_RESOLVER="https://hdl.resolver.example")
    assert flag(middleware, "https://hdl.resolver.example/10.1234/abc", pid=PID) is True


def test_publisher_hop_that_inherited_the_resolvers_flag_obeys_robots():
    assert flag(robots(), "https://pub.example/article/1", pid=PID, dont_obey_robotstxt=True) is False


def test_publisher_hop_obeys_robots_under_either_resolver_policy():
    assert flag(robots(LANDING_RESOLVER_ROBOTS="obey"), "https://pub.example/article/1", pid=PID) is False


def test_request_without_pid_keeps_its_flag():
    # RobotsTxtMiddleware's own robots.txt request carries dont_obey_robotstxt=True and no pid.
    assert flag(robots(), "https://pub.example/robots.txt", dont_obey_robotstxt=True) is True


def test_request_without_pid_or_flag_is_left_without_flag():
    assert flag(robots(), "https://pub.example/robots.txt") == "unset"


def test_bad_resolver_robots_value_raises_naming_the_setting():
    with pytest.raises(ValueError, match="LANDING_RESOLVER_ROBOTS"):
        robots(LANDING_RESOLVER_ROBOTS="sometimes")


# RetryAfterMiddleware

@pytest.fixture
def sleeps(monkeypatch):
    """The delays the middleware asked asyncio.sleep for; nothing really sleeps, and the clock stands at NOW."""
    asked = []

    async def sleep(delay):
        asked.append(delay)

    monkeypatch.setattr(retry_module, "asyncio", SimpleNamespace(sleep=sleep))
    monkeypatch.setattr(retry_module, "time", SimpleNamespace(time=NOW.timestamp))
    return asked


def retry(settings=None, status=503, retry_after=None, **meta):
    middleware = RetryAfterMiddleware.from_crawler(crawler(**(settings or {})))
    request = Request("https://pub.example/article/1", meta=meta)
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    response = HtmlResponse(request.url, status=status, headers=headers, body=b"<html></html>", request=request)
    return asyncio.run(middleware.process_response(request, response)), response


def test_503_with_retry_after_zero_returns_a_retry_request(sleeps):
    result, _ = retry(retry_after="0")
    assert (type(result), result.url, result.meta["retry_times"]) == (Request, "https://pub.example/article/1", 1)


def test_503_with_retry_after_zero_does_not_wait(sleeps):
    retry(retry_after="0")
    assert sleeps == []


def test_503_waits_as_long_as_retry_after_asks(sleeps):
    retry(retry_after="5")
    assert sleeps == [5.0]


def test_429_waits_as_long_as_retry_after_asks(sleeps):
    result, _ = retry(status=429, retry_after="7")
    assert (sleeps, result.meta["retry_times"]) == ([7.0], 1)


def test_wait_is_capped_at_retry_after_max(sleeps):
    retry(retry_after="3600")
    assert sleeps == [PROJECT["LANDING_RETRY_AFTER_MAX"]]


def test_wait_cap_follows_the_setting(sleeps):
    retry({"LANDING_RETRY_AFTER_MAX": 12}, retry_after="3600")
    assert sleeps == [12.0]


def test_http_date_retry_after_waits_until_that_date(sleeps):
    retry(retry_after=format_datetime(NOW + timedelta(seconds=20), usegmt=True))
    assert sleeps == [20.0]


def test_503_without_retry_after_retries_without_waiting(sleeps):
    result, _ = retry()
    assert (sleeps, result.meta["retry_times"]) == ([], 1)


def test_exhausted_retries_return_the_response(sleeps):
    result, response = retry(retry_after="30", retry_times=PROJECT["RETRY_TIMES"])
    assert result is response


def test_exhausted_retries_do_not_wait(sleeps):
    retry(retry_after="30", retry_times=PROJECT["RETRY_TIMES"])
    assert sleeps == []


def test_exhausted_max_retry_times_from_meta_do_not_wait(sleeps):
    result, response = retry(retry_after="30", retry_times=1, max_retry_times=1)
    assert (result is response, sleeps) == (True, [])


def test_dont_retry_returns_the_response_without_waiting(sleeps):
    result, response = retry(retry_after="30", dont_retry=True)
    assert (result is response, sleeps) == (True, [])


def test_status_not_retried_returns_the_response_without_waiting(sleeps):
    result, response = retry(status=404, retry_after="30")
    assert (result is response, sleeps) == (True, [])


# SandboxProxyMiddleware

def test_sandbox_proxy_is_not_configured_without_landing_sandbox():
    with pytest.raises(NotConfigured):
        SandboxProxyMiddleware.from_crawler(crawler())


def test_sandbox_proxy_sets_the_proxy_of_a_request():
    middleware = SandboxProxyMiddleware.from_crawler(crawler(LANDING_SANDBOX="http://127.0.0.1:8700"))
    request = Request("https://pub.example/robots.txt", meta={"dont_obey_robotstxt": True})
    middleware.process_request(request)
    assert request.meta["proxy"] == "http://127.0.0.1:8700"


def test_sandbox_proxy_keeps_a_proxy_the_request_already_has():
    middleware = SandboxProxyMiddleware.from_crawler(crawler(LANDING_SANDBOX="http://127.0.0.1:8700"))
    request = Request("https://pub.example/a", meta={"proxy": "http://other:3128"})
    middleware.process_request(request)
    assert request.meta["proxy"] == "http://other:3128"


# ServiceSlotsMiddleware

def _service_slots():
    return slots.ServiceSlotsMiddleware.from_crawler(crawler())


def test_a_resolver_request_is_kept_out_of_autothrottle():
    request = Request("https://doi.org/10.1234/abc", meta={"pid": PID})
    _service_slots().process_request(request)
    assert request.meta["autothrottle_dont_adjust_delay"] is True


def test_a_publisher_hop_that_inherited_the_flag_is_throttled_again():
    request = Request("https://www.publisher.example/article/1", meta={"autothrottle_dont_adjust_delay": True})
    _service_slots().process_request(request)
    assert "autothrottle_dont_adjust_delay" not in request.meta


def test_a_request_in_a_named_slot_of_download_slots_is_kept_out_of_autothrottle():
    request = Request("https://api.datacite.org/dois", meta={"download_slot": "api.crossref.org"})
    _service_slots().process_request(request)
    assert request.meta["autothrottle_dont_adjust_delay"] is True


def test_robots_parsers_are_kept_for_the_most_recently_used_hosts_only():
    parsers = robots_module.RecentParsers(2)
    parsers["a"], parsers["b"] = "parser a", "parser b"
    assert parsers["a"] == "parser a"  # used: b is now the oldest
    parsers["c"] = "parser c"
    assert list(parsers) == ["a", "c"]


def test_a_robots_txt_still_being_fetched_is_never_forgotten():
    from twisted.internet.defer import Deferred
    parsers = robots_module.RecentParsers(1)
    pending = Deferred()
    parsers["a"] = pending
    parsers["b"] = "parser b"
    parsers["c"] = "parser c"
    assert list(parsers) == ["a", "c"] and parsers["a"] is pending


def test_the_robots_middleware_keeps_landing_robots_cache_hosts():
    robots_mw = robots_module.RecentRobotsTxtMiddleware.from_crawler(crawler(LANDING_ROBOTS_CACHE=3))
    assert isinstance(robots_mw._parsers, robots_module.RecentParsers) and robots_mw._parsers.size == 3


def test_every_request_that_waits_on_a_robots_txt_in_flight_is_held_to_it():
    from scrapy.exceptions import IgnoreRequest
    from scrapy.http import TextResponse
    from scrapy.utils.reactor import install_reactor, is_reactor_installed
    if not is_reactor_installed():  # maybe_deferred_to_future hands out asyncio futures only under it
        install_reactor(PROJECT["TWISTED_REACTOR"])
    robots_mw = robots_module.RecentRobotsTxtMiddleware.from_crawler(crawler())

    async def visit_four_pages_of_one_host():
        answered = asyncio.Event()

        async def download_async(request):
            await answered.wait()  # robots.txt stays in flight until every page request waits on it
            return TextResponse(request.url, body=b"User-agent: *\nDisallow: /\n", encoding="utf-8")

        robots_mw.crawler.engine = SimpleNamespace(download_async=download_async)
        pages = [asyncio.ensure_future(robots_mw.process_request(Request(f"https://a.example/{n}"))) for n in range(4)]
        while robots_mw._parsers.get("a.example") is None:
            await asyncio.sleep(0)
        answered.set()
        return await asyncio.gather(*pages, return_exceptions=True)

    outcomes = asyncio.run(visit_four_pages_of_one_host())
    assert [type(outcome) for outcome in outcomes] == [IgnoreRequest] * 4


# RedirectMiddleware, MetaRefreshMiddleware: Scrapy's, without a Referer


@pytest.mark.parametrize("kind", [redirects.RedirectMiddleware, redirects.MetaRefreshMiddleware])
def test_a_redirect_hop_carries_no_referer_and_the_start_logs_no_warning(kind, caplog):
    made = crawler()
    middleware = kind.from_crawler(made)
    with caplog.at_level("WARNING"):
        middleware._engine_started()
    first = Request("https://doi.org/10.1234/abc", headers={"Referer": "https://elsewhere.example/"})
    if kind is redirects.RedirectMiddleware:
        response = HtmlResponse(first.url, status=302, headers={"Location": "https://pub.example/a"}, request=first)
    else:
        response = HtmlResponse(first.url, body=b'<meta http-equiv="refresh" content="0;url=https://pub.example/a">',
                                request=first)
    hop = middleware.process_response(first, response)
    assert (hop.url, hop.headers.get("Referer"), caplog.records) == ("https://pub.example/a", None, [])


@pytest.mark.parametrize("body, encoding, follows", [
    (b'<META HTTP-EQUIV="Refresh" content="0;url=https://pub.example/a">', "utf-8", True),
    ('<meta http-equiv="refresh" content="0;url=https://pub.example/a">'.encode("utf-16-le"), "utf-16-le", True),
    (b"<p>" + b"x" * 20000 + b'<meta http-equiv="refresh" content="0;url=https://pub.example/a">', "utf-8", False),
    (b"<title>No refresh in sight</title><p>words</p>", "utf-8", False),
], ids=["any case", "utf-16 without a BOM", "past Scrapy's 4,096 characters", "no such word"])
def test_a_meta_refresh_is_followed_wherever_scrapy_would_find_it(body, encoding, follows):
    first = Request("https://doi.org/10.1234/abc")
    response = HtmlResponse(first.url, body=body, encoding=encoding, request=first)
    hop = redirects.MetaRefreshMiddleware.from_crawler(crawler()).process_response(first, response)
    assert (hop.url == "https://pub.example/a") is follows


def test_a_page_whose_bytes_rule_out_a_refresh_is_passed_on_undecoded():
    first = Request("https://doi.org/10.1234/abc")
    response = HtmlResponse(first.url, body=b"<p>" + "caf\u00e9 ".encode() * 1000 + b"</p>", request=first)
    assert redirects.MetaRefreshMiddleware.from_crawler(crawler()).process_response(first, response) is response
    assert response._cached_ubody is None  # Scrapy's cache of the decoded body: never filled


@pytest.mark.parametrize("kind", [redirects.RedirectMiddleware, redirects.MetaRefreshMiddleware])
def test_a_hop_to_another_host_leaves_the_resolvers_download_slot(kind):
    first = Request("https://doi.org/10.1234/abc", meta={"download_slot": "doi.org"})  # as Scrapy's downloader sets it
    if kind is redirects.RedirectMiddleware:
        response = HtmlResponse(first.url, status=302, headers={"Location": "https://pub.example/a"}, request=first)
    else:
        response = HtmlResponse(first.url, body=b'<meta http-equiv="refresh" content="0;url=https://pub.example/a">',
                                request=first)
    hop = kind.from_crawler(crawler()).process_response(first, response)
    assert (hop.url, "download_slot" in hop.meta) == ("https://pub.example/a", False)


def test_a_hop_on_the_same_host_keeps_its_slot():
    first = Request("https://api.example/v1/a", meta={"download_slot": "api"})
    response = HtmlResponse(first.url, status=301, headers={"Location": "/v1/b"}, request=first)
    hop = redirects.RedirectMiddleware.from_crawler(crawler()).process_response(first, response)
    assert (hop.url, hop.meta["download_slot"]) == ("https://api.example/v1/b", "api")
