"""landing.crawl.redirects: Scrapy's redirect and meta-refresh hops, without a Referer, each in its own host's slot."""

import pytest
from scrapy.http import HtmlResponse, Request

from landing.crawl import redirects
from tests.crawl.project import crawler


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
        response = HtmlResponse(
            first.url, body=b'<meta http-equiv="refresh" content="0;url=https://pub.example/a">', request=first
        )
    hop = middleware.process_response(first, response)
    assert (hop.url, hop.headers.get("Referer"), caplog.records) == ("https://pub.example/a", None, [])


@pytest.mark.parametrize(
    "body, encoding, follows",
    [
        (b'<META HTTP-EQUIV="Refresh" content="0;url=https://pub.example/a">', "utf-8", True),
        ('<meta http-equiv="refresh" content="0;url=https://pub.example/a">'.encode("utf-16-le"), "utf-16-le", True),
        (b"<p>" + b"x" * 20000 + b'<meta http-equiv="refresh" content="0;url=https://pub.example/a">', "utf-8", False),
        (b"<title>No refresh in sight</title><p>words</p>", "utf-8", False),
    ],
    ids=["any case", "utf-16 without a BOM", "past Scrapy's 4,096 characters", "no such word"],
)
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
        response = HtmlResponse(
            first.url, body=b'<meta http-equiv="refresh" content="0;url=https://pub.example/a">', request=first
        )
    hop = kind.from_crawler(crawler()).process_response(first, response)
    assert (hop.url, "download_slot" in hop.meta) == ("https://pub.example/a", False)


def test_a_hop_on_the_same_host_keeps_its_slot():
    first = Request("https://api.example/v1/a", meta={"download_slot": "api"})
    response = HtmlResponse(first.url, status=301, headers={"Location": "/v1/b"}, request=first)
    hop = redirects.RedirectMiddleware.from_crawler(crawler()).process_response(first, response)
    assert (hop.url, hop.meta["download_slot"]) == ("https://api.example/v1/b", "api")
