"""The open run as a value: a run opened in the document store (`open_run`), with the parts that sample and visit
it, passed to the planner's walks, the samples and the continuous loop, so that none of them reads another's state.

The lead a run is opened under (`Lead`) says whether this worker still leads it: always when it crawls alone
(`ALONE`), while it holds the lock when workers share a Redis frontier (landing.sampler.leading.SharedLead).
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from landing import clock, config
from landing.core.continuous.freshness import REGISTRY
from landing.core.pages import documents
from landing.core.registries import names
from landing.core.sampling import runs
from landing.sampler.frontier import Frontier
from landing.sampler.frontier_redis import SHARED
from landing.sampler.items import PidItem
from landing.sampler.ledger import Ledger
from landing.sampler.pipelines import Docs

if TYPE_CHECKING:
    from landing.sampler.samples import Samples
    from landing.sampler.visitor import Visitor


class Lead(Protocol):
    """What a run needs of its lead: whether this worker leads it still (`leading`; `holds`, asked of the lock), the run a
    leader that died was on, and where to say which run this worker leads."""

    @property
    def leading(self) -> bool: ...

    @property
    def inherited(self) -> str: ...

    def publish(self, run_id: str) -> None: ...

    def holds(self) -> bool: ...


class Alone:
    """The lead of a crawl that shares its frontier with no other worker: it leads its run from start to end."""

    leading, inherited = True, ""

    def publish(self, run_id: str) -> None:
        """No other worker to tell."""

    def holds(self) -> bool:
        """No other worker to take the lead."""
        return True


ALONE = Alone()


@dataclass(frozen=True)
class OpenRun:
    """A run open in the document store, and what samples and visits it; made by `open_run`.

    docs: the store's thread (landing.sampler.pipelines.Docs); ledger: the run's documents in it; records: the ledger
    the planner opened it with (the Ledger, or continuous mode's landing.sampler.continuous_ledger.ContinuousLedger);
    shared: its visits go through the workers' Redis frontier.
    """

    id: str
    resumed: bool
    docs: Docs
    ledger: Ledger
    records: Any
    frontier: Frontier
    samples: "Samples"
    visitor: "Visitor"
    lead: Lead
    shared: bool
    crawler: Any
    logger: Any

    def pid_and_visit(self, sample: dict, rank: int, doi: str) -> tuple:
        """The pid of a sampled owner's DOI at `rank`, then the first request of its visit (only that, shared)."""
        pid = PidItem(
            documents.pid(
                doi,
                sample["sample/ra"],
                sample["sample/owner"],
                sample["sample/timestamp"],
                names.read("sample", sample),
            )
        )
        first = sample.get("sample/reason") == REGISTRY  # the registries say it moved: before the queued refreshes
        request = self.visitor.visit(pid, (self.id, sample["sample/order"], rank), first)
        if self.shared:
            # To the workers' Redis frontier, queued once under its visit id. The worker that visits the DOI writes
            # its pid, with its visit record: the leader's buffer may die with it before the pid is written.
            request.meta[SHARED] = runs.visit_id(*request.meta["visit"])
            return (request,)
        return pid, request


async def open_run(
    crawler,
    logger,
    lead: Lead,
    wanted: str,
    per_prefix: int,
    frontier: Frontier,
    samples: "Samples",
    visitor: "Visitor",
    records: Callable[[Ledger], Any] | None = None,
) -> tuple[OpenRun, tuple]:
    """(the run, what opening it answered: (its run document, ..., resumed?)): the run `wanted` names (as
    LANDING_RUN does) opened in the store through `records(its ledger)` (the Ledger itself by default), told to the
    lead, its id in the crawl's stats."""
    cfg, docs = config.of(crawler), Docs.of(crawler)
    ledger = Ledger(docs.store, wanted, cfg.sources, cfg.sample_min, cfg.sample_max, per_prefix)
    kept = records(ledger) if records is not None else ledger
    opened = await docs.call(kept.open, clock.stamp())
    run_id = opened[0]["run/id"]
    lead.publish(run_id)
    crawler.stats.set_value("landing/run/id", run_id)
    run = OpenRun(
        id=run_id,
        resumed=opened[-1],
        docs=docs,
        ledger=ledger,
        records=kept,
        frontier=frontier,
        samples=samples,
        visitor=visitor,
        lead=lead,
        shared=bool(cfg.frontier_redis),
        crawler=crawler,
        logger=logger,
    )
    return run, opened
