"""Stopping at once: downloads in flight given up, queued ones dropped, later ones refused, each ending in `Stopped`."""

import asyncio

from scrapy.exceptions import IgnoreRequest
from twisted.python.failure import Failure

from landing.crawl.signals import crawl_stopping


class Stopped(IgnoreRequest):
    """A request dropped because the crawl is stopping: whatever it was for is left to the next crawl."""

    def __init__(self, url: str):
        super().__init__(f"dropped, the crawl is stopping: {url}")


class StoppableDownloads:
    """A download handler mixin: once `crawl_stopping` is sent, downloads in flight are given up and new ones refused,
    each raising Stopped, so Scrapy's stop does not wait out DOWNLOAD_TIMEOUT (or a slow page) for them."""

    def watch_stopping(self, crawler) -> None:
        self.stopped: asyncio.Future | None = None  # made on the first download: the reactor's loop runs by then
        crawler.signals.connect(self.stop_downloads, signal=crawl_stopping)

    async def download_request(self, request):
        if self.stopped is None:
            self.stopped = asyncio.get_running_loop().create_future()
        if self.stopped.done():
            raise Stopped(request.url)
        # Its own task: the downloader's task must not be cancelled (Scrapy would never settle the request).
        download = asyncio.ensure_future(super().download_request(request))
        try:
            await asyncio.wait((download, self.stopped), return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            download.cancel()  # the caller itself was cancelled: the download goes with it
            raise
        if download.done():
            return download.result()
        if request.meta.get("playwright"):
            # Left to end when Chromium closes: cancelling Playwright's calls makes it log errors for futures it
            # can no longer settle.
            download.add_done_callback(lambda done: done.cancelled() or done.exception())
        else:
            download.cancel()  # Twisted drops the connection
        raise Stopped(request.url)

    def stop_downloads(self) -> None:
        if self.stopped is None:
            self.stopped = asyncio.get_event_loop().create_future()
        if not self.stopped.done():
            self.stopped.set_result(None)


def drop_queued(slots) -> int:
    """End every request waiting in a download slot's queue with Stopped; returns how many.

    Scrapy's stop waits for them, and a slot hands them to the handler one per its delay (AutoThrottle's reaches
    AUTOTHROTTLE_MAX_DELAY): a slow host's queue held a stop for minutes, each request then refused at once.
    """
    dropped = 0
    for slot in slots.values():
        if slot.latercall:
            slot.latercall.cancel()
            slot.latercall = None
        while slot.queue:
            request, queued = slot.queue.popleft()
            queued.errback(Failure(Stopped(request.url)))
            dropped += 1
    return dropped


class StopGateMiddleware:
    """Once the crawl is stopping, drop the requests waiting in the download slots' queues (drop_queued) and refuse
    every request about to join one.

    Requests still come after the queues are emptied: one that waited on its host's robots.txt (dropped) goes on,
    and would wait out the slot's delay before the handler refused it. Last of the middlewares, nearest the
    downloader.
    """

    def __init__(self, crawler):
        self.crawler, self.stopping = crawler, False
        crawler.signals.connect(self.stop, signal=crawl_stopping)

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def stop(self) -> None:
        self.stopping = True
        drop_queued(self.crawler.engine.downloader.slots)

    def process_request(self, request, spider=None):
        if self.stopping:
            raise Stopped(request.url)
