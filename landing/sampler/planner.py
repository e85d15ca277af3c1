"""The planner: what the sampler samples next. A full run (FullRun) lists every owner once, stores the plan, then
walks it, asking for each owner's sample and visiting its DOIs only as the bounded frontier drains; a resumed run
walks the same plan and takes sampled owners' DOIs from their stored sample, skipping those already visited.

Continuous sampling replaces the policy (which owners and prefixes, when) behind the same `Planner` seam, and walks
its plan with the same `walk` and `until_visited`; the visitor (landing.sampler.visitor) and the spider stay as
they are. Each planner opens its run as a value (landing.sampler.run.OpenRun) and passes it to what works on it.
"""

from collections.abc import AsyncIterator
from typing import Protocol

from landing import clock
from landing.core.sampling import runs
from landing.sampler.answers import Api
from landing.sampler.frontier import Frontier
from landing.sampler.leading import SharedLead
from landing.sampler.listing import Listing
from landing.sampler.run import ALONE, Lead, OpenRun, open_run
from landing.sampler.samples import Samples

REVISITS = 3  # walks of the plan again for DOIs left without a visit, before the run is left open


class Planner(Protocol):
    """What the spider's `start` yields: API requests, the pid items and first requests of DOI visits, in the
    order the policy wants them; the answers come back through the spider's parse_* callbacks to its parts: the
    listing, the samples (with the open run, once it is open) and the API."""

    listing: Listing
    samples: Samples
    api: Api
    run: OpenRun | None

    def start(self) -> AsyncIterator: ...


class Sampling:
    """The parts every planner holds: the crawl's frontier, its API requests, the listing, the samples, the run
    once it is open, and its lead when workers share a Redis frontier.

    cfg: the crawl's landing.config.Config; visitor: landing.sampler.visitor.Visitor, which makes each DOI's first
    request; callbacks: the spider; retries: RETRY_TIMES, for answers that are not the API's.
    """

    hands_over = False  # sharing a Redis frontier, a leader that stops ends the run for every worker (SharedLead)

    def __init__(self, crawler, cfg, visitor, callbacks, logger, retries: int):
        self.crawler = crawler
        self.cfg = cfg
        self.logger = logger
        self.visitor = visitor
        self.callbacks = callbacks
        self.frontier = Frontier.of(crawler)
        self.api = Api(
            crawler, logger, self.frontier, callbacks.api_failed, self._listing_failed, retries, self._delta_failed
        )
        self.listing = Listing(self.api, callbacks, cfg, crawler, logger)
        self.samples = Samples(self.api, callbacks, cfg, crawler, logger, self.frontier, retries)
        self.run: OpenRun | None = None
        self.lead = SharedLead(self, crawler, logger)
        self.deltas = None  # continuous mode's registry watcher (landing.sampler.delta_watch)

    def _listing_failed(self, source: str) -> None:
        self.listing.answered(source, failed=True)

    def _delta_failed(self, registry: str) -> None:
        if self.deltas is not None:
            self.deltas.failed(registry)

    def start(self):
        return self.lead.share() if self.cfg.frontier_redis else self.run_all(ALONE)

    async def _open(self, lead: Lead, wanted: str, per_prefix: int, records=None) -> tuple:
        """What opening the run answered (landing.sampler.run.open_run); the run is this planner's from now on."""
        self.run, opened = await open_run(
            self.crawler, self.logger, lead, wanted, per_prefix, self.frontier, self.samples, self.visitor, records
        )
        return opened

    def run_all(self, lead: Lead) -> AsyncIterator:
        """The run from its opening to its end, under `lead`: each policy's own."""
        raise NotImplementedError


