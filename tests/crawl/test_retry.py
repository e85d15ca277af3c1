"""landing.crawl.retry: BackoffRetryMiddleware pauses a failing host (its requests wait, then one probe at a time),
as long as Retry-After asks when it asks, and outlives a widespread outage past RETRY_TIMES; other hosts never wait.

The middleware's clock is a number the test moves and its jitter draws are all 1 (the longest pause), so every
pause is known; nothing sleeps.
"""

import asyncio
import itertools
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from types import SimpleNamespace

import pytest
from scrapy.exceptions import CannotResolveHostError, DownloadConnectionRefusedError
from scrapy.http import HtmlResponse, Request

from landing import tuning
from landing.crawl import retry as retry_module
from landing.crawl.retry import PROBE, WAIT_UNTIL, BackoffRetryMiddleware
from landing.crawl.stopping import Stopped
from tests.crawl.project import PROJECT, crawler

NOW = datetime(2024, 5, 6, 12, 0, 0, tzinfo=UTC)
PAGE = "https://pub.example/article/1"


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


@pytest.fixture
def clock(monkeypatch):
    """The middleware's clock (seconds, moved by the test); Retry-After dates are read at NOW."""
    monkeypatch.setattr(retry_module, "time", SimpleNamespace(time=NOW.timestamp, monotonic=lambda: 0.0))
    return Clock()


def middleware(clock, **settings):
    made = BackoffRetryMiddleware.from_crawler(crawler(**settings))
    made.clock, made.draws = clock, itertools.repeat(1.0)
    return made


def answer(middleware, url=PAGE, status=503, retry_after=None, **meta):
    request = Request(url, meta=meta)
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    response = HtmlResponse(url, status=status, headers=headers, body=b"<html></html>", request=request)
    return middleware.process_response(request, response), response


def pause(middleware, clock, host="pub.example:443"):
    return middleware.outages[host].until - clock.now


def test_a_503_returns_a_retry_request(clock):
    result, _ = answer(middleware(clock))
    assert (type(result), result.url, result.meta["retry_times"]) == (Request, PAGE, 1)


def test_a_503_pauses_its_host_for_the_first_pause(clock):
    made = middleware(clock)
    answer(made)
    assert pause(made, clock) == 1.0


def test_a_refused_connection_pauses_its_host_and_is_retried(clock):
    made = middleware(clock)
    result = made.process_exception(Request(PAGE), DownloadConnectionRefusedError("refused"))
    assert (result.meta["retry_times"], pause(made, clock)) == (1, 1.0)


def test_a_name_that_does_not_resolve_pauses_nothing(clock):
    made = middleware(clock)
    result = made.process_exception(Request(PAGE), CannotResolveHostError("no such name"))
    assert (result.meta["retry_times"], made.outages) == (1, {})


def test_a_status_not_retried_pauses_nothing(clock):
    made = middleware(clock)
    result, response = answer(made, status=404, retry_after="30")
    assert (result is response, made.outages) == (True, {})


def test_retry_after_pauses_the_host_as_long_as_it_asks(clock):
    made = middleware(clock)
    answer(made, status=429, retry_after="7")
    assert pause(made, clock) == 7.0


def test_a_retry_after_date_pauses_the_host_until_that_date(clock):
    made = middleware(clock)
    answer(made, retry_after=format_datetime(NOW + timedelta(seconds=20), usegmt=True))
    assert pause(made, clock) == 20.0


def test_retry_after_is_capped_at_retry_after_max(clock):
    made = middleware(clock)
    answer(made, retry_after="3600")
    assert pause(made, clock) == tuning.RETRY_AFTER_MAX


def test_the_retry_after_cap_follows_the_setting(clock):
    made = middleware(clock, TUNING_RETRY_AFTER_MAX=12)
    answer(made, retry_after="3600")
    assert pause(made, clock) == 12.0


def test_dont_retry_returns_the_response(clock):
    result, response = answer(middleware(clock), dont_retry=True)
    assert result is response


def test_one_failing_page_is_given_up_after_retry_times(clock):
    result, response = answer(middleware(clock), retry_times=PROJECT["RETRY_TIMES"])
    assert result is response


def test_exhausted_max_retry_times_from_meta_return_the_response(clock):
    result, response = answer(middleware(clock), retry_times=1, max_retry_times=1)
    assert result is response


def test_a_request_waits_while_its_host_pauses_and_goes_once_the_host_answers(clock):
    made = middleware(clock)
    answer(made)

    async def run():
        waiting = asyncio.ensure_future(made.process_request(Request(PAGE + "?b")))
        await asyncio.sleep(0)
        paused = waiting.done()
        made.downloaded(HtmlResponse(PAGE, status=200), Request(PAGE))
        await waiting
        return paused

    assert (asyncio.run(run()), made.outages) == (False, {})


