"""Every request through LANDING_SANDBOX, when it is set."""

import logging

from scrapy.exceptions import NotConfigured

from landing import config


class SandboxProxyMiddleware:
    """Send every request (spider requests, redirects, robots.txt) through LANDING_SANDBOX when it is set.

    Done here rather than in spiders' Request.meta: RobotsTxtMiddleware makes its own requests, and a
    proxy set only by a spider never reaches them.
    """

    def __init__(self, proxy: str):
        self.proxy = proxy

    @classmethod
    def from_crawler(cls, crawler):
        proxy = config.of(crawler).sandbox
        if not proxy:
            raise NotConfigured
        # The sandbox's certificate is self-signed by design: one warning per host would bury everything else.
        logging.getLogger("scrapy.core.downloader.tls").setLevel(logging.ERROR)
        return cls(proxy)

    def process_request(self, request, spider=None):
        request.meta.setdefault("proxy", self.proxy)
