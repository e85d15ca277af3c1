"""Item pipelines: a visit's page read into its analysis, body to the blob store, documents to the document store,
artifacts at close."""

import asyncio
import json
import logging
import os
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path

import redis
from scrapy import signals

from landing import clock, config
from landing.core.continuous import schedule
from landing.core.pages import documents
from landing.core.pages.reading import read
from landing.publish.child_process import PublishError, publish_apart
from landing.sampler import frontier_redis
from landing.sampler.frontier import Frontier
from landing.sampler.items import AnalysisItem, LedgerItem, PidItem, Visit
from landing.sampler.shutdown import STOPPED
from landing.stores import StoreError, docs_from, docs_options, open_blobs, unwritten

logger = logging.getLogger(__name__)
EXPORT_FAILED = "landing/export_failed"  # stat: why the last export tried failed ("" once one succeeds)


def export(docs, cfg: config.Config, stats, at: datetime | None = None) -> dict:
    """On the document store's thread: rebuild the reports and export a new artifact version (landing.publish), named
    for `at` (continuous mode's boundary; None: now), its line counts set as stats; in continuous mode the version is
    recorded in the run's state. The summary."""
    docs.flush()  # the child reads the store: everything this crawl put must be in it
    summary = publish_apart(cfg.docs, docs_options(cfg), cfg.artifacts_dir, cfg.excluded_domains, cfg.export_report, at)
    for name, value in summary["lines"].items():
        stats.set_value(f"landing/artifacts/{name}", value)
    logger.info(
        "Artifacts exported to %s (%s)",
        summary["version"],
        ", ".join(f"{k}: {v} lines" for k, v in summary["lines"].items()),
    )
    if summary["report"]:
        logger.info("Report: %s", summary["report"])
    if cfg.continuous and (state := docs.get(*schedule.STATE)) is not None:
        stamp = at.strftime(clock.FORMAT) if at is not None else clock.stamp()
        state = schedule.exported(state, Path(summary["version"]).name, stamp)
        docs.put(*schedule.STATE, state)
        docs.flush()
        stats.set_value("landing/continuous/last_version", state["continuous/version"])
        stats.set_value("landing/continuous/last_export", state["continuous/exported"])
        stats.set_value("landing/continuous/exports", state["continuous/exports"])
    return summary


def export_or_say(docs, cfg: config.Config, stats, at: datetime | None = None) -> dict | None:
    """`export` (named for `at`), or when it fails one ERROR line and the stat EXPORT_FAILED (a failing exit:
    landing/commands/crawl.py), the traceback at DEBUG; a later export that succeeds clears the stat. The summary, or
    None."""
    try:
        summary = export(docs, cfg, stats, at)
    except (PublishError, StoreError, OSError) as error:
        logger.debug("The export failed", exc_info=True)
        logger.error("Artifacts not exported: %s", error)
        stats.set_value(EXPORT_FAILED, str(error))
        return None
    if stats.get_value(EXPORT_FAILED):
        stats.set_value(EXPORT_FAILED, "")
    return summary


class Docs:
    """The crawl's document store, opened once and shared by DocumentPipeline, which closes it, and the spider.

    Every call on the store runs on its one worker thread (`call`), so a store that is slow or retrying never
    stalls the crawl's event loop, and the store is used from one thread as it requires.
    """

    def __init__(self, cfg: config.Config):
        self.store = docs_from(cfg)
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="landing-docs")

    async def call(self, function, *args):
        """function(*args) on the document store's thread."""
        return await asyncio.get_running_loop().run_in_executor(self.worker, function, *args)

    @classmethod
    def of(cls, crawler):
        if getattr(crawler, "landing_docs", None) is None:
            crawler.landing_docs = cls(config.of(crawler))
        return crawler.landing_docs


class AnalysisPipeline:
    """Reads each Visit's page (landing.core.pages.reading) into its analysis document, the AnalysisItem the next pipelines
    store. First of the pipelines, not inside DocumentPipeline: the blob's snapshot JSON carries the class reading
    settles on (js-required, cookie-required), so BlobPipeline needs the reading too."""

    def process_item(self, item, spider=None):
        if not isinstance(item, Visit):
            return item
        analysis = read(item.snapshot, item.page, clock.stamp())
        return AnalysisItem(analysis, body=item.body, visit=item.record, lease=item.lease)


