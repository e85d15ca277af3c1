"""The registry watcher: every LANDING_DELTA_HOURS, continuous mode asks Crossref and DataCite which DOIs were updated
since its last look, one cursor per registry over every updated work, and stores on each prefix what the resource
URLs' domains say (rules in landing.core.continuous.registry_deltas; docs/continuous.md "Registry deltas").

Its requests are the sampler's API requests (landing.sampler.answers.Api: politeness, mailto, retries), answered
through the spider's `parse_delta`; the downloader counts them as every request (landing.crawl.sent_requests), so
they are in the day's budget.
"""

import asyncio
import math
from datetime import timedelta

from landing import clock
from landing.core.continuous import registry_deltas
from landing.core.registries import crossref, datacite

STATS = "landing/delta/"


class DeltaWatch:
    """One look at a time: its windows, what each registry's pages showed so far, and its requests still out.

    api: the sampler's landing.sampler.answers.Api; callbacks: the spider (its parse_delta answers the requests made
    here); cfg: the crawl's landing.config.Config.
    """

    def __init__(self, api, callbacks, cfg, crawler, logger):
        self.api = api
        self.callbacks = callbacks
        self.cfg = cfg
        self.crawler = crawler
        self.logger = logger
        self.run, self.began = None, None
        self._reset()

    def _reset(self):
        self.windows: dict[str, registry_deltas.Window] = {}
        self.looks: dict[str, registry_deltas.Look] = {}
        self.tallies: dict[str, dict] = {}  # registry -> {prefix: its tally, None when not known}, read once a look
        self.pages: dict[str, int] = {}
        self.out: set[str] = set()  # registries whose paging is not over
        self.unanswered: set[str] = set()
        self.firsts: dict[str, str] = {}  # registries looked at for the first time: their window starts now
        self.over = asyncio.Event()

    def requests(self, run, state: dict, now):
        """The first request of each registry's look at `now` (a first look asks nothing: it starts now)."""
        self._reset()
        # The look is dated when it began, as the slice is: due again LANDING_DELTA_HOURS of slices later.
        self.run, self.began = run, now.strftime(clock.FORMAT)
        s = self.cfg
        overlap, longest = timedelta(minutes=s.delta_overlap_minutes), timedelta(days=s.delta_max_days)
        ends = state.get("continuous/delta") or {}
        for registry in s.sources:
            window = registry_deltas.window(ends.get(registry), now, overlap, longest)
            if window is None:
                self.firsts[registry] = now.strftime(clock.FORMAT)
                continue
            if window.capped:
                self.logger.warning(
                    "%s was last asked for updates at %s, more than %s days ago: asking from %s only, the prefixes' "
                    "refreshes see what moved before",
                    registry,
                    ends[registry],
                    s.delta_max_days,
                    window.start.strftime(clock.FORMAT),
                )
            self.windows[registry] = window
            self.looks[registry] = registry_deltas.Look(keep=s.changed_dois)
            self.tallies[registry], self.pages[registry] = {}, 0
            self.out.add(registry)
            yield self._request(registry, self._first_url(registry, window))
        if not self.out:
            self.over.set()

    def _first_url(self, registry: str, window) -> str:
        if registry == "crossref":
            return crossref.updates_url(self.cfg.crossref_api, window.start, window.end, self.cfg.mailto)
        return datacite.updates_url(self.cfg.datacite_api, window.start, window.end)

    def _request(self, registry: str, url: str):
        self.crawler.stats.inc_value(STATS + "requests")
        return self.api.request(url, self.callbacks.parse_delta, delta=registry)

    async def parse(self, response):
        """A page of a registry's updates: its DOIs counted against their prefixes' tallies, then the next page."""
        registry = response.meta["delta"]
        answered = self.api.answer(response, _parser(registry))
        if answered is None:
            return  # asked again, or refused (`failed`)
        found, following, total = answered
        read = registry_deltas.entries(found)
        tallies = self.tallies[registry]
        if unknown := sorted({entry.prefix for entry in read} - tallies.keys()):
            tallies.update(await self.run.docs.call(self.run.records.tallies, registry, unknown))
        self.looks[registry].add(read, tallies)
        self.crawler.stats.inc_value(STATS + "dois", len(found))
        self.pages[registry] += 1
        if following and self.pages[registry] > math.ceil(total / crossref.UPDATES_ROWS) + 1:
            self.api.refused(response.request, f"more pages than the {total} updates the API counts")
            return
        if following and registry == "crossref":
            window = self.windows[registry]
            following = crossref.updates_url(
                self.cfg.crossref_api, window.start, window.end, self.cfg.mailto, following
            )
        if following:
            yield self._request(registry, following)
        else:
            self._done(registry)

    async def ended(self, closing: asyncio.Event) -> bool:
        """Whether every registry's paging ended before the crawl began `closing` (a request given up as the crawl
        stops settles nothing)."""
        waits = [asyncio.ensure_future(self.over.wait()), asyncio.ensure_future(closing.wait())]
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        for wait in waits:
            wait.cancel()
        return self.over.is_set() and not closing.is_set()

    def failed(self, registry: str) -> None:
        """A request of `registry`'s look got no usable answer: its window is asked again at the next look."""
        self.unanswered.add(registry)
        self._done(registry)

    def _done(self, registry: str) -> None:
        self.out.discard(registry)
        if not self.out:
            self.over.set()

    async def settle(self, state: dict) -> dict:
        """Once every registry's paging is over: what the look saw stored on the prefixes, and each registry whose
        paging ended its window's end in the state, so the next look starts there."""
        run, stats = self.run, self.crawler.stats
        figures = {"dois": sum(look.dois for look in self.looks.values()), "changes": 0, "signalled": 0}
        for registry, look in sorted(self.looks.items()):
            found = await run.docs.call(run.records.observe, registry, look, self.cfg.changed_dois)
            figures["changes"] += found["changes"]
            figures["signalled"] += found["signalled"]
        ends = {r: w.end.strftime(clock.FORMAT) for r, w in self.windows.items() if r not in self.unanswered}
        ends.update(self.firsts)
        state = await run.docs.call(run.records.looked, state, ends, figures, self.began)
        stats.inc_value(STATS + "changes", figures["changes"])
        stats.inc_value(STATS + "signalled", figures["signalled"])
        if ends:
            stats.set_value(STATS + "last", max(ends.values()))
        if self.windows:
            self.logger.info(
                "Registry deltas: %d updated DOIs read (%s), %d on a domain their prefix was not seen on, %d prefixes "
                "signalled%s",
                figures["dois"],
                ", ".join(f"{r} {self.pages[r]} pages" for r in sorted(self.windows)),
                figures["changes"],
                figures["signalled"],
                f"; asked again next look: {', '.join(sorted(self.unanswered))}" if self.unanswered else "",
            )
        self._reset()
        return state


def _parser(registry: str):
    return crossref.parse_updates if registry == "crossref" else datacite.parse_updates
