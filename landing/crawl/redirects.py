"""Redirect hops as a browser following a DOI makes them."""

from scrapy.downloadermiddlewares import redirect
from scrapy.http import HtmlResponse
from scrapy.utils.httpobj import urlparse_cached

from landing.core.web.failures import may_hold


class _Hop:
    """A redirect hop as a browser following a DOI makes it: no Referer, and its own host's download slot.

    Scrapy's downloader writes each request's slot into its meta (`download_slot`), and a redirect copies the meta:
    every publisher hop of a DOI's chain ran in the resolver's slot (32 at once, no AutoThrottle), never its own
    host's, so publishers met more requests at once than their limit (bench/README.md). A hop to
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
