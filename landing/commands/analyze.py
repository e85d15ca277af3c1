"""`scrapy analyze`: re-run the analysis of every stored snapshot from its stored body, with no network."""

import sys
import time

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from landing import clock
from landing.commands.stores import blobs_of, config_of, docs_of
from landing.core.pages import documents
from landing.core.pages.page import Page
from landing.core.pages.reading import as_crawled, read


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = False
    default_settings = {"LOG_ENABLED": False}

    def short_desc(self):
        return "Re-analyse every stored snapshot from the blob store (no network); updates analyses in place"

    def run(self, args, opts):
        if args:
            raise UsageError("scrapy analyze takes no arguments")
        cfg = config_of(self.settings)
        clock.set_clock(cfg.clock, cfg.clock_speed, cfg.clock_since)
        docs, blobs = docs_of(self.settings), blobs_of(self.settings)
        counts, started, timestamp = {"analysed": 0, "missing-body": 0, "changed": 0}, time.monotonic(), clock.stamp()
        total = docs.count("snapshot")
        for n, snapshot in enumerate(docs.scan("snapshot"), 1):
            digest = snapshot.get("snapshot/content-hash")
            body = blobs.get(f"snapshot/{digest}") if digest else None
            if digest and body is None:
                counts["missing-body"] += 1  # recorded, not guessed at: the old analysis stays
                continue
            page = Page(body, snapshot.get("snapshot/content-type")) if body is not None else None
            fresh = read(as_crawled(snapshot), page, timestamp)  # a reclassification is the reading's to make
            key = documents.analysis_id(snapshot)
            old = docs.get("analysis", key) or {}
            if any(old.get(k) != fresh.get(k) for k in documents.ANALYSIS_KEYS[:-1] + ("snapshot/error",)):
                counts["changed"] += 1
            docs.put("analysis", key, fresh)
            if fresh["snapshot/error"] != snapshot.get("snapshot/error"):
                docs.put(
                    "snapshot",
                    documents.snapshot_id(snapshot),
                    documents.only(fresh, documents.PID_KEYS, documents.SNAPSHOT_KEYS),
                )
            counts["analysed"] += 1
            if n % 5000 == 0:
                print(f"analyze: {n:,}/{total:,} snapshots", file=sys.stderr, flush=True)
        docs.close()
        seconds = time.monotonic() - started
        print(
            f"analyze: {counts['analysed']:,} snapshots analysed in {seconds:.1f} s, {counts['changed']:,} analyses "
            f"changed, {counts['missing-body']:,} skipped (body missing from the blob store)"
        )
        if counts["missing-body"]:
            self.exitcode = 1
