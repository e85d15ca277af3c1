"""What Chromium may fetch by itself during a browser visit (scrapy-playwright's `abort_request`).

Scrapy's middlewares see only the request that starts a visit; Chromium then follows redirects, runs scripts that
navigate, and fetches subresources on its own. These rules hold it to what the HTTP driver is held to: no
pictures, media, fonts or styles (a landing page is read, not looked at); no host the address guard refuses
(subresources included: a page's script could otherwise reach the metadata service from the crawling machine);
and no page navigation robots.txt disallows, under the same policy as Scrapy's requests (landing.core.web.robots_policy).

One BrowserRules a crawl (`rules_of`), built from its Config where it is needed: by the download handler, which asks
it about every request Chromium makes, and by the visitor, which judges a visit's redirects with it. Settings hold
no live object: PLAYWRIGHT_ABORT_REQUEST stays unset. Why the visit stopped is kept by URL (`stopped`), for the
visit's Navigation to name its class.

What these rules cannot stop: Playwright routes only the first request of an HTTP redirect chain, so Chromium
follows a server's 3xx without asking them (even a 3xx fulfilled from a route). `after_the_fact` judges those
hops once the visit has ended: the page is then discarded and the visit classed as if it had been stopped,
but the request itself has been made.
"""

import asyncio
import logging
import threading
from typing import NamedTuple
from urllib.parse import urlsplit

from protego import Protego

from landing import config
from landing.config import Config
from landing.core.web.recent import Recent
from landing.core.web.robots_policy import RobotsPolicy
from landing.crawl.guard import Unresolved, guard_enabled, judge, lookup
from landing.crawl.robots import robots_policy

logger = logging.getLogger(__name__)

SKIPPED = frozenset({"image", "media", "font", "stylesheet"})
LOOKUP_TIMEOUT = 10.0
ROBOTS_TIMEOUT_MS = 10_000
_REMEMBERED = 4096  # hosts, origins and stopped URLs kept; the oldest go first


class Stop(NamedTuple):
    """Why Chromium was kept from a URL: a failure class, what to say, and the stat to count it under."""

    error: str
    detail: str
    stat: str


_STOPPED: Recent = Recent(_REMEMBERED)  # url, or (host, port) the proxy refused -> why Chromium was kept from it
# Written on Playwright's thread (the rules, the proxy), read on the crawl's (driver.Navigation.stop).
_STOPPED_LOCK = threading.Lock()


def stopped(url: str | None) -> Stop | None:
    """Why the rules, or the guarding proxy, kept Chromium from url, if they did."""
    if not url:
        return None
    with _STOPPED_LOCK:
        found = _STOPPED.get(url)
    if found is None:
        parts = urlsplit(url)
        try:
            where = (parts.hostname, parts.port or {"http": 80, "https": 443}.get(parts.scheme))
        except ValueError:
            return None
        with _STOPPED_LOCK:
            found = _STOPPED.get(where)
    return found


def proxy_refused(host: str, port: int, error: str, detail: str, stat: str) -> None:
    """What landing.browser.forward_proxy refused, for the visit whose navigation failed there to name its class."""
    with _STOPPED_LOCK:
        _STOPPED[(host, port)] = Stop(error, detail, stat)


def rules_of(crawler) -> "BrowserRules":
    """The crawl's rules, built from its Config at the first call and the same object after it."""
    found = getattr(crawler, "landing_browser_rules", None)
    if found is None:
        found = crawler.landing_browser_rules = BrowserRules.from_settings(crawler.settings, config.of(crawler))
    return found


