"""landing.crawl.upstream_proxy: SandboxProxyMiddleware sends every request through LANDING_SANDBOX when it is set."""

import pytest
from scrapy.exceptions import NotConfigured
from scrapy.http import Request

from landing.crawl.upstream_proxy import SandboxProxyMiddleware
from tests.crawl.project import crawler


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
