"""Scrapy's HTTP/1.1 download handler, with idle connections kept only briefly (LANDING_KEEPALIVE).

Twisted's pool keeps an idle connection for 240 s. A full run meets thousands of hosts, most of them for a
handful of requests: measured on a 1,000-host world, the crawl held ~1,900 idle TLS tunnels after 60 s, and its
memory grew by ~25 KB per DOI with them. Kept for a few seconds, a connection still serves the rest of a DOI's
chain and a busy platform's next DOIs.
"""
from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler


def keep_alive(handler, settings) -> None:
    """Make `handler`'s connection pool drop idle connections after LANDING_KEEPALIVE seconds."""
    handler._pool.cachedConnectionTimeout = settings.getfloat("LANDING_KEEPALIVE")


class HttpHandler(HTTP11DownloadHandler):
    def __init__(self, crawler):
        super().__init__(crawler)
        keep_alive(self, crawler.settings)
