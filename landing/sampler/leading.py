"""The lead of a run shared by workers through Redis (landing.sampler.lead_election): lead the run (the planner's
`run_all`, under this lead) while no other worker does, else follow, visiting what the leader shares. A worker that
is stopping never takes the lead; a continuous run's leader (a planner that `hands_over`) that stops hands the lead
over once its crawl has closed (its last version exported), so a follower leads the run on at once."""

import asyncio
from collections.abc import AsyncIterator
from typing import Protocol

import redis
from scrapy import signals as scrapy_signals

from landing.crawl.signals import crawl_stopping
from landing.sampler import frontier_redis
from landing.sampler.lead_election import OVER, RENEWED, TAKEN, SharedRun


class LedPlanner(Protocol):
    """What SharedLead needs of a planner: its run, led under a lead (landing.sampler.run.Lead), and whether its
    leader, stopping, hands the lead over (a continuous run, which never ends) or ends the run for every worker."""

    hands_over: bool

    def run_all(self, lead) -> AsyncIterator: ...


class SharedLead:
    """A planner leading or following a run shared through Redis; the lead (landing.sampler.run.Lead) it runs its
    run under."""

    def __init__(self, planner: LedPlanner, crawler, logger):
        self.planner = planner
        self.crawler = crawler
        self.logger = logger
        self.shared: SharedRun | None = None  # once share() began
        self.scheduler = None  # the crawl's landing.sampler.frontier_redis.Scheduler, once share() began
        self.keeper = None  # the task that renews the lead while this worker has it
        self.stopping = False
        self.leading = True  # False once a worker sharing the frontier took the lead from this one
        crawler.signals.connect(self._stopping, signal=crawl_stopping)
        crawler.signals.connect(self._stopping, signal=scrapy_signals.spider_closed)
        crawler.signals.connect(self._closed, signal=scrapy_signals.spider_closed)

    @property
    def inherited(self) -> str:
        """The run a leader that died was on, when this worker took over from it ('' else)."""
        return self.shared.inherited if self.shared is not None else ""

    def publish(self, run_id: str) -> None:
        """This worker leads run `run_id`: its own frontier (another run's never mixes in), told to the others."""
        self.scheduler.join(run_id)
        self.shared.publish(run_id)

    def _stopping(self, *args, **kwargs):
        self.stopping = True

    def _closed(self, *args, **kwargs):
        """After the pipelines' close (a continuous leader's last export): hand a continuous run's lead over."""
        if self.keeper is not None:
            self.keeper.cancel()
        if self.shared is None or not self.leading or not self.planner.hands_over:
            return
        try:
            if self.shared.release():
                self.logger.info("Handing the lead of the continuous run over: the next worker to ask leads it on")
            else:  # said, so that a log shows why no hand-over came
                self.logger.warning(
                    "The lead of the continuous run was no longer this worker's when it stopped (not renewed within "
                    "LANDING_LEASE_SECONDS, or taken over): nothing to hand over"
                )
        except redis.RedisError as error:
            self.logger.warning(
                "Cannot hand the lead of the continuous run over (%s): another worker takes it after "
                "LANDING_LEASE_SECONDS",
                error,
            )

    async def share(self):
        """With a Redis frontier: lead the run while no other worker does, else visit what the leader pushes."""
        self.scheduler = scheduler = frontier_redis.scheduler_of(self.crawler)
        self.shared = shared = SharedRun(scheduler.server, scheduler.namespace, scheduler.ttl)
        following = False
        while (status := self._lead(shared)) != TAKEN:
            if status is None:
                return  # the crawl stops: the lead is left to the workers that go on
            if status == OVER:
                self.logger.info("The leader ended the run: this worker stops once the shared frontier is empty")
                return
            if not following:
                following = True
                self.logger.info("Following the worker that leads the run: visiting the DOIs it shares")
            self.crawler.stats.set_value("landing/run/following", 1)  # the progress line says so
            if run := shared.published():
                scheduler.join(run)
                self.crawler.stats.set_value("landing/run/id", run)
            await asyncio.sleep(1)
        self.crawler.stats.set_value("landing/run/following", 0)
        self.logger.info("Leading the run: this worker lists, plans and samples for every worker")
        self.keeper = asyncio.get_running_loop().create_task(self._keep_leading(shared))
        try:
            async for request_or_item in self.planner.run_all(self):
                yield request_or_item
        finally:
            if not self.planner.hands_over:
                self.keeper.cancel()
                if self.leading:
                    shared.end()

    def _lead(self, shared):
        """shared.lead(), unless the crawl is stopping (None)."""
        return None if self.stopping else shared.lead()

    def holds(self) -> bool:
        """Whether this worker leads the run now, its lease renewed to say so: the fence before a write that another
        leader's would clash with (a sample drawn by a leader starved past its lease, which a new leader drew again).
        A Redis that cannot answer lets the write go: no other worker can take the lead from it either."""
        if not self.leading or self.shared is None:
            return self.leading
        try:
            if self.shared.lead() != RENEWED:
                self._lost()
        except redis.RedisError as error:
            self.logger.warning("Cannot renew the lead of the run: %s", error)
        return self.leading

    async def _keep_leading(self, shared):
        while self.leading:
            await asyncio.sleep(shared.ttl_ms / 3000)
            try:
                if shared.lead() != RENEWED:
                    self._lost()
            except redis.RedisError as error:
                self.logger.warning("Cannot renew the lead of the run: %s", error)

    def _lost(self) -> None:
        """Another worker leads the run (or may, this one's lease having lapsed): this one only visits from now on."""
        if not self.leading:
            return
        self.leading = False
        self.crawler.stats.set_value("landing/frontier_redis/lost_lead", 1)
        self.crawler.stats.set_value("landing/run/following", 1)  # nor exports, in continuous mode
        self.logger.error(
            "Another worker took the lead of the run (this one did not renew it within LANDING_LEASE_SECONDS): this "
            "worker stops sampling and only visits"
        )
