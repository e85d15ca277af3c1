"""Retries that back off per host (landing.core.web.backoff) and wait as long as a server asks (Retry-After)."""

import asyncio
import time
from urllib.parse import urlsplit

from scrapy import signals
from scrapy.core.downloader.handlers.http11 import TunnelError
from scrapy.downloadermiddlewares.retry import RetryMiddleware, get_retry_request
from scrapy.exceptions import (
    DownloadConnectionRefusedError,
    DownloadFailedError,
    DownloadTimeoutError,
    ResponseDataLossError,
)
from scrapy.utils.response import response_status_message
from twisted.internet import error as tx

from landing import config
from landing.core.web.backoff import Outage, Schedule, draws
from landing.core.web.retry_after import retry_after
from landing.crawl.signals import crawl_stopping
from landing.crawl.stopping import Stopped

KEPT = 10_000  # outages held before those long past are forgotten
PROBE = "landing_backoff_probe"  # Request.meta: this request went out as its failing host's probe
WAIT_UNTIL = "landing_backoff_until"  # Request.meta: a page's retry waits until then (the middleware's clock)
# The failures that say a host is not there now: no connection, a connection lost, no answer in time; a proxy that
# cannot reach it (TunnelError: the sandbox's 502 to CONNECT). A name that does not resolve is not an outage.
OUTAGE_ERRORS = (
    DownloadConnectionRefusedError,
    DownloadFailedError,
    DownloadTimeoutError,
    ResponseDataLossError,
    TunnelError,
    tx.ConnectError,
    tx.ConnectionLost,
    tx.ConnectionDone,
    tx.TimeoutError,
)
# Answers that say the server is unavailable (a gateway's, a maintenance page's), not what one page is: with the
# failures above, they are what makes an outage widespread. A 500 is a page's own error; 408 and 429 are about pace.
DOWN_STATUSES = frozenset((502, 503, 504, 522, 524))
DEFAULT_PORTS = {"http": 80, "https": 443}


