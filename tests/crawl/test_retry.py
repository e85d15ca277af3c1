"""landing.crawl.retry: RetryAfterMiddleware waits as long as a 429 or 503 asks (Retry-After), capped, then retries."""

import asyncio
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from types import SimpleNamespace

import pytest
from scrapy.http import HtmlResponse, Request

from landing.crawl import retry as retry_module
from landing.crawl.retry import RetryAfterMiddleware
from tests.crawl.project import PROJECT, crawler

NOW = datetime(2024, 5, 6, 12, 0, 0, tzinfo=UTC)


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
