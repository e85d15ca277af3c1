"""Continuous sampling (LANDING_CONTINUOUS): one run that never finishes, its plan growing a round each slice.

Each slice (tuning.PLAN_MINUTES of the clock's time) the planner asks the registries which DOIs were updated when
LANDING_DELTA_HOURS have passed (landing.sampler.delta_watch), lists every owner again when tuning.RELIST_HOURS have
passed (new prefixes are stored never sampled), asks landing.core.continuous.freshness.plan which known prefixes to
sample within the day's budget, appends them to the run's plan as a round of samples, visits at once the DOIs the
registries moved, and hands the rest to the scheduler as the frontier has room until the slice ends, without waiting
for their visits (landing.sampler.round_walker). Once a round's visits are stored (checked each slice), each of its
prefixes records when it was sampled and what its visits signalled. A new artifact version is exported at each
multiple of LANDING_EXPORT_EVERY hours on the clock, named for it, and the retention step runs every
tuning.PRUNE_HOURS. Then it waits for the next slice, at the next multiple of tuning.PLAN_MINUTES on the clock
(landing.core.continuous.cadence, landing.clock), so a compressed clock runs a simulated month in minutes.
docs/continuous.md is the design.
"""

import asyncio
from datetime import timedelta
from functools import partial

import redis
from scrapy import signals as scrapy_signals

from landing import clock
from landing.core.continuous import cadence, freshness, schedule
from landing.core.sampling import runs
from landing.crawl import heap
from landing.crawl.sent_requests import SENT
from landing.crawl.signals import crawl_stopping
from landing.publish.pruning import grace, prune
from landing.sampler import frontier_redis
from landing.sampler.continuous_ledger import ContinuousLedger
from landing.sampler.delta_watch import DeltaWatch
from landing.sampler.listing import Listing
from landing.sampler.pipelines import export_or_say
from landing.sampler.planner import Sampling, until_visited
from landing.sampler.round_walker import RoundWalker
from landing.sampler.run import ALONE, Lead
from landing.stores import StoreError, open_blobs

STATS = "landing/continuous/"


