"""robots.txt: whether it applies to a request (the policy), and the parsers of the hosts met most recently."""

from collections import OrderedDict
from urllib.parse import urlsplit

from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.httpobj import urlparse_cached
from twisted.internet.defer import Deferred

from landing.crawl.endpoints import resolver_hosts


class RobotsPolicyMiddleware:
    """Decide per request whether robots.txt applies, before RobotsTxtMiddleware (100) looks.

    API requests never consult it (their terms govern them); resolver hops follow LANDING_RESOLVER_ROBOTS;
    every other hop of a DOI's chain (the publisher's pages) follows ROBOTSTXT_OBEY. Decided on every hop
    because a redirect copies the previous request's meta, flag included.
    """

    def __init__(self, resolver_hosts, obey_resolver: bool):
        self.resolver_hosts, self.obey_resolver = resolver_hosts, obey_resolver

    @classmethod
    def from_crawler(cls, crawler):
        policy = crawler.settings.get("LANDING_RESOLVER_ROBOTS")
        if policy not in ("obey", "ignore"):
            raise ValueError(f"LANDING_RESOLVER_ROBOTS takes obey|ignore, not {policy!r}")
        return cls(resolver_hosts(crawler.settings), policy == "obey")

    def process_request(self, request, spider=None):
        if request.meta.get("landing_api"):
            request.meta["dont_obey_robotstxt"] = True
        elif "pid" in request.meta or request.meta.get("landing_chain"):
            # A hop of a DOI's chain (sampler) or of a matcher fetch; robots.txt fetches are left alone.
            on_resolver = urlsplit(request.url).hostname in self.resolver_hosts
            request.meta["dont_obey_robotstxt"] = on_resolver and not self.obey_resolver


class RecentRobotsTxtMiddleware(RobotsTxtMiddleware):
    """Scrapy's RobotsTxtMiddleware, keeping the parsed robots.txt of the LANDING_ROBOTS_CACHE most recent hosts.

    Scrapy's keeps every host's for the whole crawl; a full run meets tens of thousands of hosts, and a parsed
    robots.txt can weigh tens of kilobytes. A host met again after eviction has its robots.txt fetched again.
    """

    def __init__(self, crawler):
        super().__init__(crawler)
        self._parsers = RecentParsers(crawler.settings.getint("LANDING_ROBOTS_CACHE"))

    async def robot_parser(self, request):
        pending = self._parsers.get(urlparse_cached(request).netloc)
        if isinstance(pending, Deferred):
            # Scrapy awaits the host's one pending Deferred through Deferred.asFuture, whose callback returns None:
            # every request after the first that waits on a robots.txt in flight read None, "no robots.txt", and
            # was fetched however robots.txt ruled. Each waiter gets a Deferred of its own, passed the parser.
            own = Deferred()
            pending.addBoth(_relay(own))
            return await maybe_deferred_to_future(own)
        return await super().robot_parser(request)


def _relay(own):
    def relay(result):
        own.callback(result)
        return result  # on down the chain, for the next waiter
    return relay


class RecentParsers(OrderedDict):
    """A mapping that forgets its least recently used entries past `size`, except pending ones (Deferreds)."""

    def __init__(self, size: int):
        super().__init__()
        self.size = size

    def __getitem__(self, key):
        value = super().__getitem__(key)
        self.move_to_end(key)
        return value

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        self.move_to_end(key)
        if len(self) > self.size:
            # A pending fetch is still awaited by the middleware under its key: never forget one.
            old = next((k for k, v in self.items() if not isinstance(v, Deferred)), None)
            if old is not None and old != key:
                del self[old]
