"""Scrapy's HTTP/1.1 download handler, with a pool that holds few idle connections (LANDING_KEEPALIVE,
LANDING_IDLE_CONNECTIONS).

Twisted's pool keeps every idle connection for 240 s. A full run meets thousands of hosts, most of them for a
handful of requests: measured on a 1,000-host world, the crawl held ~1,900 idle TLS tunnels after 60 s, and its
memory grew by ~25 KB per DOI with them. Closing idle connections after a few seconds bounded memory but cost
a TLS handshake for nearly every request, on both sides. So idle connections stay up to LANDING_KEEPALIVE
seconds, and past LANDING_IDLE_CONNECTIONS of them the one idle longest is closed.
"""
import weakref

from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler
from twisted.web.client import HTTPConnectionPool


class CappedPool(HTTPConnectionPool):
    """Twisted's connection pool, holding at most `max_idle` idle connections in all, the oldest closed first."""

    def __init__(self, reactor, max_idle: int):
        super().__init__(reactor, persistent=True)
        self.max_idle = max_idle
        self._keys = weakref.WeakKeyDictionary()  # idle connection -> its pool key

    def _putConnection(self, key, connection):
        super()._putConnection(key, connection)
        self._keys[connection] = key
        # _timeouts holds one entry per idle connection, oldest first (dicts keep insertion order).
        while len(self._timeouts) > self.max_idle:
            oldest = next(iter(self._timeouts))
            self._timeouts[oldest].cancel()
            self._removeConnection(self._keys.pop(oldest), oldest)


def cap_pool(handler, settings) -> None:
    """Give `handler` a CappedPool configured as the one Scrapy made."""
    from twisted.internet import reactor

    made = handler._pool
    pool = CappedPool(reactor, settings.getint("LANDING_IDLE_CONNECTIONS"))
    pool.maxPersistentPerHost, pool._factory = made.maxPersistentPerHost, made._factory
    pool.cachedConnectionTimeout = settings.getfloat("LANDING_KEEPALIVE")
    handler._pool = pool


def one_tls_context(handler) -> None:
    """Give every TLS connection of `handler` the same OpenSSL context.

    Scrapy's policy builds new certificate options, so a new OpenSSL context, for each connection: about 6% of
    the crawl's CPU in a profile at 200 ms. A context is safe to share (Twisted sets ALPN per connection), and
    the options are the same for every host. Certificate verification (DOWNLOAD_VERIFY_CERTIFICATES) does not
    use these options and keeps Scrapy's path.
    """
    factory = handler._contextFactory
    if hasattr(factory, "_get_cert_options"):
        options = factory._get_cert_options()
        factory._get_cert_options = lambda: options


class HttpHandler(HTTP11DownloadHandler):
    def __init__(self, crawler):
        super().__init__(crawler)
        cap_pool(self, crawler.settings)
        one_tls_context(self)
