"""Item pipelines: page to its analysis, body to the blob store, documents to the store, artifacts at close."""
import asyncio
import json
import logging

from .core import documents
from .core.reading import read
from .items import AnalysisItem, PidItem, SnapshotItem
from .rebuild import rebuild
from .stores import open_docs, open_blobs

logger = logging.getLogger(__name__)


class Stores:
    """The crawl's document and blob stores, opened once and shared by the pipelines."""

    def __init__(self, settings):
        self.docs = open_docs(settings.get("LANDING_DOCS"))
        self.blobs = open_blobs(settings.get("LANDING_BLOBS"))

    @classmethod
    def of(cls, crawler):
        if getattr(crawler, "landing_stores", None) is None:
            crawler.landing_stores = cls(crawler.settings)
        return crawler.landing_stores


class BlobPipeline:
    """Stores a snapshot's body under its sha256, and the snapshot's JSON beside it."""

    def __init__(self, crawler):
        self.blobs, self.stats = Stores.of(crawler).blobs, crawler.stats

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    async def process_item(self, item, spider=None):
        if isinstance(item, SnapshotItem) and item.body is not None:
            # In a worker thread: a remote store's round trips (S3) must not stall the crawl's event loop.
            if await asyncio.to_thread(self._put, item):
                self.stats.inc_value("landing/blobs_written")
        return item

    def _put(self, item) -> bool:
        digest = item["snapshot/content-hash"]
        written = self.blobs.put(f"snapshot/{digest}", item.body)
        snapshot = documents.only(item, documents.PID_KEYS, documents.SNAPSHOT_KEYS)
        self.blobs.put(f"snapshot/{digest}.json", json.dumps(snapshot, sort_keys=True).encode())
        return written


class AnalysisPipeline:
    """Turns a snapshot into its analysis (landing.core.reading)."""

    def process_item(self, item, spider=None):
        if isinstance(item, SnapshotItem) and not isinstance(item, AnalysisItem):
            return AnalysisItem(read(dict(item), item.body, documents.now()), body=item.body)
        return item


class DocumentPipeline:
    """Writes pid, snapshot and analysis documents under derived ids; at close, reports and artifacts."""

    def __init__(self, crawler):
        self.crawler, self.stats = crawler, crawler.stats
        self.docs = Stores.of(crawler).docs

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def process_item(self, item, spider=None):
        if isinstance(item, PidItem):
            self.docs.put("pid", documents.pid_id(item), dict(item))
            self.stats.inc_value("landing/pids")
        elif isinstance(item, AnalysisItem):
            snapshot = documents.only(item, documents.PID_KEYS, documents.SNAPSHOT_KEYS)
            self.docs.put("snapshot", documents.snapshot_id(snapshot), snapshot)
            self.docs.put("analysis", documents.analysis_id(item), dict(item))
            self.stats.inc_value("landing/snapshots")
            self.stats.inc_value(f"landing/error/{item['snapshot/error']}" if item["snapshot/error"]
                                 else f"landing/correctness/{item['analysis/meta-tag-correctness']}")
        return item

    def close_spider(self, spider=None):
        self.docs.flush()
        try:
            settings = self.crawler.settings
            if settings.getbool("LANDING_EXPORT_ON_CLOSE") and self.stats.get_value("landing/snapshots"):
                summary = rebuild(self.docs, settings.get("LANDING_ARTIFACTS_DIR"))
                for name, value in summary["lines"].items():
                    self.stats.set_value(f"landing/artifacts/{name}", value)
                logger.info("Artifacts exported to %s (%s)", summary["version"],
                            ", ".join(f"{k}: {v} lines" for k, v in summary["lines"].items()))
        finally:
            self.docs.close()
            Stores.of(self.crawler).blobs.close()
