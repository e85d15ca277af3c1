"""Stop the sampler within seconds of a first SIGTERM or Ctrl-C, its run left to resume.

Scrapy's own first-signal stop is graceful: it waits for every request in the downloader, so a slow page held the
crawl for DOWNLOAD_TIMEOUT (30 s) and its retries, and the close then rebuilt every artifact. This runs just before
Scrapy's handler: downloads in flight are cancelled and later ones refused (their DOIs' visits are not recorded,
so the same command visits them again), and the export is left for the run's next crawl. Scrapy's stop then closes
the spider, and the pipelines write everything they hold. A second signal is Scrapy's: stop now.
"""

import logging
import signal

from scrapy import signals
from scrapy.exceptions import NotConfigured

from landing.crawl.signals import crawl_stopping

logger = logging.getLogger(__name__)
STOPPED = "landing/stopped"  # stat: the name of the signal that stopped the crawl
_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class StopAtOnce:
    def __init__(self, crawler):
        self.crawler = crawler
        crawler.signals.connect(self._chain, signal=signals.engine_started)

    @classmethod
    def from_crawler(cls, crawler):
        # The matcher stops its own way (landing/commands/match.py).
        if getattr(crawler.spidercls, "name", None) != "doi_sampler":
            raise NotConfigured
        return cls(crawler)

    def _chain(self):
        # At engine start Scrapy's handlers are in place (installed once the reactor started): each signal first
        # stops the downloads, then goes on to Scrapy's handler, which installs its second-signal one in their place.
        for signum in _SIGNALS:
            before = signal.getsignal(signum)
            if callable(before):
                signal.signal(signum, lambda num, frame, before=before: self._signalled(num, frame, before))

    def _signalled(self, signum, frame, before):
        from twisted.internet import reactor

        reactor.callFromThread(self.stop, signal.Signals(signum).name)
        before(signum, frame)

    def stop(self, name: str) -> None:
        """Cancel the downloads in flight and refuse new ones; the engine's stop follows."""
        if self.crawler.stats.get_value(STOPPED):
            return
        self.crawler.stats.set_value(STOPPED, name)
        logger.warning("%s: stopping; downloads in flight are dropped, their DOIs left for the next crawl", name)
        self.crawler.signals.send_catch_log(crawl_stopping)