class BrowserRules:
    """The callable scrapy-playwright asks about every request Chromium makes: True aborts it."""

    def __init__(self, guard: bool, robots: RobotsPolicy, user_agent: str = "*"):
        self.guard, self.robots, self.user_agent = guard, robots, user_agent
        self.answered: Recent = Recent(_REMEMBERED)  # host -> its addresses
        self.robots_files: Recent = Recent(_REMEMBERED)  # origin -> its robots.txt rules, fetched or being fetched
        self.fetches: dict[int, set] = {}  # id of a browser context -> the robots.txt fetches made through it
        self.robots_sent = 0  # robots.txt fetches Chromium's contexts made, which Scrapy never sees (on one loop)

    @classmethod
    def from_settings(cls, settings, cfg: Config) -> "BrowserRules":
        """The rules a crawl of these settings, read into cfg, holds Chromium to."""
        return cls(
            guard=guard_enabled(cfg),
            robots=robots_policy(settings, cfg),
            user_agent=settings.get("ROBOTSTXT_USER_AGENT") or settings.get("USER_AGENT") or "*",
        )

    def __repr__(self):
        return f"BrowserRules(guard={self.guard}, robots={self.robots.obey}, obey_resolver={self.robots.obey_resolver})"

    async def __call__(self, request) -> bool:
        if request.resource_type in SKIPPED:
            return True
        navigation = request.is_navigation_request()
        asks = navigation and self.robots.governs(request.url)
        context = request.frame.page.context if asks else None  # navigations have frames
        stop = await self.verdict(request.url, context, navigation)
        if stop:
            logger.warning("browser %s: %s", request.resource_type, stop.detail)
            return _stop(request.url, stop)
        return False

    async def verdict(self, url: str, context, navigation: bool) -> Stop | None:
        """Why Chromium must not fetch url, or None; robots.txt is asked (through context) for navigations only."""
        if self.guard:
            refusal = await judge(url, self.answers)
            if refusal:
                failure = "dns" if isinstance(refusal, Unresolved) else "refused-address"
                return Stop(failure, str(refusal), f"landing/refused/{refusal.reason}")
        if navigation and self.robots.governs(url) and not await self._allowed(url, context):
            return Stop("robots", f"Forbidden by robots.txt: {url}", "landing/browser/robots")
        return None

    async def after_the_fact(self, hops: list[dict], context) -> tuple[str, Stop] | None:
        """The first redirect target of a visit's hops that the rules would have stopped, and why."""
        for before, hop in zip(hops, hops[1:]):
            if 300 <= (before.get("status") or 0) < 400:
                stop = await self.verdict(hop["url"], context, navigation=True)
                if stop:
                    logger.warning(
                        "browser followed a redirect the rules forbid (%s); the visit is discarded", stop.detail
                    )
                    return hop["url"], stop
        return None

    async def answers(self, host: str) -> tuple[str, ...]:
        """host's addresses, cached for the crawl: routing and the guarding proxy judge by the same answer."""
        if host not in self.answered:
            found = await lookup(host, LOOKUP_TIMEOUT)
            if not found:
                return found  # failures are not cached: they may be transient
            self.answered[host] = found
        return self.answered[host]

    def fetching(self, context) -> set:
        """The robots.txt fetches still under way through context (their responses may set its cookies)."""
        return set(self.fetches.get(id(context), ()))

    def _fetched(self, key: int, fetch) -> None:
        through = self.fetches.get(key)
        if through is not None:
            through.discard(fetch)
            if not through:
                del self.fetches[key]

    async def _allowed(self, url: str, context) -> bool:
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        if origin not in self.robots_files:  # one fetch per origin, shared by every visit that asks meanwhile
            fetch = self.robots_files[origin] = asyncio.ensure_future(_robots(context, origin))
            self.robots_sent += 1
            through = self.fetches.setdefault(id(context), set())
            through.add(fetch)
            fetch.add_done_callback(lambda done: self._fetched(id(context), done))
        try:
            rules = await asyncio.shield(self.robots_files[origin])
        except Exception as error:  # Playwright's errors, a context closed while asking: allowed, and asked again
            logger.debug("robots.txt of %s: %r", origin, error)
            self.robots_files.pop(origin, None)
            return True
        return rules is None or rules.can_fetch(url, self.user_agent)


async def _robots(context, origin: str) -> Protego | None:
    """The origin's robots.txt as Scrapy's default parser reads it; None (all allowed) unless it answers 200,
    as Scrapy's RobotsTxtMiddleware treats a missing or failing robots.txt."""
    response = await context.request.get(f"{origin}/robots.txt", timeout=ROBOTS_TIMEOUT_MS, max_redirects=5)
    if response.status != 200:
        return None
    return Protego.parse(await response.text())


def _stop(url: str, stop: Stop) -> bool:
    with _STOPPED_LOCK:
        _STOPPED[url] = stop
    return True
