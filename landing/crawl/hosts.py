"""Refuse every request whose host is no hostname before it is made, sandbox or not.

A redirect can name a host holding an escape character, a bidi override or `=1+2` (issue 29): such a name is never
resolved, fetched or kept as a domain; the visit ends `invalid-host` (landing.core.web.failures.host_failure).
"""

import logging

from scrapy.exceptions import IgnoreRequest

from landing.core.web.failures import host_failure

logger = logging.getLogger(__name__)


class InvalidHost(IgnoreRequest):
    """A request refused because its URL's host is not a hostname."""

    def __init__(self, url: str):
        self.url = url
        super().__init__(f"refused: {url!a} names no valid hostname (invalid-host)")


class HostnameMiddleware:
    """Judge every hop (redirects come back through process_request), robots.txt requests included."""

    def __init__(self, stats):
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler.stats)

    def process_request(self, request, spider=None):
        if host_failure([request.url]):
            self.stats.inc_value("landing/refused/invalid-host")
            refusal = InvalidHost(request.url)
            logger.warning(str(refusal))
            raise refusal
        return None