class FullRun(Sampling):
    """A full run's policy: list, plan, sample each owner, visit every sampled DOI, finish the run."""

    async def run_all(self, lead: Lead = ALONE):
        """The run from its listing to its end, under `lead` (it names the run a leader that died was on, else
        LANDING_RUN is, and hears its id once opened)."""
        stats, s = self.crawler.stats, self.cfg
        record, resumed = await self._open(lead, lead.inherited or s.run, s.sample_min_per_prefix)
        run = self.run
        self.logger.info(
            "%s run %s (started %s, %s)",
            "Resuming" if resumed else "Starting",
            run.id,
            record["run/started"],
            record["run/state"],
        )
        if record["run/state"] == "listing" or record.get("run/listing") == "incomplete":
            for request in self.listing.requests():
                yield request
            await self.listing.over.wait()
            listed = self.listing.owners()
            if listed is None and record["run/state"] == "listing":
                return
            if listed is not None:
                record = await run.docs.call(
                    run.ledger.store_plan,
                    record,
                    *listed,
                    clock.stamp(),
                    self.listing.prefixes_of,
                    self.listing.names_of,
                )
                self.logger.info(
                    "Planned %d owners: at most %d DOIs (LANDING_SAMPLE_MIN/MAX %d/%d, at least %d per listed prefix)",
                    record["run/owners"],
                    record["run/dois-planned"],
                    record["run/sample-min"],
                    record["run/sample-max"],
                    record.get("run/sample-per-prefix", 0),
                )
            self.listing.forget()
        stats.set_value("landing/run/owners", record["run/owners"])
        stats.set_value("landing/run/dois_planned", record.get("run/dois-planned") or 0)
        async for request_or_item in walk(run, record):
            yield request_or_item
        await self.frontier.drained()
        async for request in until_visited(run, record):
            yield request
        if not lead.leading or stats.get_value("landing/run/unvisited"):
            return
        await self._finish(run, record)

    async def _finish(self, run: OpenRun, record: dict):
        stats = self.crawler.stats
        if record.get("run/listing") == "incomplete":
            self.logger.error(
                "Run %s stays open: its owners could not all be listed; the same command lists them "
                "again and samples those missing",
                run.id,
            )
            return
        if stats.get_value("landing/run/samples_failed"):
            self.logger.error(
                "Run %s stays open: %d owners could not be sampled; the same command samples them",
                run.id,
                stats.get_value("landing/run/samples_failed"),
            )
            return
        if not stats.get_value("landing/run/dois"):
            stats.set_value("landing/run/sampled_nothing", 1)
            self.logger.error("Run %s has no sampled DOI: every owner's sample failed or came back empty", run.id)
            return
        await run.docs.call(run.ledger.finish, record, clock.stamp())
        stats.set_value("landing/run/finished", 1)
        self.logger.info("Run %s finished", run.id)


FULL = object()  # what paced_walk yields where the frontier has no room


async def walk(run: OpenRun, record: dict, after: int = -1):
    """Sample and visit the plan's owners past order `after` (-1: from the start) of `run` (its document: `record`),
    as the frontier drains; the DOIs of owners sampled already are visited where no visit is recorded."""
    async for item in paced_walk(run, record, after):
        if item is FULL:
            await run.frontier.changed()
        else:
            yield item


async def paced_walk(run: OpenRun, record: dict, after: int = -1, skip: set[int] = frozenset()):
    """`walk`, yielding FULL where the frontier has no room instead of waiting for it, so that its caller may leave
    the walk and come back to it later; the samples whose order is in `skip` were walked already."""
    while True:
        chunk = await run.docs.call(run.ledger.chunk, record, after)
        if not chunk:
            return
        for sample, visited in chunk:
            if not run.lead.leading:
                return
            after = sample["sample/order"]
            if after in skip:
                continue
            if sample["sample/dois"] is None:
                while not run.frontier.room(sample["sample/size"]):
                    yield FULL
                await run.frontier.enter(sample["sample/size"])
                yield run.samples.request(sample)
                continue
            async for item in sample_visits(run, sample, visited):
                yield item


async def sample_visits(run: OpenRun, sample: dict, visited: set[int], forced: bool = False):
    """The pid items and first requests of a sampled owner's DOIs not in `visited`, each entering the frontier as it
    has room (FULL yielded while it has none) or, `forced`, at once past its bound."""
    run.samples.count(sample)
    run.crawler.stats.inc_value("landing/run/visited_before", len(visited))
    for rank, doi in runs.unvisited(sample, visited):
        if forced:
            run.frontier.force()
        else:
            while not run.frontier.room():
                yield FULL
            await run.frontier.enter()
        # The pid again: it may not have reached the store before the crawl stopped.
        for pid_or_request in run.pid_and_visit(sample, rank, doi):
            yield pid_or_request
        run.frontier.queued()


async def until_visited(run: OpenRun, record: dict, after: int = -1):
    """Once the frontier has drained, queue again the sampled DOIs of `run` (its document: `record`) past order
    `after` that have no visit (a frontier that lost keys: Redis evicted, flushed or restored them; a visit a
    pipeline lost), up to REVISITS times; DOIs still without one leave the run open (stat landing/run/unvisited)."""
    stats = run.crawler.stats
    for walked in range(REVISITS + 1):
        if not run.lead.leading:
            return
        missing = await run.docs.call(run.ledger.unvisited, record, after)
        if not missing:
            return
        if walked == REVISITS:
            stats.set_value("landing/run/unvisited", len(missing))
            run.logger.error(
                "Run %s stays open: %d sampled DOIs still have no visit after %d more walks of the plan; the "
                "same command visits them",
                run.id,
                len(missing),
                REVISITS,
            )
            return
        stats.inc_value("landing/run/requeued", len(missing))
        run.logger.warning(
            "%d sampled DOIs of run %s have no visit once the frontier drained: queueing them again",
            len(missing),
            run.id,
        )
        for sample, rank, doi in missing:
            await run.frontier.enter()
            for pid_or_request in run.pid_and_visit(sample, rank, doi):
                yield pid_or_request
            run.frontier.queued()
        await run.frontier.drained()
