"""The resident matcher: one long-lived `Matcher` (landing.match.answering) inside a running crawler, answering inputs
as they come (the service's requests, a stream's entries) with the cascade `scrapy match` runs, its questions asked
through the crawler's engine (every middleware, robots and politeness), its answers and results cached across inputs.

`start_resident(runner, holder)` starts the crawl (a `ResidentSpider`, which never closes on idle) in a running
asyncio reactor and returns the crawler and its Matcher once the spider is open.
"""

import asyncio
from pathlib import Path

import scrapy
from scrapy import signals
from scrapy.exceptions import DontCloseSpider
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.defer import Deferred

from landing import config
from landing.config import trusted
from landing.match.answer_cache import answers_of
from landing.match.answering import matcher_of
from landing.match.loaded_artifact import ARTIFACT, ArtifactHolder


class ResidentSpider(scrapy.Spider):
    """A spider that makes no request of its own and never closes on idle: the Matcher's questions go through its
    crawler's engine for as long as the crawler runs."""

    name = "resident"
    # A client waits for the answer: a host that is down fails it after RETRY_TIMES, not after an outage's minutes.
    custom_settings = {
        "ITEM_PIPELINES": {},
        "LANDING_PROGRESS_INTERVAL": 0,
        "LANDING_OUTAGE_MAX": 0,
        "LANDING_BACKOFF_MAX": 2,
    }

    def __init__(self, holder: ArtifactHolder | None = None, answers=None, opened=None, **kwargs):
        """holder: the artifact (default: LANDING_ARTIFACTS_DIR's latest, if any); answers: the result cache (default:
        landing.match.answer_cache.answers_of the settings); opened(matcher) is called once the Matcher can answer."""
        super().__init__(**kwargs)
        self.holder, self.answers, self.opened, self.matcher = holder, answers, opened, None
        self.stopping = self.watching = None

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        crawler.signals.connect(spider.idle, signal=signals.spider_idle)
        return spider

    def idle(self):
        raise DontCloseSpider  # idle is its resting state: inputs arrive from outside the engine

    async def start(self):
        cfg = config.of(self.crawler)
        answers = self.answers if self.answers is not None else answers_of(cfg)
        if self.holder is None:
            self.holder = ArtifactHolder(
                Path(cfg.artifacts_dir) / ARTIFACT, required=False, trust=lambda d: trusted(d, self.crawler.settings)
            )
        # The service's clients share its page slots: a share of them is kept from any one (docs/service.md).
        self.matcher = matcher_of(self.crawler, self.holder, answers, self.logger, reserve=cfg.serve_slot_reserve)
        self.stopping = asyncio.Event()
        if cfg.serve_artifact_seconds:
            self.watching = asyncio.ensure_future(self.holder.watch(cfg.serve_artifact_seconds, self.stopping))
        if self.opened is not None:
            self.opened(self.matcher)
        return
        yield  # an async generator that yields nothing: the spider's requests are the Matcher's

    def closed(self, reason):
        if self.stopping is not None:
            self.stopping.set()  # the artifact is no longer watched
        if self.matcher is not None:
            self.matcher.closed = True


async def start_resident(runner, holder: ArtifactHolder | None = None, answers=None):
    """(crawler, matcher, done) for a ResidentSpider crawl started on `runner` (a CrawlerProcess's or runner's, in
    its running asyncio reactor); done: an asyncio future of the crawl's end. Raises the crawl's error when it ended
    before its spider opened."""
    opened = asyncio.get_running_loop().create_future()
    crawler = runner.create_crawler(ResidentSpider)
    done = runner.crawl(crawler, holder=holder, answers=answers, opened=opened.set_result)
    done = maybe_deferred_to_future(done) if isinstance(done, Deferred) else asyncio.ensure_future(done)
    await asyncio.wait({opened, done}, return_when=asyncio.FIRST_COMPLETED)
    if not opened.done():
        done.result()  # the crawl's own error, if it raised one
        raise RuntimeError("the matcher's crawl ended before its spider opened (see the log)")
    return crawler, opened.result(), done
