"""landing.crawl.robots: whether robots.txt applies to a request, and the robots.txt parsers kept per host."""

import asyncio
from types import SimpleNamespace

import pytest
from scrapy.http import Request

from landing.core.web.recent import Recent
from landing.crawl import robots as robots_module
from landing.crawl.robots import RobotsPolicyMiddleware
from tests.crawl.project import PROJECT, crawler

PID = {"pid/doi": "10.1234/abc"}


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


# recent_parsers, RecentRobotsTxtMiddleware


def test_robots_parsers_are_kept_for_the_most_recently_used_hosts_only():
    parsers = robots_module.recent_parsers(2)
    parsers["a"], parsers["b"] = "parser a", "parser b"
    assert parsers["a"] == "parser a"  # used: b is now the oldest
    parsers["c"] = "parser c"
    assert list(parsers) == ["a", "c"]


def test_a_robots_txt_still_being_fetched_is_never_forgotten():
    from twisted.internet.defer import Deferred

    parsers = robots_module.recent_parsers(1)
    pending = Deferred()
    parsers["a"] = pending
    parsers["b"] = "parser b"
    parsers["c"] = "parser c"
    assert list(parsers) == ["a", "c"] and parsers["a"] is pending


def test_the_robots_middleware_keeps_landing_robots_cache_hosts():
    robots_mw = robots_module.RecentRobotsTxtMiddleware.from_crawler(crawler(TUNING_ROBOTS_CACHE=3))
    assert isinstance(robots_mw._parsers, Recent) and robots_mw._parsers.size == 3


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
