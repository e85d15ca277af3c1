"""The lead of a run shared by workers through Redis (landing.sampler.shared_run), a mixin of the doi_sampler spider: lead
the run (its `_run`) while no other worker does, else follow, visiting what the leader shares."""

import asyncio

import redis

from landing.sampler import frontier_redis
from landing.sampler.shared_run import OVER, RENEWED, TAKEN, SharedRun


class SharedLead:
    async def _share(self):
        """With a Redis frontier: lead the run while no other worker does, else visit what the leader pushes."""
        scheduler = frontier_redis.scheduler_of(self.crawler)
        shared = SharedRun(scheduler.server, scheduler.queue.key, scheduler.ttl)
        self.frontier.shared = scheduler.queue.lengths
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
                self.crawler.stats.set_value("landing/run/id", run)
            await asyncio.sleep(1)
        self.crawler.stats.set_value("landing/run/following", 0)
        self.logger.info("Leading the run: this worker lists, plans and samples for every worker")
        keeper = asyncio.get_running_loop().create_task(self._keep_leading(shared))
        try:
            async for request_or_item in self._run(shared.inherited or None, shared.publish):
                yield request_or_item
        finally:
            keeper.cancel()
            if self.leading:
                shared.end()

    async def _keep_leading(self, shared):
        while self.leading:
            await asyncio.sleep(shared.ttl_ms / 3000)
            try:
                if shared.lead() != RENEWED:
                    self.leading = False
                    self.crawler.stats.set_value("landing/frontier_redis/lost_lead", 1)
                    self.logger.error(
                        "Another worker took the lead of the run (this one did not renew it within "
                        "LANDING_LEASE_SECONDS): this worker stops sampling and only visits"
                    )
            except redis.RedisError as error:
                self.logger.warning("Cannot renew the lead of the run: %s", error)
