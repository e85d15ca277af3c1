"""Scrapy's HTTP/1.1 download handler, with a pool that holds few idle connections (tuning.KEEPALIVE,
tuning.IDLE_CONNECTIONS).

Twisted's pool keeps every idle connection for 240 s. A full run meets thousands of hosts, most of them for a
handful of requests: a crawl held thousands of idle TLS tunnels, and its memory grew with them (bench/README.md
"Figures behind choices in the code"). Closing idle connections after a few seconds bounded memory but cost
a TLS handshake for nearly every request, on both sides. So idle connections stay up to tuning.KEEPALIVE
seconds, and past tuning.IDLE_CONNECTIONS of them the one idle longest is closed.
"""

import weakref

from OpenSSL import SSL
from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler
from scrapy.core.downloader.tls import _ScrapyClientTLSOptions26
from twisted.internet.ssl import optionsForClientTLS
from twisted.web.client import HTTPConnectionPool

from landing import config
from landing.crawl.stopping import StoppableDownloads


class CappedPool(HTTPConnectionPool):
    """Twisted's connection pool, holding at most `max_idle` idle connections in all, the oldest closed first."""

    def __init__(self, reactor, max_idle: int):
        super().__init__(reactor, persistent=True)
        self.max_idle = max_idle
        self._keys = weakref.WeakKeyDictionary()  # idle connection -> its pool key

    def _putConnection(self, key, connection):
        super()._putConnection(key, connection)
        # Twisted hands out a host's idle connections oldest first, which keeps every one of them in rotation.
        # Newest first (it is now at the front), a busy host reuses a few hot connections and the spare ones age
        # out under the cap, rather than holding a busy host's share of it.
        idle = self._connections.get(key)
        if idle and idle[-1] is connection:  # Twisted refuses a connection that is not quiescent
            idle.insert(0, idle.pop())
        self._keys[connection] = key
        # _timeouts holds one entry per idle connection, oldest first (dicts keep insertion order).
        while len(self._timeouts) > self.max_idle:
            oldest = next(iter(self._timeouts))
            self._timeouts[oldest].cancel()
            self._removeConnection(self._keys.pop(oldest), oldest)


def cap_pool(handler, crawler) -> None:
    """Give `handler` a CappedPool configured as the one Scrapy made, capped as the crawler's Config says."""
    from twisted.internet import reactor

    made = handler._pool
    cfg = config.of(crawler)
    pool = CappedPool(reactor, cfg.idle_connections)
    pool.maxPersistentPerHost, pool._factory = persistent_per_host(crawler.settings), made._factory
    pool.cachedConnectionTimeout = cfg.keepalive
    handler._pool = pool


def persistent_per_host(settings) -> int:
    """Idle connections kept per host: twice what the host's slot may use at once.

    Scrapy keeps CONCURRENT_REQUESTS_PER_DOMAIN (4), and Twisted closes any connection returned past that, so the
    resolver's slot (32 at once, DOWNLOAD_SLOTS) opened a new TLS connection for nearly every DOI: 8,530 for 9,300
    DOIs on a 1,000-host world. Its slot's size was not enough either (4,000 for 10,000): Scrapy frees a slot when
    the response is handed over, before Twisted returns the connection, so a slot briefly holds more connections
    than its concurrency. Twice the size: 66 connections to doi.org in all.
    """
    slots = settings.getdict("DOWNLOAD_SLOTS")
    return 2 * max(
        [
            settings.getint("CONCURRENT_REQUESTS_PER_DOMAIN"),
            *(int(slot.get("concurrency", 0)) for slot in slots.values()),
        ]
    )


def one_tls_context(handler, verified: frozenset = frozenset()) -> None:
    """Give every TLS connection of `handler` the same OpenSSL context, and skip certificate checks nobody asked for;
    hosts in `verified` (landing.crawl.endpoints.verified_hosts) get Twisted's verifying options, as with
    DOWNLOAD_VERIFY_CERTIFICATES: a failed check ends the request.

    Scrapy's policy builds new certificate options, so a new OpenSSL context, for each connection, which showed
    in a profile of the crawl's CPU (bench/README.md "Figures behind choices in the code"). A context is safe to
    share (Twisted sets ALPN per connection), and the options are the same for every host. And with
    DOWNLOAD_VERIFY_CERTIFICATES off (the default) Scrapy still has OpenSSL verify every chain and checks each
    leaf's names, only to log a warning, which showed too.
    With verification on, Scrapy's own path is kept, untouched.
    """
    factory = handler._contextFactory
    if getattr(factory, "_verify_certificates", True) or not hasattr(factory, "_get_cert_options"):
        return
    options, extra = factory._get_cert_options(), factory._get_cert_options_kwargs()
    factory._get_cert_options = lambda: options
    made = factory.creatorForNetloc

    def creator_for_netloc(hostname, port):
        if hostname.decode("ascii").lower() in verified:
            return optionsForClientTLS(hostname.decode("ascii"), extraCertificateOptions=extra)
        creator = made(hostname, port)
        if isinstance(creator, _ScrapyClientTLSOptions26):
            creator.__class__ = _UncheckedTLSOptions
        return creator

    factory.creatorForNetloc = creator_for_netloc


class _UncheckedTLSOptions(_ScrapyClientTLSOptions26):
    """Scrapy's TLS options for a crawl that does not verify certificates, without its warning-only checks."""

    def clientConnectionForTLS(self, tlsProtocol):
        # Twisted's ClientTLSOptions.clientConnectionForTLS, less the verify callback it and Scrapy install.
        connection = self._createConnection(tlsProtocol)
        if self._sendServerName:
            connection.set_tlsext_host_name(self._hostnameBytes)
        connection.set_verify(SSL.VERIFY_NONE)
        return connection


class HttpHandler(StoppableDownloads, HTTP11DownloadHandler):
    def __init__(self, crawler):
        super().__init__(crawler)
        cap_pool(self, crawler)
        one_tls_context(self, config.of(crawler).verified_hosts)
        self.watch_stopping(crawler)

    async def download_request(self, request):
        # A host backing off (landing.crawl.retry) gets its probe only: the requests queued in its slot before its
        # outage began wait here, holding the host's concurrency, not sent and not counted again.
        backoff = getattr(self.crawler, "landing_backoff", None)
        if backoff is not None and backoff.holds(request):
            await backoff.turn(request)
        return await super().download_request(request)
