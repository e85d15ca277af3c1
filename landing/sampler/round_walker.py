"""The continuous planner's walk of its open rounds, paced by the slices: the registries' moves visited at once, the
rest handed to the scheduler as the frontier has room, and never holding a slice past its end.

A full run walks its plan in one go, waiting for the frontier to drain. A continuous slice cannot: its delta look,
its plan and its export are due on the clock whatever the crawl's backlog, and a move the registries showed must be
visited in the slice that read it, not after the rounds queued before it (docs/continuous.md "Registry deltas").
"""

import asyncio
from datetime import datetime

from landing import clock
from landing.core.continuous.freshness import REGISTRY
from landing.core.sampling import runs
from landing.sampler.planner import FULL, paced_walk, sample_visits
from landing.sampler.run import OpenRun

STORED_POLL = 0.2  # real seconds between looks at the store for the registry visits an export waits for


class RoundWalker:
    """One walk of the open rounds, left where the frontier was full when a slice ended and taken up the next."""

    def __init__(self, run: OpenRun, after: int = -1):
        self.run = run
        self.walking = None  # the paced walk under way (landing.sampler.planner.paced_walk), None between walks
        self.to = after  # the last plan order handed to a walk: the next walk starts past it
        self.rushed: set[int] = set()  # orders of the registry samples visited at once, which the walk passes over
        self.pending: list[tuple[int, int]] = []  # (order, rank) of rushed visits not yet seen stored

    @property
    def done(self) -> bool:
        """Every sampled DOI of the plan as it stood at the last step was handed to the scheduler."""
        return self.walking is None

    async def rush(self, record: dict, after: int):
        """The visits of the registry samples past order `after`, handed over at once, past the frontier's bound:
        they are few (tuning.CHANGED_DOIS a prefix), and the plan puts them first."""
        run = self.run
        while chunk := await run.docs.call(run.ledger.chunk, record, after):
            for sample, visited in chunk:
                after = sample["sample/order"]
                if sample.get("sample/reason") != REGISTRY or sample["sample/dois"] is None:
                    return
                self.rushed.add(after)
                self.pending += [(after, rank) for rank, _ in runs.unvisited(sample, visited)]
                async for pid_or_request in sample_visits(run, sample, visited, forced=True):
                    yield pid_or_request

    async def steps(self, record: dict, until: datetime):
        """The open rounds' requests as the frontier has room, until every sampled DOI of `record`'s plan was handed
        over, or the clock reaches `until` while the frontier is full (the walk resumes there next time)."""
        run = self.run
        while True:
            if self.walking is None:
                if record["run/owners"] - 1 <= self.to:
                    return
                self.rushed = {order for order in self.rushed if order > self.to}
                self.walking = paced_walk(run, record, self.to, self.rushed)
                self.to = record["run/owners"] - 1
            async for item in self.walking:
                if item is not FULL:
                    yield item
                    continue
                left = clock.real_seconds(until - clock.now())
                if left <= 0 or not run.lead.leading:
                    return
                await run.frontier.changed(left)
            self.walking = None

    async def settled(self, until: datetime) -> bool:
        """Wait until the rushed visits are stored, or the clock reaches `until`: whether they all were."""
        run = self.run
        while self.pending:
            found = await run.docs.call(_stored, run.docs.store, run.id, self.pending)
            self.pending = [p for p in self.pending if p not in found]
            left = clock.real_seconds(until - clock.now())
            if not self.pending or left <= 0:
                break
            await asyncio.sleep(min(left, STORED_POLL))
        return not self.pending


def _stored(store, run_id: str, pending: list[tuple[int, int]]) -> set[tuple[int, int]]:
    """The (order, rank) of `pending` whose visit is stored, or whose round is closed: its sample gone, and its visits
    with it, once retention dropped them (landing.core.continuous.retention.ledger_to_drop)."""
    gone = {order for order, _ in pending if store.get("sample", runs.sample_id(run_id, order)) is None}
    return {
        (order, rank)
        for order, rank in pending
        if order in gone or store.get("visit", runs.visit_id(run_id, order, rank)) is not None
    }
