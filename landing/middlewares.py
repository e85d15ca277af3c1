"""Downloader middlewares: thin adapters between Scrapy and the rules in landing.core."""
import asyncio
import logging
import time
from collections import OrderedDict
from urllib.parse import urlsplit

from scrapy import signals
from scrapy.downloadermiddlewares import redirect
from scrapy.downloadermiddlewares.cookies import CookiesMiddleware
from scrapy.downloadermiddlewares.retry import RetryMiddleware
from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware
from scrapy.exceptions import NotConfigured
from scrapy.http import HtmlResponse
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.httpobj import urlparse_cached
from twisted.internet.defer import Deferred

from .core.failures import may_hold
from .core.retry import retry_after
from .endpoints import resolver_hosts


class SandboxProxyMiddleware:
    """Send every request (spider requests, redirects, robots.txt) through LANDING_SANDBOX when it is set.

    Done here rather than in spiders' Request.meta: RobotsTxtMiddleware makes its own requests, and a
    proxy set only by a spider never reaches them.
    """

    def __init__(self, proxy: str):
        self.proxy = proxy

    @classmethod
    def from_crawler(cls, crawler):
        proxy = crawler.settings.get("LANDING_SANDBOX")
        if not proxy:
            raise NotConfigured
        # The sandbox's certificate is self-signed by design: one warning per host would bury everything else.
        logging.getLogger("scrapy.core.downloader.tls").setLevel(logging.ERROR)
        return cls(proxy)

    def process_request(self, request, spider=None):
        request.meta.setdefault("proxy", self.proxy)


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


class RetryAfterMiddleware(RetryMiddleware):
    """Scrapy's RetryMiddleware, waiting as long as a 429 or 503 asks (Retry-After) before retrying.

    Scrapy's own retries immediately; a server that says when to come back is owed that wait, capped by
    LANDING_RETRY_AFTER_MAX so one header cannot stall a DOI for hours.
    """

    def __init__(self, settings):
        super().__init__(settings)
        self.wait_max = settings.getfloat("LANDING_RETRY_AFTER_MAX")

    async def process_response(self, request, response, spider=None):
        retries_left = request.meta.get("retry_times", 0) < request.meta.get("max_retry_times", self.max_retry_times)
        if response.status in self.retry_http_codes and retries_left and not request.meta.get("dont_retry"):
            wait = retry_after(response.headers.get("Retry-After", b"").decode("latin-1"), time.time())
            if wait:
                await asyncio.sleep(min(wait, self.wait_max))
        return super().process_response(request, response)


class _Hop:
    """A redirect hop as a browser following a DOI makes it: no Referer, and its own host's download slot.

    Scrapy's downloader writes each request's slot into its meta (`download_slot`), and a redirect copies the meta:
    every publisher hop of a DOI's chain ran in the resolver's slot (32 at once, no AutoThrottle), never its own
    host's. Measured on a 1,000-host world, publishers met 6 to 10 requests at once where 4 is the limit. A hop to
    another host now starts without a slot, so Scrapy gives it that host's. (RefererMiddleware is off, settings.py:
    a browser following a DOI from its address bar sends no Referer; Scrapy's redirect middlewares warned of that
    at every start.)
    """

    def _redirect(self, redirected, request, reason):
        if urlparse_cached(redirected).hostname != urlparse_cached(request).hostname:
            redirected.meta.pop("download_slot", None)
        return super()._redirect(redirected, request, reason)

    def handle_referer(self, request, response):
        request.headers.pop("Referer", None)

    def _engine_started(self):
        """Scrapy's looks up RefererMiddleware here only for handle_referer, and warns when it is missing."""


class RedirectMiddleware(_Hop, redirect.RedirectMiddleware):
    pass


class MetaRefreshMiddleware(_Hop, redirect.MetaRefreshMiddleware):
    """Scrapy's, which decodes every HTML page to look for a refresh in its first 4,096 characters (16 KB of bytes at
    most, in an ASCII-compatible encoding): a page whose bytes rule the word out is passed on undecoded."""

    def process_response(self, request, response, spider=None):
        if isinstance(response, HtmlResponse) and not may_hold(response.body[:_REFRESH_SCAN], b"refresh"):
            return response
        return super().process_response(request, response)


_REFRESH_SCAN = 4 * 4096  # Scrapy reads a refresh from the first 4,096 characters; UTF-8 spends at most 4 bytes each


class ServiceSlotsMiddleware:
    """Keep AutoThrottle off the download slots named in DOWNLOAD_SLOTS (the resolver, the APIs).

    AutoThrottle sets a slot's delay from its latency. On a slot shared by every DOI, the latency of a busy
    moment raised the delay, which made the queue longer and the latency worse: 10,000 matcher inputs
    crawled along at a few requests a second. Those services get a fixed concurrency instead. Decided on
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


# Sent by a spider when a DOI's chain is over (keyword `jar`: its cookiejar key), so the jar can go.
chain_ended = object()


class ChainCookiesMiddleware(CookiesMiddleware):
    """Scrapy's cookie handling, with each DOI's chain in its own jar (meta `cookiejar`), dropped when it ends.

    One jar per crawl would let a session cookie set for one DOI carry the next DOI past the site's cookie
    wall, so chains would depend on visiting order; and jars that are never dropped grow with the crawl.
    """

    @classmethod
    def from_crawler(cls, crawler):
        middleware = super().from_crawler(crawler)
        crawler.signals.connect(middleware.drop_jar, signal=chain_ended)
        crawler.signals.connect(middleware.count_left, signal=signals.spider_closed)
        return middleware

    def drop_jar(self, jar=None):
        if jar is not None:
            self.jars.pop(jar, None)

    def count_left(self):
        self.crawler.stats.set_value("landing/cookie_jars_left", sum(1 for key in self.jars if key is not None))
