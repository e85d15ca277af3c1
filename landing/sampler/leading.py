"""The lead of a run shared by workers through Redis (landing.sampler.shared_run): lead the run (the planner's `run`)
while no other worker does, else follow, visiting what the leader shares. A worker that is stopping never takes the
lead; a continuous run's leader (a planner with `hands_over`) that stops hands the lead over once its crawl has
closed (its last version exported), so a follower leads the run on at once."""

import asyncio

import redis
from scrapy import signals as scrapy_signals

from landing.crawl.signals import crawl_stopping
from landing.sampler import frontier_redis
from landing.sampler.shared_run import OVER, RENEWED, TAKEN, SharedRun


class SharedLead:
    """A full run's planner (landing.sampler.planner.FullRun) leading or following a run shared through Redis."""

    def __init__(self, planner, crawler, logger):
        self.planner, self.crawler, self.logger = planner, crawler, logger
        self.shared, self.keeper, self.stopping = None, None, False
        crawler.signals.connect(self._stopping, signal=crawl_stopping)
        crawler.signals.connect(self._stopping, signal=scrapy_signals.spider_closed)
        crawler.signals.connect(self._closed, signal=scrapy_signals.spider_closed)

    def _stopping(self, *args, **kwargs):
        self.stopping = True

    def _closed(self, *args, **kwargs):
        """After the pipelines' close (a continuous leader's last export): hand a continuous run's lead over."""
        if self.keeper is not None:
            self.keeper.cancel()
        if self.shared is None or not self.planner.leading or not getattr(self.planner, "hands_over", False):
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
        scheduler = frontier_redis.scheduler_of(self.crawler)
        self.shared = shared = SharedRun(scheduler.server, scheduler.namespace, scheduler.ttl)
        frontier = self.planner.frontier
        frontier.shared, frontier.held = scheduler.lengths, lambda: len(scheduler.held)
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

        def publish(run_id):
            scheduler.join(run_id)  # the run's own frontier: another run's never mixes in
            shared.publish(run_id)

        self.keeper = asyncio.get_running_loop().create_task(self._keep_leading(shared))
        try:
            async for request_or_item in self.planner.run_all(shared.inherited or None, publish):
                yield request_or_item
        finally:
            if not getattr(self.planner, "hands_over", False):
                self.keeper.cancel()
                if self.planner.leading:
                    shared.end()

    def _lead(self, shared):
        """shared.lead(), unless the crawl is stopping (None)."""
        return None if self.stopping else shared.lead()

    async def _keep_leading(self, shared):
        while self.planner.leading:
            await asyncio.sleep(shared.ttl_ms / 3000)
            try:
                if shared.lead() != RENEWED:
                    self.planner.leading = False
                    self.crawler.stats.set_value("landing/frontier_redis/lost_lead", 1)
                    self.crawler.stats.set_value("landing/run/following", 1)  # nor exports, in continuous mode
                    self.logger.error(
                        "Another worker took the lead of the run (this one did not renew it within "
                        "LANDING_LEASE_SECONDS): this worker stops sampling and only visits"
                    )
            except redis.RedisError as error:
                self.logger.warning("Cannot renew the lead of the run: %s", error)
