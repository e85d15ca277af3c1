"""landing.crawl.cookies: ChainCookiesMiddleware keeps one cookie jar per DOI chain, dropped when the chain ends."""

from scrapy import signals
from scrapy.http import Request, Response
from scrapy.utils.test import get_crawler

from landing.crawl.cookies import ChainCookiesMiddleware
from landing.crawl.signals import chain_ended
from tests.crawl.project import PROJECT


def middleware():
    """The middleware on a crawler of the project's settings; no extension listens, so the signals sent below reach
    the middleware and Scrapy's signal manager alone."""
    made = get_crawler(settings_dict={**PROJECT, "EXTENSIONS": {}, "EXTENSIONS_BASE": {}})
    return ChainCookiesMiddleware.from_crawler(made)


def given_cookie(mw, jar, url="https://pub.example/a", cookie="session=1; Path=/"):
    """A hop of chain `jar` whose response sets `cookie`."""
    request = Request(url, meta={"cookiejar": jar} if jar is not None else {})
    mw.process_request(request)
    mw.process_response(request, Response(url, headers={"Set-Cookie": cookie}, request=request))


def cookie_sent(mw, jar, url="https://pub.example/b"):
    """The Cookie header the next request of chain `jar` carries (None: none)."""
    request = Request(url, meta={"cookiejar": jar} if jar is not None else {})
    mw.process_request(request)
    return request.headers.get("Cookie")


def end_chain(mw, **keywords):
    mw.crawler.signals.send_catch_log(chain_ended, **keywords)


def close(mw):
    mw.crawler.signals.send_catch_log(signals.spider_closed, spider=None, reason="finished")
    return mw.crawler.stats.get_value("landing/cookie_jars_left")


def test_a_cookie_set_on_a_chain_is_sent_on_that_chains_next_hop():
    mw = middleware()
    given_cookie(mw, "10.1234/a")
    assert cookie_sent(mw, "10.1234/a") == b"session=1"


def test_a_cookie_set_on_one_chain_is_not_sent_on_another_chain():
    mw = middleware()
    given_cookie(mw, "10.1234/a")
    assert cookie_sent(mw, "10.1234/b") is None


def test_chain_ended_drops_that_chains_jar():
    mw = middleware()
    given_cookie(mw, "10.1234/a")
    end_chain(mw, jar="10.1234/a")
    assert "10.1234/a" not in mw.jars


def test_a_chain_visited_again_after_it_ended_starts_without_its_cookies():
    mw = middleware()
    given_cookie(mw, "10.1234/a")
    end_chain(mw, jar="10.1234/a")
    assert cookie_sent(mw, "10.1234/a") is None


def test_chain_ended_keeps_the_jars_of_other_chains():
    mw = middleware()
    given_cookie(mw, "10.1234/a")
    given_cookie(mw, "10.1234/b", cookie="other=2; Path=/")
    end_chain(mw, jar="10.1234/a")
    assert cookie_sent(mw, "10.1234/b") == b"other=2"


def test_chain_ended_for_a_jar_never_opened_changes_nothing():
    mw = middleware()
    given_cookie(mw, "10.1234/a")
    end_chain(mw, jar="10.1234/never")
    assert list(mw.jars) == ["10.1234/a"]


def test_chain_ended_without_a_jar_keeps_the_crawls_default_jar():
    mw = middleware()
    given_cookie(mw, None)
    end_chain(mw)
    assert cookie_sent(mw, None) == b"session=1"


def test_at_close_the_jars_of_chains_never_ended_are_counted():
    mw = middleware()
    for jar in ("10.1234/a", "10.1234/b", "10.1234/c"):
        given_cookie(mw, jar)
    end_chain(mw, jar="10.1234/b")
    assert close(mw) == 2


def test_at_close_the_default_jar_is_not_counted():
    mw = middleware()
    given_cookie(mw, None)
    assert (None in mw.jars, close(mw)) == (True, 0)


def test_at_close_no_jars_left_counts_zero():
    mw = middleware()
    given_cookie(mw, "10.1234/a")
    end_chain(mw, jar="10.1234/a")
    assert close(mw) == 0
