"""matcher: turn URLs seen on the web into DOIs, cheapest method first, saying how each match was verified.

The policy is landing.core.matching.cascade's; this spider only hands each input to the Matcher (landing.match.answering),
whose questions are Scrapy requests (landing.match.lookups), and yields each Result's JSON.
"""

import scrapy

from landing import config
from landing.core.matching.decisions import Decisions
from landing.match.answer_cache import answers_of
from landing.match.answering import MatcherClosed, matcher_of
from landing.match.cache_layers import stack
from landing.match.loaded_artifact import Held

INPUTS = "matcher-inputs"


def inputs_slot(settings, cfg) -> None:
    """Inputs enter through their own download slot, beside the crawl's: AutoThrottle's start delay must not pace
    them. At the spider's priority at least, as custom_settings would set it: at the project's, the inputs went
    unslotted and were paced as a publisher's host is."""
    slots = {**settings.getdict("DOWNLOAD_SLOTS"), INPUTS: {"concurrency": 64, "delay": 0}}
    settings.set("DOWNLOAD_SLOTS", slots, priority=max(settings.getpriority("DOWNLOAD_SLOTS"), 30))


class MatcherSpider(scrapy.Spider):
    name = "matcher"
    # The sampler's pipelines and progress lines are not the matcher's; its output is the JSON it prints. An input
    # waits for an answer: a host that is down fails it after RETRY_TIMES, paused at most 2 s apart, never after an
    # outage's minutes.
    custom_settings = {
        "ITEM_PIPELINES": {},
        "LANDING_PROGRESS_INTERVAL": 0,
        "LOG_LEVEL": "WARNING",
        "LANDING_OUTAGE_MAX": 0,
        "LANDING_BACKOFF_MAX": 2,
    }
    setting_changes = (inputs_slot,)  # landing.addon runs them, once the crawl's Config is read

    def __init__(self, inputs=(), decisions=None, fetch=True, **kwargs):
        super().__init__(**kwargs)
        self.inputs, self.decisions, self.fetch = list(inputs), decisions or Decisions(), fetch
        self.stopping, self.matcher = False, None

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        cfg = config.of(crawler)
        # With LANDING_MATCH_REDIS the registries' and the resolver's answers are shared with every other matcher.
        spider.answers = answers_of(cfg)
        spider.policy = cfg.match_fetch if spider.fetch else "none"  # which URLs are fetched: FETCHES
        return spider

    async def start(self):
        # No result is kept: an input given twice is matched twice, as each line of the input asks.
        self.matcher = matcher_of(self.crawler, Held(self.decisions), self.answers, self.logger, results=stack())
        for index, text in enumerate(self.inputs):
            if self.stopping:
                return
            # A data: URL costs no network: it only hands each input to a callback inside the engine.
            yield scrapy.Request(
                f"data:,{index}",
                callback=self.match,
                dont_filter=True,
                meta={"input": text, "number": index, "download_slot": INPUTS},
            )

    async def closed(self, reason):
        await self.answers.close()

    def stop_matching(self):
        """Stop at once, as a first SIGTERM or Ctrl-C asks: no input starts, those in progress are dropped (they
        print no line), and every network question in flight is cancelled rather than waited for."""
        self.stopping = True
        if self.matcher is not None:
            self.matcher.stop()

    async def match(self, response):
        if self.stopping:
            return
        try:
            found = await self.matcher.match(response.meta["input"], self.policy)
        except MatcherClosed:  # stopped while it was answered: the input is dropped
            return
        yield {"number": response.meta["number"], **found}
