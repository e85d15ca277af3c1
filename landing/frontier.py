"""The bounded frontier: how many sampled DOIs may be in the crawl at once, so memory does not grow with the run.

A DOI enters when its visit is scheduled (or its owner's sample is asked for, reserving the sample's size) and
leaves when its final snapshot is stored, so the scheduler, the downloader and the pipelines together never
hold more than LANDING_FRONTIER DOIs' requests and bodies. The spider asks for the next owners as it drains.
"""
import asyncio


class Frontier:
    def __init__(self, bound: int):
        self.bound, self.size = bound, 0
        self._changed = asyncio.Event()

    @classmethod
    def of(cls, crawler):
        """The crawl's one frontier (the spider fills it; DocumentPipeline empties it)."""
        if getattr(crawler, "landing_frontier", None) is None:
            crawler.landing_frontier = cls(crawler.settings.getint("LANDING_FRONTIER"))
        return crawler.landing_frontier

    async def enter(self, n: int = 1) -> None:
        """Wait for room for n more DOIs (all at once when the frontier is empty, whatever n), then take it."""
        while self.size and self.size + n > self.bound:
            self._changed.clear()
            await self._changed.wait()
        self.size += n

    def leave(self, n: int = 1) -> None:
        self.size -= n
        self._changed.set()

    async def drained(self) -> None:
        """Wait until every DOI that entered has left."""
        while self.size > 0:
            self._changed.clear()
            await self._changed.wait()
