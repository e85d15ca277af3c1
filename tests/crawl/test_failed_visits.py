"""landing.crawl.failed_visits.exception_failure: the exceptions Scrapy and Twisted raise, mapped to failure classes."""

import pytest
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout
from scrapy.exceptions import (
    CannotResolveHostError,
    DownloadCancelledError,
    DownloadConnectionRefusedError,
    DownloadFailedError,
    DownloadTimeoutError,
    IgnoreRequest,
    ResponseDataLossError,
)
from twisted.internet import error as tx
from twisted.web._newclient import ResponseFailed

from landing.core.web.failures import CLASSES
from landing.crawl.failed_visits import exception_failure
from landing.crawl.hosts import InvalidHost

CHAIN = ["https://doi.org/10.1/x", "https://pub.example/a", "https://pub.example/b"]
LOOP = ["https://doi.org/10.1/x", "https://pub.example/a", "https://pub.example/b", "https://pub.example/a"]


def test_scrapy_download_timeout_is_timeout():
    assert exception_failure(DownloadTimeoutError("took longer than 30 seconds"), CHAIN) == "timeout"


def test_twisted_timeout_is_timeout():
    assert exception_failure(tx.TimeoutError(), CHAIN) == "timeout"


def test_twisted_tcp_timeout_is_timeout():
    assert exception_failure(tx.TCPTimedOutError(), CHAIN) == "timeout"


def test_a_request_refused_for_a_host_that_is_no_hostname_is_invalid_host_even_if_it_names_robots():
    assert exception_failure(InvalidHost("https://robots\x1bredirect.example/"), CHAIN) == "invalid-host"


def test_scrapy_cannot_resolve_host_is_dns():
    assert exception_failure(CannotResolveHostError("pub.example"), CHAIN) == "dns"


def test_twisted_dns_lookup_error_is_dns():
    assert exception_failure(tx.DNSLookupError("pub.example"), CHAIN) == "dns"


def test_download_cancelled_is_too_large():
    assert exception_failure(DownloadCancelledError("larger than download max size"), CHAIN) == "too-large"


def test_twisted_connection_refused_is_connection():
    assert exception_failure(tx.ConnectionRefusedError(), CHAIN) == "connection"


def test_scrapy_connection_refused_is_connection():
    assert exception_failure(DownloadConnectionRefusedError("refused"), CHAIN) == "connection"


@pytest.mark.parametrize(
    "exc",
    [
        DownloadFailedError("x"),
        ResponseDataLossError("x"),
        tx.ConnectionLost(),
        tx.ConnectionDone(),
        ResponseFailed([]),
    ],
)
def test_broken_downloads_are_connection(exc):
    assert exception_failure(exc, CHAIN) == "connection"


def test_unknown_exception_is_connection():
    assert exception_failure(RuntimeError("what"), CHAIN) == "connection"


def test_forbidden_by_robots_is_robots():
    assert exception_failure(IgnoreRequest("Forbidden by robots.txt"), CHAIN) == "robots"


def test_max_redirections_on_a_repeating_chain_is_redirect_loop():
    assert exception_failure(IgnoreRequest("max redirections reached"), LOOP) == "redirect-loop"


def test_max_redirections_on_a_chain_of_distinct_urls_is_too_many_redirects():
    assert exception_failure(IgnoreRequest("max redirections reached"), CHAIN) == "too-many-redirects"


def test_other_ignored_request_is_connection():
    assert exception_failure(IgnoreRequest("Filtered offsite request"), CHAIN) == "connection"


def test_a_download_cancelled_for_another_reason_than_size_is_a_connection_failure():
    assert exception_failure(DownloadCancelledError("cancelled at shutdown"), CHAIN) == "connection"


def test_every_class_given_is_a_known_class():
    exceptions = [
        DownloadTimeoutError(),
        tx.DNSLookupError(),
        DownloadCancelledError(),
        tx.ConnectionRefusedError(),
        IgnoreRequest("Forbidden by robots.txt"),
        IgnoreRequest("max redirections reached"),
    ]
    assert {exception_failure(e, LOOP) for e in exceptions} <= set(CLASSES)


@pytest.mark.parametrize(
    "error, expected",
    [
        (PlaywrightTimeout("Timeout 30000ms exceeded."), "timeout"),
        (PlaywrightError("Page.goto: net::ERR_TIMED_OUT at https://x.example/"), "timeout"),
        (PlaywrightError("Page.goto: net::ERR_NAME_NOT_RESOLVED at https://x.example/"), "dns"),
        (PlaywrightError("Page.goto: net::ERR_CONNECTION_REFUSED at https://x.example/"), "connection"),
        (PlaywrightError("Page.goto: net::ERR_TOO_MANY_REDIRECTS at https://x.example/"), "redirect-loop"),
    ],
)
def test_browser_errors_map_to_failure_classes(error, expected):
    assert exception_failure(error, LOOP) == expected
