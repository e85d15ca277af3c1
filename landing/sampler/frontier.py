"""The bounded frontier: how many sampled DOIs may be in the crawl at once, so memory does not grow with the run.

A DOI enters when its visit is scheduled (or its owner's sample is asked for, reserving the sample's size) and
leaves when its final snapshot is stored, so the scheduler, the downloader and the pipelines together never
hold more than LANDING_FRONTIER DOIs' requests and bodies. The spider asks for the next owners as it drains.
"""

import asyncio

from landing import config
from landing.sampler.frontier_redis import scheduler_of


class Frontier:
    def __init__(self, bound: int):
        self.bound = bound
        self.size = 0  # DOIs in the crawl: entered and not left
        self._changed = asyncio.Event()

    @classmethod
    def of(cls, crawler):
        """The crawl's one frontier (the spider fills it; DocumentPipeline empties it)."""
        if getattr(crawler, "landing_frontier", None) is None:
            cfg = config.of(crawler)
            # Shared, the bound is per worker: N workers hold N times the DOIs, each as many as one process would.
            crawler.landing_frontier = (
                SharedFrontier(cfg.frontier * cfg.workers, crawler) if cfg.frontier_redis else cls(cfg.frontier)
            )
        return crawler.landing_frontier

    def queued(self) -> None:
        """A DOI's visit was handed to the scheduler; here it stays in the frontier until its visit is stored."""

    async def enter(self, n: int = 1) -> None:
        """Wait for room for n more DOIs (all at once when the frontier is empty, whatever n), then take it."""
        while not self.room(n):
            await self.changed()
        self.size += n

    def room(self, n: int = 1) -> bool:
        """Whether n more DOIs may enter now (any n when the frontier is empty)."""
        return not self.size or self.size + n <= self.bound

    def force(self, n: int = 1) -> None:
        """n DOIs entered past the bound: a few visits that may not wait (the registries' moves), the bound being a
        memory bound with room to spare."""
        self.size += n

    async def changed(self, seconds: float | None = None) -> None:
        """Wait until a DOI leaves, or `seconds` (None: no limit) pass."""
        self._changed.clear()
        try:
            await asyncio.wait_for(self._changed.wait(), seconds)
        except TimeoutError:
            pass

    def leave(self, n: int = 1) -> None:
        self.size -= n
        self._changed.set()

    def idle(self) -> bool:
        """Nothing in the crawl: every DOI that entered has left."""
        return self.size <= 0

    async def drained(self) -> None:
        """Wait until every DOI that entered has left."""
        while self.size > 0:
            self._changed.clear()
            await self._changed.wait()


class SharedFrontier(Frontier):
    """The bound across the workers of a Redis frontier (landing.sampler.frontier_redis): the DOIs queued or leased there,
    plus the leader's own (samples asked for, visits not yet pushed). A DOI leaves this worker's count once its
    visit is pushed; the workers' acks take it out of Redis."""

    poll = 0.2  # seconds between looks at Redis while the frontier is full: other workers' acks come from there

    def __init__(self, bound: int, crawler):
        super().__init__(bound)
        self.crawler = crawler  # whose scheduler (landing.sampler.frontier_redis.Scheduler) holds the shared frontier

    def _total(self) -> int:
        """This worker's DOIs, and those pending or leased in the run's shared frontier."""
        scheduler = scheduler_of(self.crawler)
        return self.size + (sum(scheduler.lengths()) if scheduler is not None else 0)

    def _held(self) -> bool:
        """Whether this worker holds leases: in hand even when Redis lost their keys."""
        scheduler = scheduler_of(self.crawler)
        return scheduler is not None and bool(scheduler.held)

    def room(self, n: int = 1) -> bool:
        total = self._total()
        return not total or total + n <= self.bound

    async def changed(self, seconds: float | None = None) -> None:
        await asyncio.sleep(self.poll if seconds is None else max(0.0, min(self.poll, seconds)))

    def queued(self) -> None:
        self.leave()

    def idle(self) -> bool:
        return self._total() <= 0 and not self._held()

    async def drained(self) -> None:
        while self._total() > 0 or self._held():
            await asyncio.sleep(self.poll)
