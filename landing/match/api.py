"""Python API: match URLs (or DOIs, PIIs) to DOIs from code, with the spider `scrapy match` runs.

    from landing.match.api import match, amatch
    results = match(["https://journals.plos.org/plosone/article?id=10.1371/journal.pone.0160617"])
    results = await amatch([...])  # from asyncio code: the caller's loop keeps running meanwhile

Each call is one crawl of MatcherSpider (the cascade, Lookups, middlewares, politeness and robots.txt of `scrapy
match`) on Scrapy's asyncio reactor, which runs in a daemon thread of its own from the first call on
(landing.match.reactor_thread): call them as often as you like, from any thread or event loop. Ctrl-C during a call
stops its crawl (as `scrapy match`'s first Ctrl-C does) and is raised to the caller once the crawl has stopped.
"""

import asyncio
import contextlib
import logging
from pathlib import Path

from scrapy import signals
from scrapy.crawler import AsyncCrawlerRunner
from scrapy.settings import Settings

from landing import clock, config
from landing import settings as project_settings
from landing.config import trusted
from landing.core.matching.cascade import FETCH_POLICIES, FETCHES
from landing.crawl.signals import crawl_stopping
from landing.match.loaded_artifact import ARTIFACT, ArtifactError, ArtifactHolder, load_artifact
from landing.match.matcher_spider import MatcherSpider
from landing.match.reactor_thread import ReactorError, foreign_loop, running, usable

# The loaders are in loaded_artifact.py.
__all__ = ["ARTIFACT", "ArtifactError", "ReactorError", "amatch", "load_artifact", "match"]
CLOCK = ("LANDING_CLOCK", "LANDING_CLOCK_SPEED", "LANDING_CLOCK_SINCE")
logger = logging.getLogger(__name__)
_warned: set[str] = set()


def match(inputs, settings: dict | None = None, artifact=None, fetch: bool | str = True) -> list[dict]:
    """One result per input, in order (docs/matching.md "Output"): settings override the project's; artifact: a
    domain-decision-structure.json (default: LANDING_ARTIFACTS_DIR's); fetch: see `policy`."""
    inputs, wanted = checked(inputs, fetch)
    usable()  # before the artifact is read: a process that cannot run the crawl hears so first
    crawl = _Crawl.prepare(inputs, settings, artifact, wanted)
    thread = running(crawl.settings)
    if thread.here():
        raise ReactorError("match() waits for the reactor's thread, and this is it: await amatch() here instead")
    future = None
    try:
        future = thread.submit(crawl.run())
        return future.result()
    except KeyboardInterrupt:
        thread.call(crawl.stop)  # after the crawl's start on the loop, whenever the signal came
        if future is not None:
            with contextlib.suppress(Exception):
                future.result()  # the crawl stopped: the reactor is free for the next call
        raise


async def amatch(inputs, settings: dict | None = None, artifact=None, fetch: bool | str = True) -> list[dict]:
    """match(), awaited: the caller's event loop runs on while the crawl does; cancelling stops the crawl."""
    inputs, wanted = checked(inputs, fetch)
    loop = foreign_loop()
    if loop is not None:  # inside a crawler's own asyncio reactor: the crawl runs beside it, on its loop
        crawl = await asyncio.to_thread(_Crawl.prepare, inputs, settings, artifact, wanted)
        work = loop.create_task(crawl.run())
        stop = crawl.stop
    else:  # reading the artifact and starting the thread block: not on the caller's loop
        crawl, thread = await asyncio.to_thread(_started, inputs, settings, artifact, wanted)
        work = asyncio.wrap_future(thread.submit(crawl.run()))

        def stop():
            thread.call(crawl.stop)

    try:
        return await asyncio.shield(work)  # a cancel stops the crawl rather than tearing its coroutine apart
    except asyncio.CancelledError:
        stop()
        await asyncio.wait([work])
        raise