def test_a_failing_host_holds_no_request_to_another_host(clock):
    made = middleware(clock)
    answer(made)
    other = Request("https://other.example/article/2")
    asyncio.run(asyncio.wait_for(made.process_request(other), 5))
    assert (made.holds(other), PROBE in other.meta) == (False, False)


def test_after_the_pause_one_request_goes_as_the_probe_and_the_others_wait_for_it(clock):
    """The download handler's turn: the probe is taken past the download slot, never by a request before it."""
    made = middleware(clock)
    answer(made)
    clock.now += 1.0

    async def run():
        probe, other = Request(PAGE + "?probe"), Request(PAGE + "?other")
        await made.turn(probe)  # as the download handler asks
        waiting = asyncio.ensure_future(made.turn(other))
        await asyncio.sleep(0)
        done = waiting.done()
        waiting.cancel()
        return probe.meta.get(PROBE), done

    assert asyncio.run(run()) == (True, False)


def test_a_failed_probe_doubles_the_pause(clock):
    made = middleware(clock)
    answer(made)
    clock.now += 1.0
    probe = Request(PAGE)
    asyncio.run(made.turn(probe))
    made.process_exception(probe, DownloadConnectionRefusedError("refused"))
    assert pause(made, clock) == 2.0


def test_a_request_sent_before_the_pause_that_fails_within_it_does_not_lengthen_it(clock):
    made = middleware(clock)
    answer(made)
    clock.now += 0.5
    made.process_exception(Request(PAGE + "?sent-before"), DownloadConnectionRefusedError("refused"))
    assert pause(made, clock) == 0.5


def test_a_request_queued_for_a_pausing_host_waits_its_turn_before_it_is_sent(clock):
    made = middleware(clock)
    queued = Request(PAGE + "?queued")
    asyncio.run(made.process_request(queued))  # it passed before the host failed
    answer(made)

    async def run():
        waiting = asyncio.ensure_future(made.turn(queued))
        await asyncio.sleep(0)
        paused = waiting.done()
        made.downloaded(HtmlResponse(PAGE, status=200), Request(PAGE))
        await waiting
        return paused

    assert (made.holds(queued), asyncio.run(run()), made.holds(queued)) == (True, False, False)


def test_a_stopping_crawl_ends_the_requests_waiting_for_a_hosts_turn(clock):
    made = middleware(clock)
    answer(made)

    async def run():
        waiting = asyncio.ensure_future(made.process_request(Request(PAGE + "?waiting")))
        await asyncio.sleep(0)
        made.stop()
        with pytest.raises(Stopped):
            await waiting

    asyncio.run(run())


def test_a_widespread_outage_is_outlived_past_retry_times(clock):
    made = middleware(clock)
    answer(made, url=PAGE + "?a")
    result, _ = answer(made, retry_times=PROJECT["RETRY_TIMES"])
    assert result.meta["retry_times"] == PROJECT["RETRY_TIMES"] + 1


def test_a_widespread_outage_longer_than_outage_max_gives_its_requests_up(clock):
    made = middleware(clock, LANDING_OUTAGE_MAX=120)
    answer(made, url=PAGE + "?a")
    clock.now += 120
    result, response = answer(made, retry_times=PROJECT["RETRY_TIMES"])
    assert result is response


def test_pages_answering_500_are_broken_pages_not_an_outage_and_are_given_up_after_retry_times(clock):
    made = middleware(clock)
    answer(made, url=PAGE + "?a", status=500)
    result, response = answer(made, status=500, retry_times=PROJECT["RETRY_TIMES"])
    assert result is response


def test_a_500_delays_its_own_retry_and_pauses_no_host(clock):
    made = middleware(clock)
    result, _ = answer(made, status=500)
    assert (result.meta[WAIT_UNTIL] - clock.now, made.outages) == (1.0, {})


def test_a_probe_answered_500_ends_the_outage_the_host_answers(clock):
    made = middleware(clock)
    answer(made)
    clock.now += 1.0
    probe = Request(PAGE + "?broken")
    asyncio.run(made.turn(probe))
    made.process_response(probe, HtmlResponse(probe.url, status=500, request=probe))
    assert made.outages == {}


def test_a_request_before_the_download_slot_goes_on_once_the_pause_is_over_without_taking_the_probe(clock):
    made = middleware(clock)
    answer(made)
    clock.now += 1.0
    request = Request(PAGE + "?next")
    asyncio.run(made.process_request(request))
    assert (PROBE in request.meta, made.outages["pub.example:443"].probe) == (False, False)


def test_a_stopping_crawl_ends_a_retry_waiting_for_its_own_time(clock):
    made = middleware(clock)
    retry, _ = answer(made, status=500)  # its retry waits a second of its own

    async def run():
        waiting = asyncio.ensure_future(made.process_request(retry))
        await asyncio.sleep(0)
        made.stop()
        with pytest.raises(Stopped):  # at once: without the stop, the retry goes after its second
            await waiting

    asyncio.run(run())
