"""The resident matcher: one long-lived `Matcher` inside a running crawler, answering inputs as they come (the
service's requests, a stream's entries) with the cascade `scrapy match` runs, its questions asked through the
crawler's engine (every middleware, robots and politeness), its answers and results cached across inputs.

`start_resident(runner, holder)` starts the crawl (a `ResidentSpider`, which never closes on idle) in a running
asyncio reactor and returns the crawler and its Matcher once the spider is open.
"""

import asyncio
from collections import Counter
from dataclasses import replace
from pathlib import Path

import scrapy
from scrapy import signals
from scrapy.exceptions import DontCloseSpider
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.defer import Deferred

from landing import config
from landing.config import trusted
from landing.core.cascade import Matching, Setup, fetching
from landing.core.decisions import Decisions
from landing.match.answering import bounded
from landing.match.artifact import ARTIFACT, ArtifactHolder
from landing.match.lookups import Lookups
from landing.match.shared import answers_of

# A result that stopped says nothing lasting about its input: asked again, it may be answered.
STOPS = frozenset({"deadline", "lookup-failed", "error", "request-cap"})


class MatcherClosed(RuntimeError):
    """The matcher was closed (the service is stopping) before the input was answered."""


def stopped(result: dict) -> bool:
    """Whether a result's JSON is a stop (deadline, a registry that did not answer, an error, the request cap).

    >>> stopped({"evidence": [{"step": "fetch"}, {"step": "deadline"}]}), stopped({"evidence": []})
    (True, False)
    """
    evidence = result.get("evidence") or ()
    return bool(evidence) and evidence[-1].get("step") in STOPS


def base_setup(cfg: config.Config) -> Setup:
    """The caps every input is matched with (LANDING_MATCH_*), before the artifact and the fetch policy."""
    return Setup(
        decisions=Decisions(),
        resolver_hosts=cfg.resolver_hosts,
        fetch=True,
        pieces=cfg.match_pieces,
        candidates=cfg.match_candidates,
        text_candidates=cfg.match_text_candidates,
        requests=cfg.match_requests,
        evidence=cfg.match_evidence,
    )


class Matcher:
    """Long-lived: answers inputs a call each, any number of calls at once (up to `concurrency` of them running the
    cascade), with the artifact `holder` holds when the input starts, the caps and deadline of `scrapy match`."""

    def __init__(
        self,
        holder: ArtifactHolder,
        base: Setup,
        ask,
        answers,
        *,
        deadline: float,
        concurrency: int,
        logger,
        cancel=None,
    ):
        """ask: the cascade's questions answered (Lookups.answer); answers: the result cache (landing.match.shared's
        LocalAnswers or SharedAnswers); cancel(): cancels every question in flight (Lookups.cancel)."""
        self.holder, self.base, self.ask, self.answers, self.logger = holder, base, ask, answers, logger
        self.cancel = cancel
        self.deadline, self.running = deadline, asyncio.Semaphore(concurrency)
        self.inflight: set = set()
        self.counts: Counter = Counter()  # inputs; by method, verification and stop; cache hits and misses
        self.current = 0  # inputs being answered now
        self.closed = False
        self._setups: dict = {}
        self._decisions = None

    @property
    def version(self) -> str:
        """The artifact version answers name now ("" without an artifact)."""
        return self.holder.version

    def setup(self, fetch: str) -> Setup:
        """The Setup an input starting now is matched with: the current artifact, the policy `fetch`."""
        decisions = self.holder.decisions
        if decisions is not self._decisions:  # a new version: Setups are rebuilt once, not per input
            self._decisions, self._setups = decisions, {}
        found = self._setups.get(fetch)
        if found is None:
            found = self._setups[fetch] = fetching(replace(self.base, decisions=decisions), fetch)
        return found

    async def match(self, text: str, fetch: str = "known") -> dict:
        """The Result's JSON for `text`, exactly the object `scrapy match` prints for it (without "number");
        ValueError for a fetch policy not in FETCHES; MatcherClosed once the matcher is closed."""
        setup = self.setup(fetch)  # the input keeps the artifact it started with, whatever is reloaded meanwhile
        if self.closed:
            raise MatcherClosed("the matcher is closed")
        version = setup.decisions.version
        self.current += 1
        try:
            found = await self.answers.get_result(version, fetch, text)
            if found is not None:
                self.counts["cache-hits"] += 1
                self._count(found)
                return found
            self.counts["cache-misses"] += 1
            async with self.running:  # bounds what is held at once (page bodies awaiting their checks)
                if self.closed:  # stopped while this input waited for its turn
                    raise MatcherClosed("the matcher was closed before the input's turn came")
                result = await bounded(
                    Matching(text, setup), self.ask, self.deadline, self.logger, inflight=self.inflight
                )
            if result is None:
                raise MatcherClosed("the matcher was closed while the input was being answered")
            found = result.to_json()
            if not stopped(found):
                await self.answers.put_result(version, fetch, text, found)
            self._count(found)
            return found
        finally:
            self.current -= 1

    def _count(self, result: dict) -> None:
        self.counts["inputs"] += 1
        self.counts[("answer", (result["method"] or "none", result["verification"] or "none"))] += 1
        if stopped(result):
            self.counts[("stopped", result["evidence"][-1]["step"])] += 1

    def stats(self) -> dict:
        """Counters for /metrics and /healthz: inputs, by_answer ((method, verification) -> inputs; "none" for no
        match), stopped (why -> inputs), cache_hits, cache_misses, in_flight, version, and the answers cache's own
        counters (`answers`)."""
        by: dict = {}
        for key, value in self.counts.items():
            if isinstance(key, tuple):
                by.setdefault(key[0], {})[key[1]] = value
        return {
            "inputs": self.counts["inputs"],
            "by_answer": by.get("answer", {}),
            "stopped": by.get("stopped", {}),
            "cache_hits": self.counts["cache-hits"],
            "cache_misses": self.counts["cache-misses"],
            "in_flight": self.current,
            "version": self.version,
            "answers": dict(getattr(self.answers, "stats", {}) or {}),
        }

    def stop(self) -> None:
        """Refuse new inputs and drop those in progress (each raises MatcherClosed), their questions and page fetches
        cancelled rather than waited for."""
        self.closed = True
        for work in list(self.inflight):
            work.cancel()
        if self.cancel is not None:
            self.cancel()

    async def close(self) -> None:
        """stop(), and close the result cache."""
        self.stop()
        await self.answers.close()


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
        landing.match.shared.answers_of the settings); opened(matcher) is called once the Matcher can answer."""
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
        lookups = Lookups.of(self.crawler, answers)
        if self.holder is None:
            self.holder = ArtifactHolder(
                Path(cfg.artifacts_dir) / ARTIFACT, required=False, trust=lambda d: trusted(d, self.crawler.settings)
            )
        self.matcher = Matcher(
            self.holder,
            base_setup(cfg),
            lookups.answer,
            answers,
            deadline=cfg.match_deadline,
            concurrency=cfg.match_concurrency,
            logger=self.logger,
            cancel=lookups.cancel,
        )
        self.lookups, self.stopping = lookups, asyncio.Event()
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
