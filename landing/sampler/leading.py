"""The lead of a run shared by workers through Redis (landing.sampler.shared_run): lead the run (the planner's `run`)
while no other worker does, else follow, visiting what the leader shares."""

import asyncio

import redis

from landing.sampler import frontier_redis
from landing.sampler.shared_run import OVER, RENEWED, TAKEN, SharedRun


class SharedLead:
    """A full run's planner (landing.sampler.planner.FullRun) leading or following a run shared through Redis."""

    def __init__(self, planner, crawler, logger):
        self.planner, self.crawler, self.logger = planner, crawler, logger

    async def share(self):
        """With a Redis frontier: lead the run while no other worker does, else visit what the leader pushes."""
        scheduler = frontier_redis.scheduler_of(self.crawler)
        shared = SharedRun(scheduler.server, scheduler.namespace, scheduler.ttl)
        frontier = self.planner.frontier
        frontier.shared, frontier.held = scheduler.lengths, lambda: len(scheduler.held)
        following = False
        while (status := shared.lead()) != TAKEN:
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

        keeper = asyncio.get_running_loop().create_task(self._keep_leading(shared))
        try:
            async for request_or_item in self.planner.run_all(shared.inherited or None, publish):
                yield request_or_item
        finally:
            keeper.cancel()
            if self.planner.leading:
                shared.end()

    async def _keep_leading(self, shared):
        while self.planner.leading:
            await asyncio.sleep(shared.ttl_ms / 3000)
            try:
                if shared.lead() != RENEWED:
                    self.planner.leading = False
                    self.crawler.stats.set_value("landing/frontier_redis/lost_lead", 1)
                    self.logger.error(
                        "Another worker took the lead of the run (this one did not renew it within "
                        "LANDING_LEASE_SECONDS): this worker stops sampling and only visits"
                    )
            except redis.RedisError as error:
                self.logger.warning("Cannot renew the lead of the run: %s", error)
