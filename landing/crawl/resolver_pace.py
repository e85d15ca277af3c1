"""The resolver at a rate: requests to doi.org (and its other names) wait their turn at LANDING_RESOLVER_RATE."""

import asyncio
import time
from urllib.parse import urlsplit

from landing import config
from landing.core.pace import Pace


class ResolverPaceMiddleware:
    """Hold each request to the resolver until its turn: a rate, where the slot's concurrency is only a cap.

    32 at once is 160 requests a second at 200 ms and several hundred at the resolver's real latency. Every
    request is counted (a DOI's first, its retries, Handle API lookups), so the rate is what doi.org sees.
    """

    def __init__(self, hosts: frozenset, rate: float):
        self.hosts, self.pace = hosts, Pace(rate, burst=int(rate / 4))

    @classmethod
    def from_crawler(cls, crawler):
        cfg = config.of(crawler)
        return cls(cfg.resolver_hosts, cfg.resolver_rate)

    async def process_request(self, request, spider=None):
        if urlsplit(request.url).hostname in self.hosts:
            if wait := self.pace.book(time.monotonic()):
                await asyncio.sleep(wait)
