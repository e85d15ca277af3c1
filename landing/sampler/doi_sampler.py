"""doi_sampler: sample DOIs from Crossref and DataCite, follow each to its landing page, yield what was found.

A thin spider: the planner (landing.sampler.planner) decides what to sample next, the visitor (landing.sampler.visitor)
makes each DOI's requests and ends its visit in a Visit, and the pipelines read and store it. Scrapy calls back
methods of the spider only (a request in a Redis frontier names its callback by name), so each one here hands its
response to the part that asked.
"""

import redis
import scrapy
from scrapy import signals

from landing import clock, config
from landing.browser import driver as browser
from landing.browser.rules import rules_of
from landing.config import mailto_warning
from landing.core.sampling.runs import RunError
from landing.crawl.endpoints import sandbox_pace, service_slots
from landing.sampler.continuous_planner import Continuous
from landing.sampler.lead_election import shared_frontier
from landing.sampler.planner import FullRun
from landing.sampler.visitor import Visitor
from landing.stores import StoreError


class DoiSamplerSpider(scrapy.Spider):
    name = "doi_sampler"
    # What the crawl's Config changes in Scrapy's settings, in this order (landing.addon runs them): the Playwright
    # handler only when LANDING_DRIVER asks for a browser, the APIs' pacing, a sandbox's, the shared frontier's.
    setting_changes = (browser.configure, service_slots, sandbox_pace, shared_frontier)

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        cfg, s = config.of(crawler), crawler.settings
        clock.set_clock(
            cfg.clock, cfg.clock_speed, cfg.clock_since
        )  # before the run opens: its id, and every timestamp after, are read from it
        if warning := mailto_warning(s):
            spider.logger.warning(warning)
        if cfg.browser_unavailable:
            crawler.signals.connect(spider._say_browser_unavailable, signal=signals.spider_opened)
        # The crawl's BrowserRules when the driver may use Chromium (browser.configure installed its handler).
        rules = rules_of(crawler) if cfg.driver in ("browser", "auto") else None
        hops, maxsize = s.getint("REDIRECT_MAX_TIMES"), s.getint("DOWNLOAD_MAXSIZE")
        spider.visitor = Visitor(crawler, cfg, spider, rules, max_hops=hops, maxsize=maxsize)
        policy = Continuous if cfg.continuous else FullRun
        spider.planner = policy(crawler, cfg, spider.visitor, spider, spider.logger, retries=s.getint("RETRY_TIMES"))
        return spider

    def _say_browser_unavailable(self, spider=None):
        self.crawler.stats.set_value("landing/browser/unavailable", 1)
        self.logger.warning(
            "LANDING_DRIVER=auto, but LANDING_CHROMIUM=%r is not an executable: DOIs that need a browser keep "
            "their HTTP class. Install Debian's chromium-headless-shell (apt-get install chromium-headless-shell), "
            "or set LANDING_DRIVER=http to say that is what you want.",
            config.of(self.crawler).chromium,
        )

    async def start(self):
        try:
            async for request_or_item in self.planner.start():
                yield request_or_item
        except (StoreError, RunError) as error:
            self.crawler.stats.set_value("landing/run/unreadable", str(error))
            self.logger.error("Cannot read or record the run in LANDING_DOCS: %s", error)
        except redis.RedisError as error:
            self.crawler.stats.set_value("landing/run/unreadable", f"LANDING_FRONTIER_REDIS: {error}")
            self.logger.error("Cannot reach the shared frontier (LANDING_FRONTIER_REDIS): %s", error)

    # The planner's API requests: listing (landing.sampler.listing), samples (landing.sampler.samples), registry
    # deltas (landing.sampler.delta_watch).
    def api_failed(self, failure):
        return self.planner.api.failed(failure)

    def parse_members(self, response):
        return self.planner.listing.parse_members(response)

    def parse_clients(self, response):
        return self.planner.listing.parse_clients(response)

    def parse_count(self, response):
        return self.planner.listing.parse_count(response)

    async def parse_delta(self, response):
        async for request in self.planner.deltas.parse(response):
            yield request

    async def parse_sample(self, response):
        async for output in self.planner.samples.parse_sample(response, self.planner.run):
            yield output

    async def parse_shared_sample(self, response):
        await self.planner.samples.parse_shared_sample(response, self.planner.run)

    # The visitor's requests: a DOI's chain over HTTP, and its visit with Chromium.
    def parse_handle(self, response):
        return self.visitor.parse_handle(response)

    def parse_page(self, response):
        return self.visitor.parse_page(response)

    def visit_failed(self, failure):
        return self.visitor.visit_failed(failure)

    async def parse_browser(self, response):
        return await self.visitor.parse_browser(response)

    async def browser_failed(self, failure):
        return await self.visitor.browser_failed(failure)