def policy(fetch: bool | str) -> str | None:
    """The fetch policy a call asks for: None (True: LANDING_MATCH_FETCH decides, as for `scrapy match`), or
    one of FETCHES (False is "none").

    >>> policy(True), policy(False), policy("all")
    (None, 'none', 'all')
    >>> policy("some")
    Traceback (most recent call last):
    ValueError: fetch='some': use True, False, or one of none, known, all
    """
    if fetch is True or fetch is False:
        return None if fetch else "none"
    if fetch in FETCHES:
        return fetch
    raise ValueError(f"fetch={fetch!r}: use True, False, or one of {', '.join(FETCHES)}")


def checked(inputs, fetch: bool | str) -> tuple[list[str], str | None]:
    """(the inputs as a list, the fetch policy); TypeError or ValueError for what no call can match."""
    if isinstance(inputs, str | bytes):
        raise TypeError("inputs: a list of strings, not one string (match([text]) matches one)")
    inputs = list(inputs)
    odd = next((n for n, text in enumerate(inputs) if not isinstance(text, str)), None)
    if odd is not None:
        raise TypeError(f"inputs[{odd}] is {type(inputs[odd]).__name__}, not a string: every input is a string")
    return inputs, policy(fetch)


def _started(inputs, settings, artifact, wanted):
    crawl = _Crawl.prepare(inputs, settings, artifact, wanted)
    return crawl, running(crawl.settings)


class _Crawl:
    """One call: MatcherSpider's crawl over its inputs, run on the reactor's loop; results kept by input number."""

    def __init__(self, inputs: list, settings: Settings, decisions, fetch: bool):
        self.inputs, self.settings, self.decisions, self.fetch = inputs, settings, decisions, fetch
        self.results: dict[int, dict] = {}
        self.crawler, self.stopping = None, False

    @classmethod
    def prepare(cls, inputs: list[str], settings: dict | None, artifact, wanted: str | None) -> "_Crawl":
        """The call's settings and artifact, checked (SettingsError, ArtifactError) before any crawl starts; wanted:
        the fetch policy (`policy`)."""
        merged = Settings()
        merged.setmodule(project_settings)
        merged.update(settings or {})
        if wanted in FETCH_POLICIES:
            merged.set("LANDING_MATCH_FETCH", wanted)
        cfg = config.of_settings(merged)
        if any(name in (settings or {}) for name in CLOCK):  # the caller's clock is left alone unless set here
            clock.set_clock(cfg.clock, cfg.clock_speed, cfg.clock_since)
        path = artifact or Path(cfg.artifacts_dir) / ARTIFACT
        held = ArtifactHolder(path, required=bool(artifact), trust=lambda d: trusted(d, merged))
        if held.warning and held.warning not in _warned:  # once a process: a program calling often is not flooded
            _warned.add(held.warning)
            logger.warning("match: %s", held.warning)
        return cls(inputs, merged, held.decisions, fetch=wanted != "none")

    async def run(self) -> list[dict | None]:
        if not self.stopping:
            runner = AsyncCrawlerRunner(self.settings)
            self.crawler = runner.create_crawler(MatcherSpider)
            self.crawler.signals.connect(self._scraped, signal=signals.item_scraped)
            self.crawler.signals.connect(self._opened, signal=signals.spider_opened)
            await runner.crawl(self.crawler, inputs=self.inputs, decisions=self.decisions, fetch=self.fetch)
        return [self.results.get(n) for n in range(len(self.inputs))]

    def stop(self) -> None:
        """Stop at once, as `scrapy match`'s first Ctrl-C does: no input starts, those in progress are dropped."""
        self.stopping = True
        spider = self.crawler.spider if self.crawler is not None else None
        if spider is not None:
            spider.stop_matching()
            # Every download in flight dropped, robots.txt's too: none outlives the call, waiting out its timeout.
            self.crawler.signals.send_catch_log(crawl_stopping)
            self._stopped = asyncio.ensure_future(self.crawler.stop_async())  # kept: a task needs a reference

    def _opened(self, spider):
        if self.stopping:  # stopped while the spider was being made: it starts no input
            spider.stop_matching()

    def _scraped(self, item, response=None, spider=None):
        self.results[item.pop("number")] = item
