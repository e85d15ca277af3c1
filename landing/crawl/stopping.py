"""Stopping at once: downloads in flight given up, later ones refused, each ending in `Stopped`."""

import asyncio

from scrapy.exceptions import IgnoreRequest

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
