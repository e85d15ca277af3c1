"""Refuse every request whose host is, or resolves to, a loopback, private, link-local or cloud-metadata address.

A crawler follows redirects chosen by strangers: without this, a publisher's 302 to http://169.254.169.254/ or to
an intranet name would make the crawl fetch (and store) what only the crawling machine can reach.
"""

import asyncio
import logging
import socket
from urllib.parse import urlsplit

from scrapy.exceptions import CannotResolveHostError, IgnoreRequest, NotConfigured
from scrapy.resolver import dnscache

from landing import config
from landing.core.web.addresses import forbidden, literal_address, local_name, on_this_machine
from landing.core.web.recent import Recent

logger = logging.getLogger(__name__)
_SCRAPY_RESOLVER = "scrapy.resolver.CachingThreadedResolver"


def guard_enabled(cfg, say: bool = False) -> bool:
    """Whether the guard judges this crawl's requests: LANDING_ADDRESS_GUARD, unless LANDING_SANDBOX is a sandbox on
    this machine (it serves an offline world from 127.0.0.1: refusing loopback would refuse it all). A sandbox URL
    elsewhere, a real proxy put there by mistake, never turns it off. `say`: log which it is."""
    sandbox = cfg.sandbox
    if not cfg.address_guard:
        return False
    if sandbox and on_this_machine(sandbox):
        if say:
            logger.warning("LANDING_SANDBOX=%s is a sandbox on this machine: the address guard is off", sandbox)
        return False
    if sandbox and say:
        logger.warning(
            "LANDING_SANDBOX=%s is not on this machine (not a loopback address): the address guard stays on", sandbox
        )
    return True


class ForbiddenAddress(IgnoreRequest):
    """A request refused because its host is, or resolves to, an address a crawler must not reach."""

    def __init__(self, host: str, address: str | None, reason: str, via: str = "resolves to"):
        self.host, self.address, self.reason = host, address, reason
        where = host if address in (None, host) else f"{host} {via} {address}"
        super().__init__(f"refused: {where} ({reason})")


class Unresolved(CannotResolveHostError):
    """A host the guard found no address for: refused (a `dns` failure, retried as one) rather than left for the
    connection to resolve again, unchecked, where a hostile name server may answer otherwise."""

    reason = "no-answer"

    def __init__(self, host: str, why: str = "has no address the guard could check"):
        self.host = host
        super().__init__(f"refused: {host} {why} (dns)")


class AddressGuardMiddleware:
    """Check every hop (redirects come back through process_request) before it reaches robots.txt or the network.

    DNS rebinding: Scrapy resolves the host again when it connects, and a hostile name server may answer
    differently then. Two things close most of that gap. Answers are cached per host for the crawl (bounded LRU),
    so one host is judged by one answer. And with Scrapy's default resolver (CachingThreadedResolver, DNS cache
    on), the checked IPv4 answer is written into Scrapy's DNS cache, which is what the connection uses; an entry
    already there is checked too; a host with only AAAA answers is refused as `dns` (that resolver connects over
    IPv4 only, so it would ask DNS again), as is one with no answer at all. What remains: another resolver
    (TWISTED_DNS_RESOLVER, DNSCACHE_ENABLED=False, the httpx/aiohttp download handlers), or Scrapy's cache evicting
    the pin (FIFO, DNSCACHE_SIZE hosts) between this check and the connection; requests through a proxy are resolved
    by the proxy, on its network.
    """

    def __init__(self, stats, cache_size: int, timeout: float, pin: bool):
        self.stats, self.timeout, self.pin = stats, timeout, pin
        self.cache: Recent = Recent(cache_size)  # host -> its addresses

    @classmethod
    def from_crawler(cls, crawler):
        settings = crawler.settings
        if not guard_enabled(config.of(crawler), say=True):
            raise NotConfigured
        pin = settings.getbool("DNSCACHE_ENABLED") and settings.get("TWISTED_DNS_RESOLVER") == _SCRAPY_RESOLVER
        return cls(crawler.stats, settings.getint("DNSCACHE_SIZE"), settings.getfloat("DNS_TIMEOUT"), pin)

    async def process_request(self, request, spider=None):
        refusal = await judge(request.url, self._addresses)
        if refusal is None and self.pin:
            refusal = _unpinned(request.url)
        if refusal:
            self._refuse(refusal)
        return None

    def _refuse(self, refusal: "ForbiddenAddress | Unresolved"):
        self.stats.inc_value(f"landing/refused/{refusal.reason}")
        logger.warning(str(refusal))
        raise refusal

    async def _addresses(self, host: str) -> tuple[str, ...]:
        """Every A and AAAA answer for `host` (none when resolution fails: the request is then refused as `dns`),
        plus the address Scrapy's DNS cache will connect to."""
        addresses = self.cache.get(host)
        if addresses is None:
            addresses = await self._lookup(host)
            if addresses:  # failures are not cached: they may be transient
                self.cache[host] = addresses
        if not self.pin:
            return addresses
        pinned = dnscache.get(host)
        if isinstance(pinned, str):
            return (*addresses, pinned)
        first_v4 = next((a for a in addresses if ":" not in a), None)
        if first_v4 and pinned is None:
            dnscache[host] = first_v4  # CachingThreadedResolver.getHostByName answers from here when connecting
        return addresses

    async def _lookup(self, host: str) -> tuple[str, ...]:
        return await lookup(host, self.timeout)


def _unpinned(url: str) -> "Unresolved | None":
    """Unresolved for a judged host whose checked address Scrapy's resolver will not connect to: one with only
    AAAA answers (CachingThreadedResolver connects over IPv4, so it would ask DNS again, and a rebinding server
    could answer then with an A record the guard never saw)."""
    parts = urlsplit(url)
    host = parts.hostname
    if parts.scheme not in ("http", "https") or not host or literal_address(host):
        return None
    if isinstance(dnscache.get(host), str):  # pinned: the connection goes to the checked IPv4 answer
        return None
    return Unresolved(host, "has only IPv6 answers, and Scrapy's resolver would look up an IPv4 one unchecked")


async def judge(url: str, addresses) -> "ForbiddenAddress | Unresolved | None":
    """The refusal of a URL whose host is a local name, a forbidden literal, has a forbidden answer or none at all,
    or that carries userinfo; else None. `addresses(host)` awaits the host's answers.
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None  # data:, file:, s3: ... name no host this guard can judge (and Scrapy fetches none of them)
    host = parts.hostname
    if "@" in parts.netloc:  # http://public.example@10.0.0.5/: which host is meant depends on who parses it
        return ForbiddenAddress(host, None, "userinfo")
    reason = local_name(host)
    if reason:
        return ForbiddenAddress(host, None, reason)
    literal = literal_address(host)
    answers = (literal,) if literal else await addresses(host)
    if not answers:
        return Unresolved(host)
    for address in answers:
        reason = forbidden(address)
        if reason:
            return ForbiddenAddress(host, address, reason, via="is" if literal else "resolves to")
    return None


async def lookup(host: str, timeout: float) -> tuple[str, ...]:
    """Every A and AAAA answer for host, in order; none when resolution fails."""
    loop = asyncio.get_running_loop()
    try:
        found = await asyncio.wait_for(loop.getaddrinfo(host, None, type=socket.SOCK_STREAM), timeout)
    except (TimeoutError, OSError, UnicodeError):
        return ()
    return tuple(dict.fromkeys(info[4][0] for info in found))
