"""The services' download slots (resolver, APIs): fixed concurrency, out of AutoThrottle's hands."""

from urllib.parse import urlsplit


class ServiceSlotsMiddleware:
    """Keep AutoThrottle off the download slots named in DOWNLOAD_SLOTS (the resolver, the APIs).

    AutoThrottle sets a slot's delay from its latency. On a slot shared by every DOI, the latency of a busy
    moment raised the delay, which made the queue longer and the latency worse: a long matcher input
    crawled along far below the services' limits. Those services get a fixed concurrency instead. Decided on
    every hop, because a redirect copies the meta flag onto the publisher's hops, which must stay throttled.
    """

    def __init__(self, slots):
        self.slots = frozenset(slots)

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler.settings.getdict("DOWNLOAD_SLOTS"))

    def process_request(self, request, spider=None):
        key = request.meta.get("download_slot") or urlsplit(request.url).hostname
        if key in self.slots:
            request.meta["autothrottle_dont_adjust_delay"] = True
        else:
            request.meta.pop("autothrottle_dont_adjust_delay", None)