class BackoffRetryMiddleware(RetryMiddleware):
    """Scrapy's RetryMiddleware, with retries that wait per host: a host whose request fails (OUTAGE_ERRORS, a
    DOWN_STATUSES answer, or any RETRY_HTTP_CODES answer with a Retry-After) pauses, all its requests held here until
    the pause ends, then one goes as a probe and the others wait for its answer. An answer ends the outage; a failed
    probe doubles the pause (Schedule). Another retried answer (a 500) delays its own retry alone, as long.

    Requests that were already queued in the host's download slot wait their turn in the download handler (holds,
    turn), so a host that is down gets one request at a time, however many DOIs wait for it. A request keeps Scrapy's
    RETRY_TIMES; while its host fails every URL asked (no connection, 502-504: an outage, not one broken page) it
    is retried for up to LANDING_OUTAGE_MAX seconds of the outage. A Retry-After pauses the host as long, up to
    tuning.RETRY_AFTER_MAX. Scrapy's own retries went at once: an outage spent every try within a second.
    """

    def __init__(self, settings, schedule: Schedule, retry_after_max: float, seed=None, clock=time.monotonic):
        super().__init__(settings)
        self.schedule, self.retry_after_max, self.clock = schedule, retry_after_max, clock
        # A probe that neither answers nor fails within this (lost on its way) lets another go.
        self.hold = 2 * settings.getfloat("DOWNLOAD_TIMEOUT")
        self.draws = draws(seed)
        self.outages: dict[str, Outage] = {}  # host -> its outage, only while it has one
        self.changes: dict[str, asyncio.Event] = {}  # host -> set when its outage changes, for the requests waiting
        self.stopping = False
        self.stopped: asyncio.Event | None = None  # set at crawl_stopping; made by the first retry that waits its time

    @classmethod
    def from_crawler(cls, crawler):
        cfg = config.of(crawler)
        middleware = cls(
            crawler.settings, Schedule(cap=cfg.backoff_max, outage_max=cfg.outage_max), cfg.retry_after_max
        )
        middleware.crawler = crawler
        crawler.landing_backoff = middleware  # the download handler asks it which requests wait (holds, turn)
        crawler.signals.connect(middleware.stop, signal=crawl_stopping)
        # Every answer, seen as it arrives: the redirect middlewares turn a 3xx into its next hop before
        # process_response here would see it, and a resolver's answers are nearly all redirects.
        crawler.signals.connect(middleware.downloaded, signal=signals.response_downloaded)
        return middleware

    def downloaded(self, response, request, spider=None) -> None:
        """An answer from the host (at response_downloaded) ends its outage, unless it is one more failure."""
        if response.status not in self.retry_http_codes:
            self._answered(request)

    def holds(self, request) -> bool:
        """Whether a request about to be sent must wait its turn: its host has an outage and it is not the probe.
        Requests queued in the host's download slot before the outage began wait then, not sent to a host down."""
        return not request.meta.get(PROBE) and _host(request) in self.outages

    def stop(self) -> None:
        """At crawl_stopping: every request waiting for a host's turn, or for its own retry's time, ends in Stopped
        (left to the next crawl)."""
        self.stopping = True
        for change in self.changes.values():
            change.set()
        self.changes.clear()
        if self.stopped is not None:
            self.stopped.set()

    async def process_request(self, request, spider=None):
        request.meta.pop(PROBE, None)  # a retry's copy of a probe is not one yet
        if (wait := request.meta.pop(WAIT_UNTIL, 0.0) - self.clock()) > 0:
            # Up to LANDING_BACKOFF_MAX: a stop does not wait it out (the engine closes once no request is in flight).
            if self.stopped is None:
                self.stopped = asyncio.Event()
            try:
                await asyncio.wait_for(self.stopped.wait(), wait)
            except TimeoutError:
                pass
            if self.stopping:
                raise Stopped(request.url)
        await self.turn(request, probe=False)

    async def turn(self, request, probe: bool = True) -> None:
        """Wait until the request's host has no outage, or its pause is over (and, with `probe`, this request goes as
        its probe). Only the download handler takes the probe: a request past the download slot, so that requests
        waiting there for a probe never keep it out of the slot."""
        host = _host(request)
        while (outage := self.outages.get(host)) is not None:
            if self.stopping:
                raise Stopped(request.url)
            now = self.clock()
            if not (wait := outage.wait(now)):
                if not probe:
                    return
                self._set(host, outage.probing(now, self.hold))
                request.meta[PROBE] = True
                self._count("probes")
                return
            change = self.changes.setdefault(host, asyncio.Event())
            try:
                await asyncio.wait_for(change.wait(), wait)
            except TimeoutError:
                pass

    def process_response(self, request, response, spider=None):
        if response.status not in self.retry_http_codes:
            return response
        asked = retry_after(response.headers.get("Retry-After", b"").decode("latin-1"), time.time())
        down = response.status in DOWN_STATUSES
        # One page's error (500, 408, a 429 that names no wait): its own retry waits, not the host's other requests.
        if down or asked:
            outage = self._failed(request, asked, down)
        else:
            outage = None
            self._answered(request)  # the host answers: whatever its outage was, a probe of it has its answer
        if request.meta.get("dont_retry"):
            return response
        retry = self._retry_during(request, response_status_message(response.status), outage)
        if retry is not None and outage is None:
            retry.meta[WAIT_UNTIL] = self.clock() + self.schedule.pause(retry.meta["retry_times"], next(self.draws))
        return retry or response

    def process_exception(self, request, exception, spider=None):
        if not isinstance(exception, OUTAGE_ERRORS):
            if request.meta.pop(PROBE, False) and (outage := self.outages.get(_host(request))):
                self._set(_host(request), outage.released(self.clock()))
            return super().process_exception(request, exception)
        outage = self._failed(request)
        if request.meta.get("dont_retry"):
            return None
        return self._retry_during(request, exception, outage)

    def _failed(self, request, asked: float | None = None, down: bool = True) -> Outage:
        """The host's outage once this request failed (the first failure begins one); `asked`: Retry-After's seconds;
        `down`: whether the failure says the host is down (landing.core.web.backoff.Outage)."""
        host, now, draw, probe = _host(request), self.clock(), next(self.draws), request.meta.pop(PROBE, False)
        outage = self.outages.get(host)
        if outage is None:
            outage = Outage.begin(request.url, now, draw, self.schedule, down)
            self._count("outages")
        else:
            outage = outage.failed(request.url, now, draw, self.schedule, probe, down)
        if asked:
            outage = outage.asked(now, min(asked, self.retry_after_max))
        self._set(host, outage)
        return outage

    def _answered(self, request) -> None:
        request.meta.pop(PROBE, None)
        host = _host(request)
        if host in self.outages:
            self._set(host, None)

    def _set(self, host: str, outage: Outage | None) -> None:
        if outage is None:
            self.outages.pop(host, None)
        else:
            self.outages[host] = outage
            if len(self.outages) > KEPT:  # hosts given up on and asked nothing since: forgotten
                stale = self.clock() - self.schedule.outage_max
                self.outages = {name: kept for name, kept in self.outages.items() if kept.until > stale}
        if change := self.changes.pop(host, None):
            change.set()

    def _retry_during(self, request, reason, outage: Outage | None):
        """The retry of a request that failed on a host in `outage`: within RETRY_TIMES, or beyond while the outage
        is widespread and younger than LANDING_OUTAGE_MAX; None once given up."""
        tries = request.meta.get("retry_times", 0)
        allowed = request.meta.get("max_retry_times", self.max_retry_times)
        if tries >= allowed and outage is not None and self.schedule.retries(tries, allowed, outage, self.clock()):
            self._count("outage_retries")
            allowed = tries + 1
        return get_retry_request(
            request,
            spider=self.crawler.spider,
            reason=reason,
            max_retry_times=allowed,
            priority_adjust=request.meta.get("priority_adjust", self.priority_adjust),
            give_up_log_level=request.meta.get("give_up_log_level", self.give_up_log_level),
        )

    def _count(self, name: str) -> None:
        if getattr(self, "crawler", None) is not None:
            self.crawler.stats.inc_value(f"landing/backoff/{name}")


def _host(request) -> str:
    """The server a request goes to: its host and port (two servers of one host fail apart)."""
    parts = urlsplit(request.url)
    return f"{parts.hostname or ''}:{parts.port or DEFAULT_PORTS.get(parts.scheme, 0)}"
