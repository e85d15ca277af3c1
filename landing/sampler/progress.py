"""Progress: a log line every few seconds with what the crawl has sampled, visited and found."""

import logging
import time

from scrapy import signals
from scrapy.exceptions import NotConfigured
from twisted.internet import task

logger = logging.getLogger(__name__)


class Progress:
    """Scrapy's LogStats speaks once a minute, in pages; this speaks in DOIs, every LANDING_PROGRESS_INTERVAL."""

    def __init__(self, stats, interval: float):
        self.stats, self.interval = stats, interval
        self.started, self.loop = None, None

    @classmethod
    def from_crawler(cls, crawler):
        interval = crawler.settings.getfloat("LANDING_PROGRESS_INTERVAL")
        if interval <= 0:
            raise NotConfigured
        progress = cls(crawler.stats, interval)
        crawler.signals.connect(progress.opened, signal=signals.spider_opened)
        crawler.signals.connect(progress.closed, signal=signals.spider_closed)
        return progress

    def opened(self, spider=None):
        self.started = time.monotonic()
        self.loop = task.LoopingCall(self.report)
        self.loop.start(self.interval, now=False)

    def report(self):
        get = self.stats.get_value
        visited = get("landing/run/visited_before", 0) + get("landing/visits", 0)
        pages = sum(get(f"landing/correctness/{c}", 0) for c in ("ok", "incorrect", "conflict", "missing"))
        failed = sum(v for k, v in self.stats.get_stats().items() if k.startswith("landing/error/"))
        rate = get("landing/visits", 0) / max(time.monotonic() - self.started, 1e-9)
        run = (
            "following the worker that leads it"
            if get("landing/run/following")
            else f"{get('landing/run/owners_sampled', 0)} of {get('landing/run/owners', '?')} owners sampled"
        )
        logger.info(
            "progress: %d DOIs sampled, %d visited (%d pages, %d failed), %.1f DOIs/s, %d requests; run %s: %s",
            get("landing/run/dois", 0),
            visited,
            pages,
            failed,
            rate,
            get("downloader/request_count", 0),
            get("landing/run/id", "-"),
            run,
        )

    def closed(self, spider=None, reason=None):
        if self.loop and self.loop.running:
            self.loop.stop()
        if self.started is not None:
            self.report()
