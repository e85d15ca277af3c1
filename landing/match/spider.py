"""matcher: turn URLs seen on the web into DOIs, cheapest method first, saying how each match was verified.

The policy is landing.core.cascade's; this spider only answers its questions with Scrapy requests
(landing.match.lookups), holds each input to LANDING_MATCH_DEADLINE, and yields each Result's JSON.
"""

import asyncio

import scrapy

from landing import config
from landing.core.cascade import Matching, Setup, drive_async
from landing.core.decisions import Decisions
from landing.core.results import LookupFailed
from landing.match.lookups import Lookups

INPUTS = "matcher-inputs"


def _short(text: str) -> str:
    """An input as a log line names it: a megabyte of junk is not repeated in the log."""
    return text if len(text) <= 200 else f"{text[:200]}... ({len(text):,} characters)"


class MatcherSpider(scrapy.Spider):
    name = "matcher"
    # The sampler's pipelines and progress lines are not the matcher's; its output is the JSON it prints.
    custom_settings = {"ITEM_PIPELINES": {}, "LANDING_PROGRESS_INTERVAL": 0, "LOG_LEVEL": "WARNING"}

    @classmethod
    def update_settings(cls, settings):
        super().update_settings(settings)
        # Inputs enter through their own download slot, beside the crawl's: AutoThrottle's start delay must not
        # pace them. At the spider's priority at least, as custom_settings would set it: at the project's, the
        # inputs went unslotted and were paced as a publisher's host is.
        slots = {**settings.getdict("DOWNLOAD_SLOTS"), INPUTS: {"concurrency": 64, "delay": 0}}
        settings.set("DOWNLOAD_SLOTS", slots, priority=max(settings.getpriority("DOWNLOAD_SLOTS"), 30))

    def __init__(self, inputs=(), decisions=None, fetch=True, **kwargs):
        super().__init__(**kwargs)
        self.inputs, self.decisions, self.fetch = list(inputs), decisions or Decisions(), fetch
        self.stopping, self.inflight, self.lookups = False, set(), None

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        cfg = config.of(crawler)
        spider.endpoints = (cfg.doi_resolver, cfg.crossref_api, cfg.datacite_api, cfg.mailto)
        spider.setup = Setup(
            decisions=spider.decisions,
            resolver_hosts=cfg.resolver_hosts,
            fetch=spider.fetch,
            pieces=cfg.match_pieces,
            candidates=cfg.match_candidates,
            text_candidates=cfg.match_text_candidates,
            requests=cfg.match_requests,
            evidence=cfg.match_evidence,
        )
        spider.deadline, spider.concurrency = cfg.match_deadline, cfg.match_concurrency
        return spider

    async def start(self):
        self.lookups = Lookups(self.crawler.engine, *self.endpoints)
        self.running = asyncio.Semaphore(self.concurrency)
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

    def stop_matching(self):
        """Stop at once, as a first SIGTERM or Ctrl-C asks: no input starts, those in progress are dropped (they
        print no line), and every network question in flight is cancelled rather than waited for."""
        self.stopping = True
        for work in list(self.inflight):
            work.cancel()
        if self.lookups is not None:
            self.lookups.cancel()

    async def match(self, response):
        if self.stopping:
            return
        matching = Matching(response.meta["input"], self.setup)
        async with self.running:  # bounds what is held at once (page bodies awaiting their checks)
            found = None if self.stopping else await self._bounded(matching)
        if found is not None:
            yield {"number": response.meta["number"], **found.to_json()}

    async def _bounded(self, matching: Matching):
        """The input's Result within its deadline; None when the run was stopped first."""
        work = asyncio.ensure_future(drive_async(matching, self.lookups.answer))
        self.inflight.add(work)
        try:
            return await asyncio.wait_for(work, self.deadline or None)
        except TimeoutError:
            return matching.stopped("deadline", f"no answer within {self.deadline:g} s")
        except asyncio.CancelledError:
            if self.stopping and not asyncio.current_task().cancelling():
                return None
            raise
        except LookupFailed as error:  # a registry that did not answer is no "not found": say which it was
            self.logger.warning("matching %r: %s", _short(matching.text), error)
            return matching.stopped("lookup-failed", str(error))
        except Exception as error:  # one odd input must cost its own answer, never the others' or a silent gap
            # The user's terminal gets one line; the traceback is for whoever runs with -L DEBUG.
            self.logger.error("matching %r failed: %s: %s", _short(matching.text), type(error).__name__, error)
            self.logger.debug("matching %r failed", _short(matching.text), exc_info=True)
            return matching.stopped("error", f"{type(error).__name__}: {error}")
        finally:
            self.inflight.discard(work)
