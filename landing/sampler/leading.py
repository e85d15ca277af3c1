"""The lead of a run shared by workers through Redis (landing.sampler.shared_run), a mixin of the doi_sampler spider: lead
the run (its `_run`) while no other worker does, else follow, visiting what the leader shares; and, shared or not,
the last look before a run finishes: every sampled DOI has a visit."""

import asyncio

import redis

from landing.sampler import frontier_redis
from landing.sampler.shared_run import OVER, RENEWED, TAKEN, SharedRun

REVISITS = 3  # walks of the plan again for DOIs left without a visit, before the run is left open


class SharedLead:
    async def _share(self):
        """With a Redis frontier: lead the run while no other worker does, else visit what the leader pushes."""
        scheduler = frontier_redis.scheduler_of(self.crawler)
        shared = SharedRun(scheduler.server, scheduler.namespace, scheduler.ttl)
        self.frontier.shared, self.frontier.held = scheduler.lengths, lambda: len(scheduler.held)
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
            async for request_or_item in self._run(shared.inherited or None, publish):
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

    async def _until_visited(self):
        """Once the frontier has drained, queue again the sampled DOIs that have no visit (a frontier that lost keys:
        Redis evicted, flushed or restored them; a visit a pipeline lost), up to REVISITS times; DOIs still without
        one leave the run open (stat landing/run/unvisited)."""
        stats = self.crawler.stats
        for walk in range(REVISITS + 1):
            if not self.leading:
                return
            missing = await self.docs.call(self.ledger.unvisited, self.run)
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
                for pid_or_request in self._pid_and_visit(sample, rank, doi):
                    yield pid_or_request
                self.frontier.queued()
            await self.frontier.drained()
