"""Every request the crawl sends, counted at one place (the stat SENT), which the budget, the metrics, the progress
line and `scrapy status` read.

A Scrapy request is counted when it reaches the downloader, past every middleware that may refuse it (the guard,
robots.txt, the stop gate), whatever made it: the registry APIs, the resolver, the publishers, robots.txt. Chromium's
own requests, which Scrapy never sees, are added by the browser driver when a visit ends (landing.browser.driver).
"""

from scrapy import signals

SENT = "landing/requests"


class RequestsSent:
    """The extension that counts each request reaching the downloader in SENT."""

    def __init__(self, stats):
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler):
        sent = cls(crawler.stats)
        crawler.signals.connect(sent.reached, signal=signals.request_reached_downloader)
        return sent

    def reached(self, request, spider=None):
        self.stats.inc_value(SENT)
