"""The planner: what the sampler samples next. A full run (FullRun) lists every owner once, stores the plan, then
walks it, asking for each owner's sample and visiting its DOIs only as the bounded frontier drains; a resumed run
walks the same plan and takes sampled owners' DOIs from their stored sample, skipping those already visited.

Continuous sampling replaces the policy (which owners and prefixes, when) behind the same `Planner` seam; the visitor
(landing.sampler.visitor) and the spider stay as they are.
"""

from collections.abc import AsyncIterator
from typing import Protocol

from landing import clock
from landing.core import documents, names, runs
from landing.sampler.answers import Api
from landing.sampler.frontier import Frontier
from landing.sampler.frontier_redis import SHARED
from landing.sampler.items import PidItem
from landing.sampler.leading import SharedLead
from landing.sampler.ledger import Ledger
from landing.sampler.listing import Listing
from landing.sampler.pipelines import Docs
from landing.sampler.samples import Samples

REVISITS = 3  # walks of the plan again for DOIs left without a visit, before the run is left open


class Planner(Protocol):
    """What the spider's `start` yields: API requests, the pid items and first requests of DOI visits, in the
    order the policy wants them; the answers come back through the spider's parse_* callbacks to its parts."""

    listing: Listing
    samples: Samples
    api: Api

    def start(self) -> AsyncIterator: ...


