"""Retries that wait as long as the server asks."""

import asyncio
import time

from scrapy.downloadermiddlewares.retry import RetryMiddleware

from landing import config
from landing.core.retry import retry_after


class RetryAfterMiddleware(RetryMiddleware):
    """Scrapy's RetryMiddleware, waiting as long as a 429 or 503 asks (Retry-After) before retrying.

    Scrapy's own retries immediately; a server that says when to come back is owed that wait, capped by
    LANDING_RETRY_AFTER_MAX so one header cannot stall a DOI for hours.
    """

    wait_max: float

    @classmethod
    def from_crawler(cls, crawler):
        middleware = super().from_crawler(crawler)
        middleware.wait_max = config.of(crawler).retry_after_max
        return middleware

    async def process_response(self, request, response, spider=None):
        retries_left = request.meta.get("retry_times", 0) < request.meta.get("max_retry_times", self.max_retry_times)
        if response.status in self.retry_http_codes and retries_left and not request.meta.get("dont_retry"):
            wait = retry_after(response.headers.get("Retry-After", b"").decode("latin-1"), time.time())
            if wait:
                await asyncio.sleep(min(wait, self.wait_max))
        return super().process_response(request, response)