class Continuous(Sampling):
    """Continuous sampling's planner, behind the spider's `Planner` seam; it walks, samples and visits the round's
    part of the plan as a full run does (landing.sampler.planner.walk), in its open run (`run`)."""

    hands_over = True  # sharing a Redis frontier, a leader that stops leaves the run to the next worker (SharedLead)

    def __init__(self, crawler, cfg, visitor, callbacks, logger, retries: int):
        super().__init__(crawler, cfg, visitor, callbacks, logger, retries)
        self.closing = asyncio.Event()
        self.record: dict | None = None  # the run document as last stored, once the run is open
        self.unheld = set()  # (order, rank) of the sampled DOIs the shared frontier did not hold at the last look
        self.counted = 0  # requests sent (landing.crawl.sent_requests) already counted in the run's day
        self.exported_visits = 0  # this process's visits (stat landing/visits) when its last version was exported
        self.policy = freshness.Policy(
            cfg.refresh_days, cfg.recheck_days, cfg.sample_min, cfg.sample_max, cfg.changed_dois
        )
        self.deltas = DeltaWatch(self.api, callbacks, cfg, crawler, logger)
        self.walker: RoundWalker | None = None  # the open rounds' walk, once the run is open
        crawler.signals.connect(self._closing, signal=crawl_stopping)
        crawler.signals.connect(self._closing, signal=scrapy_signals.spider_closed)

    def _closing(self, *args, **kwargs):
        self.closing.set()

    async def run_all(self, lead: Lead = ALONE):
        """The continuous run under `lead` (it names the run a leader that died was on, and hears its id once
        opened): resume the round a stopped crawl left, then a round each slice until the crawl closes or, sharing a
        Redis frontier, another worker takes the lead."""
        s = self.cfg
        if s.sample_min > s.sample_max:
            self.logger.error(
                "LANDING_SAMPLE_MIN=%d is more than LANDING_SAMPLE_MAX=%d: continuous mode cannot size its samples",
                s.sample_min,
                s.sample_max,
            )
            return
        wanted = lead.inherited or (runs.CONTINUOUS if s.run in ("auto", "new") else s.run)
        self.record, state, resumed = await self._open(lead, wanted, 0, ContinuousLedger)
        run = self.run
        docs, records = run.docs, run.records
        self.crawler.stats.set_value(STATS + "budget", s.budget)
        self.logger.info(
            "%s continuous run %s: no prefix older than %s days (LANDING_REFRESH_DAYS), within %s requests a day "
            "(LANDING_BUDGET), a plan every %s minutes of the clock (%s)",
            "Resuming" if resumed else "Starting",
            run.id,
            s.refresh_days,
            s.budget,
            s.plan_minutes,
            clock.stamp(),
        )
        if opened := state.get("continuous/open"):  # rounds a stopped crawl left: their DOIs without a visit
            self.logger.info("Resuming the rounds planned at %s", ", ".join(r["planned"] for r in opened))
        self.walker = RoundWalker(run, opened[0]["from"] - 1 if opened else self.record["run/owners"] - 1)
        while not self._stopped():
            started = clock.now()
            ends = cadence.next_slice(started, started, timedelta(minutes=s.plan_minutes))
            # The requests of the visits that ran while the planner waited, in the day before the slice plans.
            state = await docs.call(records.spent, state, clock.stamp(), self._uncounted())
            before = self._requests()  # the registries' deltas and the listing: requests that are no visit's
            # The slice that exports looks whenever the last look was: what the registries moved by the boundary is in
            # the version named for it, however late the hourly looks run behind.
            looks = schedule.due(state.get("continuous/delta-looked"), started, s.delta_hours)
            if s.delta_hours and (looks or schedule.export_due(state, started, s.export_every, self._visited())):
                for request in self.deltas.requests(run, state, started):
                    yield request
                if not await self.deltas.ended(self.closing):
                    return
                state = await self.deltas.settle(state)
            if schedule.due(state.get("continuous/listed"), started, s.relist_hours):
                async for request in self._relist():
                    yield request
                state = await self._relisted(state)
            listed = self._requests() - before
            if self._stopped():
                return
            state, known = await self._close_rounds(state, idle=False)
            # Refreshes wait while earlier rounds' DOIs wait for the frontier: what a busy crawl cannot start, it never
            # plans; the registries' moves are planned whatever waits.
            candidates = schedule.plannable(known, state.get("continuous/open", []), not self.walker.done)
            # Those left out are being refreshed: the pace counts them as just sampled (freshness.paced).
            plan = self._plan(candidates, state, started, len(known) - len(candidates))
            planned, asked = started.strftime(clock.FORMAT), 0
            if plan.picks:
                start = self.record["run/owners"] or 0
                self.record, state, asked = await docs.call(records.begin, self.record, state, plan, planned)
                self.crawler.stats.inc_value(STATS + "picks", len(plan.picks))
                self.crawler.stats.set_value("landing/run/owners", self.record["run/owners"])
                # The registries' moves visited at once, ahead of every round still waiting for the frontier.
                async for request in self.walker.rush(self.record, start - 1):
                    yield request
            # Handed to the scheduler as the frontier admits them, until the slice ends; the slice does not wait for
            # their visits, and what the frontier could not take yet is walked on in the next slice.
            async for request_or_item in self.walker.steps(self.record, ends):
                yield request_or_item
            if self._stopped():
                return
            if state.get("continuous/open") and self.walker.done and self.frontier.idle():
                # Nothing in flight: DOIs of the open rounds still without a visit are queued again, then closed.
                async for request in until_visited(run, self.record, state["continuous/open"][0]["from"] - 1):
                    yield request
                if self._stopped():
                    return
                state, known = await self._close_rounds(state, idle=True)
            elif state.get("continuous/open") and run.shared and self.walker.done:
                # New rounds may keep the shared frontier from ever draining: DOIs Redis lost are found by key.
                async for request in self._requeue_lost(state["continuous/open"][0]["from"] - 1):
                    yield request
            requests = self._uncounted()
            state = await docs.call(records.counted, state, plan, planned, requests, max(0, requests - listed - asked))
            self._set_stats(known, plan, state)
            state = await self._export_and_prune(state, ends)
            heap.trim()  # the slice's peaks (records, export, prune) freed: their memory back to the system
            await self._wait_until(cadence.next_slice(started, clock.now(), timedelta(minutes=s.plan_minutes)))

    async def _requeue_lost(self, after: int):
        """Sharing a Redis frontier: the sampled DOIs past order `after` without a visit that no worker holds, queued
        nor leased (Redis lost them: restarted without its data, flushed, evicted), queued again."""
        run = self.run
        missing = await run.docs.call(run.ledger.unvisited, self.record, after)
        if not missing:
            return
        keys = {runs.visit_id(run.id, sample["sample/order"], rank): (sample, rank) for sample, rank, _ in missing}
        try:
            held = frontier_redis.scheduler_of(self.crawler).holds(list(keys))
        except redis.RedisError as error:
            self.logger.warning("Cannot look for DOIs the shared frontier lost: %s", error)
            return
        unheld = {(sample["sample/order"], rank) for key, (sample, rank) in keys.items() if key not in held}
        # Lost only if missing at two looks a slice apart: a sample just answered has its DOIs shared a moment later.
        unheld, self.unheld = unheld & self.unheld, unheld
        if not unheld:
            return
        # The store read again after Redis: a DOI visited and acked in between is in the store now, not queued again.
        lost = [
            m
            for m in await run.docs.call(run.ledger.unvisited, self.record, after)
            if (m[0]["sample/order"], m[1]) in unheld
        ]
        if not lost:
            return
        self.crawler.stats.inc_value("landing/run/requeued", len(lost))
        self.logger.warning(
            "%d sampled DOIs of the open rounds have no visit and are not in the shared frontier (Redis lost them): "
            "queueing them again",
            len(lost),
        )
        for sample, rank, doi in lost:
            if self._stopped():
                return
            await run.frontier.enter()
            for pid_or_request in run.pid_and_visit(sample, rank, doi):
                yield pid_or_request
            run.frontier.queued()

    def _plan(self, known, state, now, refreshing: int) -> freshness.Plan:
        """The slice's plan of `known`: the share of the day's budget for the time since the last plan, less the
        previous plans' overdraft, never past what is left of the day's budget; `refreshing` prefixes left out are
        under way."""
        s = self.cfg
        span = schedule.slice_span(state.get("continuous/planned"), now, s.plan_minutes)
        share = s.budget * (span / freshness.DAY)
        today = state.get("continuous/requests-today", 0) if state.get("continuous/day") == f"{now:%Y-%m-%d}" else 0
        carry = schedule.slice_carry(state.get("continuous/carry", 0.0), share, today, s.budget)
        budget = freshness.Budget(s.budget, schedule.per_doi(state, s.requests_per_doi))
        return freshness.plan(known, now, self.policy, budget, span, carry, refreshing)

    async def _close_rounds(self, state, idle: bool):
        """(state, known prefixes): the open rounds whose visits are stored closed, their prefixes' records
        updated; all of them when `idle` (nothing in flight)."""
        docs, records, now = self.run.docs, self.run.records, clock.now()
        # A round open LANDING_REFRESH_DAYS (a failed sample, a visit lost while the crawl never idles) is closed as
        # it stands: its prefixes are past the age the policy promises, and must be free to be picked again.
        overdue = (now - timedelta(days=self.cfg.refresh_days)).strftime(clock.FORMAT)
        state, figures = await docs.call(records.close, self.record, state, now.strftime(clock.FORMAT), idle, overdue)
        if figures["overdue"]:
            self.logger.warning(
                "%d rounds closed LANDING_REFRESH_DAYS after they were planned, some of their DOIs still being visited "
                "or their sample failed: their prefixes are recorded as they stand",
                figures["overdue"],
            )
        if figures["rounds"]:
            self.crawler.stats.inc_value(STATS + "signalled", figures["signalled"])
            self.logger.info(
                "%s closed (%d closed in all): %d prefixes sampled (%d DOIs), %d signalled a change, %d samples failed",
                "1 round" if figures["rounds"] == 1 else f"{figures['rounds']} rounds",
                state.get("continuous/rounds", 0),
                figures["sampled"],
                figures["dois"],
                figures["signalled"],
                figures["failed"],
            )
        return state, await docs.call(records.prefixes)

    async def _relist(self):
        """Every owner listed again, through a fresh Listing (the spider's callbacks answer it)."""
        self.listing = Listing(self.api, self.callbacks, self.cfg, self.crawler, self.logger)
        for request in self.listing.requests():
            yield request
        await self.listing.over.wait()

    async def _relisted(self, state):
        listing, now = self.listing, clock.stamp()
        listed = listing.owners()
        if listed is None:
            return state
        owners, complete = listed
        found, names = schedule.listed_prefixes(owners, listing.prefixes_of), listing.names_of
        listing.forget()
        state, counts = await self.run.docs.call(self.run.records.relist, found, state, now, complete, names)
        self.logger.info(
            "Listed %d prefixes: %d new, %d under another owner, %d with another DOI count",
            len(found),
            counts["new"],
            counts["moved"],
            counts["resized"],
        )
        return state

    async def _export_and_prune(self, state, ends):
        s, docs, now = self.cfg, self.run.docs, clock.now()
        # A boundary gets its version whenever DOIs were visited since the last one, a round closed or not: at the
        # crawl's capacity a round outlasts a day, and its visits (the registries' moves too) would wait for its close.
        visited = self._visited()
        if at := schedule.export_due(state, now, s.export_every, visited):
            # The moves the registries showed this slice in this version: their visits waited for until the slice ends.
            if not await self.walker.settled(ends):
                self.logger.info("Exporting with %d registry visits still under way", len(self.walker.pending))
            # Named for its boundary on the clock. A failed export is said in one line and tried again next slice;
            # the export health check judges the wait.
            if await docs.call(export_or_say, docs.store, s, self.crawler.stats, at) is not None:
                self.exported_visits += visited
            state = await docs.call(self.run.records.state)
        state = await self._prune(state, now)
        await self._checkpoint()
        return state

    async def _checkpoint(self):
        """The store's log folded into its file each slice (SQLite's WAL cut to 0 bytes): its size does not swing."""
        try:
            await self.run.docs.call(self.run.docs.store.checkpoint)
        except StoreError as error:
            self.logger.warning("The document store's log was not checkpointed (tried again next slice): %s", error)

    async def _prune(self, state, now):
        """The retention step (landing.publish.pruning) every tuning.PRUNE_HOURS, on the store's thread."""
        s, docs = self.cfg, self.run.docs
        if not schedule.due(state.get("continuous/pruned"), now, s.prune_hours):
            return state
        blobs = open_blobs(s.blobs)
        try:
            summary = await docs.call(
                partial(prune, grace_seconds=grace(s.docs_outage_max)),
                docs.store,
                blobs,
                s.artifacts_dir,
                now,
                s.keep_reports_days,
                s.keep_snapshots,
            )
        finally:
            blobs.close()
        self.logger.info("Pruned: %s", ", ".join(f"{k}: {v}" for k, v in sorted(summary.items())))
        stamp = clock.stamp()
        return await docs.call(
            self.run.records.save, {**state, "continuous/pruned": stamp, "continuous/updated": stamp}
        )

    async def _wait_until(self, moment):
        """Until the clock reaches `moment`, or the crawl closes."""
        wait = clock.real_seconds(moment - clock.now())
        if wait > 0:
            try:
                await asyncio.wait_for(self.closing.wait(), wait)
            except TimeoutError:
                pass

    def _stopped(self) -> bool:
        """The crawl is closing, or another worker sharing the frontier took the lead."""
        return self.closing.is_set() or not self.run.lead.leading

    def _visited(self) -> int:
        """DOIs this process visited since its last version (a follower's are counted when their round closes)."""
        return self.crawler.stats.get_value("landing/visits", 0) - self.exported_visits

    def _requests(self) -> int:
        return self.crawler.stats.get_value(SENT, 0)

    def _uncounted(self) -> int:
        """Requests sent since the last count, now counted: each is counted once, whenever it was sent."""
        sent = self._requests()
        uncounted, self.counted = sent - self.counted, sent
        return uncounted

    def _set_stats(self, known, plan, state):
        drawn, sites = self.run.records.seen()
        figures = {
            **schedule.age_stats(known, clock.now()),
            "latest_record": schedule.latest_record(known, state),
            "requests_today": state.get("continuous/requests-today", 0),
            "keeps_days": schedule.finite(round(plan.keeps_days, 3)),
            "within": int(plan.within),
            "rounds": state.get("continuous/rounds", 0),
            "requests_per_doi": round(schedule.per_doi(state, self.cfg.requests_per_doi), 3),
            "dois_seen": drawn,
            "sites_seen": sites,
        }
        for name, value in figures.items():
            self.crawler.stats.set_value(STATS + name, value)