class BlobPipeline:
    """Stores a snapshot's body under its content hash, and the snapshot's JSON beside it, in the blob store it
    opens and closes."""

    def __init__(self, crawler):
        self.blobs = open_blobs(config.of(crawler).blobs)
        self.stats = crawler.stats

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def close_spider(self, spider=None):
        self.blobs.close()

    async def process_item(self, item, spider=None):
        if isinstance(item, AnalysisItem) and item.body is not None:
            # In a worker thread when the store may block (S3's round trips), so the crawl's event loop never does.
            if await asyncio.to_thread(self._put, item) if self.blobs.blocking else self._put(item):
                self.stats.inc_value("landing/blobs_written")
        return item

    def _put(self, item) -> bool:
        digest = item["snapshot/content-hash"]
        written = self.blobs.put(f"snapshot/{digest}", item.body)
        snapshot = documents.only(item, documents.PID_KEYS, documents.SNAPSHOT_KEYS)
        self.blobs.put(f"snapshot/{digest}.json", json.dumps(snapshot, sort_keys=True).encode())
        return written


class DocumentPipeline:
    """Writes pid, snapshot and analysis documents under derived ids, and the run's ledger; at close, reports and
    artifacts.

    Every store call runs on the store's thread (`call`), in the order items arrive, so a DOI's visit record
    is written after its snapshot and analysis, in the same batch or a later one; from a shared frontier, the DOI's
    lease is acked once that batch is written, never before. While the store refuses writes,
    documents wait in its buffer; after LANDING_DOCS_OUTAGE_MAX seconds the crawl stops, and whatever is still
    unwritten at close is saved to LANDING_UNWRITTEN_DIR.
    """

    def __init__(self, crawler):
        self.crawler = crawler
        self.stats = crawler.stats
        self.config = config.of(crawler)
        shared = Docs.of(crawler)
        self.docs = shared.store
        self.worker = shared.worker
        self.call = shared.call
        self.frontier = Frontier.of(crawler)
        self.outage_max = self.config.docs_outage_max
        self.unwritten_dir = Path(self.config.unwritten_dir)
        self.warned_at = None
        self.stopping = None
        self.unwritten_leases = []  # leases whose visit records wait in the store's buffer
        self.keeper = None

    @classmethod
    def from_crawler(cls, crawler):
        pipeline = cls(crawler)
        crawler.signals.connect(pipeline.lost, signal=signals.item_error)
        crawler.signals.connect(pipeline.lost, signal=signals.item_dropped)
        return pipeline

    def open_spider(self, spider=None):
        if self.config.frontier_redis:
            # A quiet buffer is written only on the next put: without this the last leases would never be acked.
            self.keeper = asyncio.get_running_loop().create_task(self._write_for_acks())

    async def process_item(self, item, spider=None):
        if isinstance(item, (PidItem, AnalysisItem, LedgerItem)):
            self._ack(await self.call(self._put, item))
            if getattr(item, "visit", None) and not item.lease:
                self.frontier.leave()
            self._watch_outage()
        return item

    def lost(self, item, response=None, spider=None, failure=None, exception=None):
        """A DOI's final snapshot that a pipeline failed or dropped still leaves the frontier (it is not recorded
        as visited, so a resumed run visits it again)."""
        if getattr(item, "record" if isinstance(item, Visit) else "visit", None):
            if item.lease:
                self._ack([item.lease])
            else:
                self.frontier.leave()

    def _ack(self, leases):
        if not leases:
            return
        try:
            frontier_redis.scheduler_of(self.crawler).ack_many(leases)
        except redis.RedisError as error:
            logger.warning("Cannot ack %d visits in the shared frontier, retrying: %s", len(leases), error)
            self.worker.submit(self.unwritten_leases.extend, leases)  # back, on the thread that owns the list

    async def _write_for_acks(self):
        pause = max(self.docs.batch_seconds, 0.5)
        while True:
            await asyncio.sleep(pause)
            self._ack(await self.call(self._flush_written))

    def _flush_written(self):
        """On the store's thread: write the buffer if leases wait on it; the leases now written."""
        if self.unwritten_leases:
            try:
                self.docs.flush()
            except StoreError:
                return []
        return self._written()

    def _written(self):
        """On the store's thread: the leases whose visit records are written (all, once the buffer is empty)."""
        if self.docs.pending or not self.unwritten_leases:
            return []
        leases, self.unwritten_leases = self.unwritten_leases, []
        return leases

    def _put(self, item):
        """Store the item's documents (on the store's thread); returns the leases whose visits are now written."""
        self._store(item)
        if getattr(item, "lease", None):
            self.unwritten_leases.append(item.lease)
        return self._written()

    def _store(self, item):
        if isinstance(item, PidItem):
            self.docs.put("pid", documents.pid_id(item), dict(item))
            self.stats.inc_value("landing/pids")
        elif isinstance(item, LedgerItem):
            self.docs.put(item.kind, item.doc_id, dict(item))
        else:
            snapshot = documents.only(item, documents.PID_KEYS, documents.SNAPSHOT_KEYS)
            self.docs.put("snapshot", documents.snapshot_id(snapshot), snapshot)
            self.docs.put("analysis", documents.analysis_id(item), dict(item))
            self.stats.inc_value("landing/snapshots")
            self.stats.inc_value(
                f"landing/error/{item['snapshot/error']}"
                if item["snapshot/error"]
                else f"landing/correctness/{item['analysis/meta-tag-correctness']}"
            )
            if item.lease:  # from a shared frontier the leader writes no pid: the visiting worker does
                self.docs.put("pid", documents.pid_id(item), documents.only(item, documents.PID_KEYS))
                self.stats.inc_value("landing/pids")
            if item.visit:  # last: a visit is recorded only once its snapshot and analysis are in the store
                self.docs.put("visit", *item.visit)
                self.stats.inc_value("landing/visits")
                if item["snapshot/error"]:
                    self.stats.inc_value("landing/visits/failed")

    def _watch_outage(self):
        since = self.docs.failing_since
        if since is None:
            self.warned_at = None
            return
        now = time.monotonic()
        if self.warned_at is None or now - self.warned_at >= 30:
            self.warned_at = now
            logger.warning(
                "The document store refuses writes (%s); %d documents kept in memory for %.0f s so far, retrying",
                self.docs.last_error,
                self.docs.pending,
                now - since,
            )
        if now - since > self.outage_max and self.stopping is None:
            logger.error(
                "The document store has refused writes for over %.0f s (LANDING_DOCS_OUTAGE_MAX): stopping the crawl",
                self.outage_max,
            )
            self.stats.set_value("landing/docs_outage", True)
            self.stopping = asyncio.get_running_loop().create_task(
                self.crawler.engine.close_spider_async(reason="docstore_unavailable")
            )

    async def close_spider(self, spider=None):
        if self.keeper is not None:
            self.keeper.cancel()
        try:
            # Awaited, not waited on: a last export takes a while, and meanwhile the event loop renews the leases
            # (a continuous leader's lead among them) that would otherwise expire under it.
            self._ack(await asyncio.wrap_future(self.worker.submit(self._close)))
        finally:
            self.worker.shutdown()

    def _close(self):
        """On the store's thread: the last write, the artifacts, the store closed; returns the leases written."""
        written = []
        try:
            self.docs.flush()
            written = self._written()
        except StoreError as error:
            self._save_unwritten(error)
        try:
            stopped = self.stats.get_value(STOPPED)
            if self.config.continuous and self.stats.get_value("landing/run/following"):
                logger.info("Artifacts not exported: the worker leading the continuous run exports them")
            elif stopped and not self.config.continuous:  # asked to stop now: a full rebuild can take minutes
                logger.warning(
                    "Artifacts not exported: the crawl was stopped (%s); the run's next crawl exports them at its close, "
                    "or run `scrapy artifacts`",
                    self.stats.get_value(STOPPED),
                )
            elif self.config.export_on_close and self.stats.get_value("landing/snapshots"):
                if self.docs.pending:
                    logger.error("Artifacts not exported: the document store is missing documents of this crawl")
                else:
                    if stopped:
                        logger.warning(
                            "%s: continuous mode exports a last version before it stops (its versions are what it "
                            "makes)",
                            stopped,
                        )
                    export_or_say(self.docs, self.config, self.stats)
        finally:
            self.docs.close()
        return written

    def _save_unwritten(self, error):
        count = self.docs.pending
        self.stats.set_value("landing/docs_unwritten", count)
        path = self.unwritten_dir / f"docs-{clock.now():%Y%m%dT%H%M%SZ}-{os.getpid()}.jsonl"
        try:
            unwritten.save(path, self.docs.unwritten())
        except OSError as save_error:
            logger.critical(
                "%d documents are lost: the document store refused them (%s) and %s could not be written (%s)",
                count,
                error,
                path,
                save_error,
            )
            return
        self.docs.abandon()
        logger.error(
            "The document store refused %d documents (%s); they are saved in %s: "
            "run `scrapy load %s` once the store is back",
            count,
            error,
            path,
            path,
        )