class FullRun:
    """A full run's policy: list, plan, sample each owner, visit every sampled DOI, finish the run.

    cfg: the crawl's landing.config.Config; visitor: landing.sampler.visitor.Visitor, which makes each DOI's first
    request; callbacks: the spider; retries: RETRY_TIMES, for answers that are not the API's.
    """

    def __init__(self, crawler, cfg, visitor, callbacks, logger, retries: int):
        self.crawler, self.logger, self.visitor = crawler, logger, visitor
        self.cfg, self.shared = cfg, bool(cfg.frontier_redis)  # shared: visits go through the workers' Redis frontier
        self.frontier = Frontier.of(crawler)
        self.docs, self.ledger, self.run = None, None, None
        self.leading = True  # False once a worker sharing the frontier took the lead from this one
        self.api = Api(
            crawler,
            logger,
            self.frontier,
            callbacks.api_failed,
            lambda source: self.listing.answered(source, failed=True),
            retries,
        )
        self.listing = Listing(self.api, callbacks, cfg, crawler, logger)
        self.samples = Samples(self, self.api, callbacks, cfg, crawler, logger, retries)
        self.lead = SharedLead(self, crawler, logger)

    def start(self):
        return self.lead.share() if self.shared else self.run_all()

    async def run_all(self, wanted=None, publish=None):
        """The run from its listing to its end; `wanted` names the run (else LANDING_RUN), `publish(run id)` shares
        it once opened."""
        stats, s = self.crawler.stats, self.cfg
        self.docs = Docs.of(self.crawler)
        self.ledger = Ledger(
            self.docs.store, wanted or s.run, s.sources, s.sample_min, s.sample_max, s.sample_min_per_prefix
        )
        self.run, resumed = await self.docs.call(self.ledger.open, clock.stamp())
        run_id = self.run["run/id"]
        if publish:
            publish(run_id)
        stats.set_value("landing/run/id", run_id)
        self.logger.info(
            "%s run %s (started %s, %s)",
            "Resuming" if resumed else "Starting",
            run_id,
            self.run["run/started"],
            self.run["run/state"],
        )
        if self.run["run/state"] == "listing" or self.run.get("run/listing") == "incomplete":
            for request in self.listing.requests():
                yield request
            await self.listing.over.wait()
            listed = self.listing.owners()
            if listed is None and self.run["run/state"] == "listing":
                return
            if listed is not None:
                self.run = await self.docs.call(
                    self.ledger.store_plan,
                    self.run,
                    *listed,
                    clock.stamp(),
                    self.listing.prefixes_of,
                    self.listing.names_of,
                )
                self.logger.info(
                    "Planned %d owners: at most %d DOIs (LANDING_SAMPLE_MIN/MAX %d/%d, at least %d per listed prefix)",
                    self.run["run/owners"],
                    self.run["run/dois-planned"],
                    self.run["run/sample-min"],
                    self.run["run/sample-max"],
                    self.run.get("run/sample-per-prefix", 0),
                )
            self.listing.forget()
        stats.set_value("landing/run/owners", self.run["run/owners"])
        stats.set_value("landing/run/dois_planned", self.run.get("run/dois-planned") or 0)
        async for request_or_item in self.walk():
            yield request_or_item
        await self.frontier.drained()
        async for request in self.until_visited():
            yield request
        if not self.leading or stats.get_value("landing/run/unvisited"):
            return
        await self._finish(run_id)

    async def _finish(self, run_id):
        stats = self.crawler.stats
        if self.run.get("run/listing") == "incomplete":
            self.logger.error(
                "Run %s stays open: its owners could not all be listed; the same command lists them "
                "again and samples those missing",
                run_id,
            )
            return
        if stats.get_value("landing/run/samples_failed"):
            self.logger.error(
                "Run %s stays open: %d owners could not be sampled; the same command samples them",
                run_id,
                stats.get_value("landing/run/samples_failed"),
            )
            return
        if not stats.get_value("landing/run/dois"):
            stats.set_value("landing/run/sampled_nothing", 1)
            self.logger.error("Run %s has no sampled DOI: every owner's sample failed or came back empty", run_id)
            return
        self.run = await self.docs.call(self.ledger.finish, self.run, clock.stamp())
        stats.set_value("landing/run/finished", 1)
        self.logger.info("Run %s finished", run_id)

    async def walk(self, after: int = -1):
        """Sample and visit the plan's owners past order `after` (-1: from the start), as the frontier drains; the
        DOIs of owners sampled already are visited where no visit is recorded."""
        while True:
            chunk = await self.docs.call(self.ledger.chunk, self.run, after)
            if not chunk:
                return
            for sample, visited in chunk:
                if not self.leading:
                    return
                after = sample["sample/order"]
                if sample["sample/dois"] is None:
                    await self.frontier.enter(sample["sample/size"])
                    yield self.samples.request(sample)
                    continue
                self.samples.count(sample)
                self.crawler.stats.inc_value("landing/run/visited_before", len(visited))
                for rank, doi in runs.unvisited(sample, visited):
                    await self.frontier.enter()
                    # The pid again: it may not have reached the store before the crawl stopped.
                    for pid_or_request in self.pid_and_visit(sample, rank, doi):
                        yield pid_or_request
                    self.frontier.queued()

    def pid_and_visit(self, sample, rank, doi):
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
        request = self.visitor.visit(pid, (self.run["run/id"], sample["sample/order"], rank))
        if self.shared:
            # To the workers' Redis frontier, queued once under its visit id. The worker that visits the DOI writes
            # its pid, with its visit record: the leader's buffer may die with it before the pid is written.
            request.meta[SHARED] = runs.visit_id(*request.meta["visit"])
            return (request,)
        return pid, request

    async def until_visited(self, after: int = -1):
        """Once the frontier has drained, queue again the sampled DOIs past order `after` that have no visit (a
        frontier that lost keys: Redis evicted, flushed or restored them; a visit a pipeline lost), up to REVISITS
        times; DOIs still without one leave the run open (stat landing/run/unvisited)."""
        stats = self.crawler.stats
        for walk in range(REVISITS + 1):
            if not self.leading:
                return
            missing = await self.docs.call(self.ledger.unvisited, self.run, after)
            if not missing:
                return
            if walk == REVISITS:
                stats.set_value("landing/run/unvisited", len(missing))
                self.logger.error(
                    "Run %s stays open: %d sampled DOIs still have no visit after %d more walks of the plan; the "
                    "same command visits them",
                    self.run["run/id"],
                    len(missing),
                    REVISITS,
                )
                return
            stats.inc_value("landing/run/requeued", len(missing))
            self.logger.warning(
                "%d sampled DOIs of run %s have no visit once the frontier drained: queueing them again",
                len(missing),
                self.run["run/id"],
            )
            for sample, rank, doi in missing:
                await self.frontier.enter()
                for pid_or_request in self.pid_and_visit(sample, rank, doi):
                    yield pid_or_request
                self.frontier.queued()
            await self.frontier.drained()
