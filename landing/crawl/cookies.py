"""A cookie jar per DOI chain, dropped when the chain ends."""

from scrapy import signals
from scrapy.downloadermiddlewares.cookies import CookiesMiddleware

from landing.crawl.signals import chain_ended


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
