"""landing.sampler.pipelines: bodies to blobs, documents to the store, artifacts at close, leases acked once written."""

import asyncio
import json
import logging
import threading

import pytest
import scrapy
from scrapy.utils.test import get_crawler

from landing import settings as project
from landing.core.pages import documents
from landing.sampler import pipelines
from landing.sampler.items import AnalysisItem, LedgerItem, PidItem
from landing.sampler.pipelines import BlobPipeline, Docs, DocumentPipeline
from landing.stores import open_blobs, open_docs

LEASE = ("r/0000001/0000", "token")


def _crawler(tmp_path):
    settings = {name: getattr(project, name) for name in dir(project) if name.isupper()}
    crawler = get_crawler(
        scrapy.Spider,
        {
            **settings,
            "LANDING_DOCS": f"sqlite:///{tmp_path}/d.db",
            "LANDING_BLOBS": f"file://{tmp_path}/b",
            "TUNING_DOCS_BATCH_DOCS": 1000,
            "TUNING_DOCS_BATCH_SECONDS": 3600,
        },
    )
    crawler.stats.open_spider()
    return crawler


@pytest.fixture
def pipeline(tmp_path):
    crawler = _crawler(tmp_path)
    made = DocumentPipeline(crawler)
    yield made
    Docs.of(crawler).worker.submit(made.docs.close).result()
    made.worker.shutdown()


def _final(lease=LEASE):
    doc = {
        **documents.pid("10.1234/a", "crossref", "7", "2026-11-23T00:00:00Z"),
        "snapshot/timestamp": "2026-11-23T00:00:01Z",
        "snapshot/driver": "http",
        "snapshot/error": None,
        "analysis/meta-tag-correctness": "correct",
    }
    return AnalysisItem(doc, visit=("r/0000001/0000", {"visit/order": 1, "visit/rank": 0}), lease=lease)


def _on_store_thread(pipeline, function, *args):
    return pipeline.worker.submit(function, *args).result()


def test_a_lease_waits_while_its_visit_record_is_buffered(pipeline):
    assert _on_store_thread(pipeline, pipeline._put, _final()) == []
    assert pipeline.docs.pending > 0


def test_a_lease_is_released_for_acking_once_the_buffer_is_written(pipeline):
    _on_store_thread(pipeline, pipeline._put, _final())
    assert _on_store_thread(pipeline, pipeline._flush_written) == [LEASE]
    assert pipeline.docs.pending == 0
    assert _on_store_thread(pipeline, pipeline._flush_written) == []  # released once


def test_a_leased_visit_writes_the_dois_pid_too(pipeline):
    _on_store_thread(pipeline, pipeline._put, _final())
    _on_store_thread(pipeline, pipeline._flush_written)
    assert _on_store_thread(pipeline, pipeline.docs.get, "pid", "10.1234/a") == documents.pid(
        "10.1234/a", "crossref", "7", "2026-11-23T00:00:00Z"
    )
    assert _on_store_thread(pipeline, pipeline.docs.get, "visit", "r/0000001/0000") is not None


def test_a_visit_without_a_lease_writes_no_pid_and_releases_nothing(pipeline):
    _on_store_thread(pipeline, pipeline._put, _final(lease=None))
    assert _on_store_thread(pipeline, pipeline._flush_written) == []
    assert _on_store_thread(pipeline, pipeline.docs.get, "pid", "10.1234/a") is None


def test_the_blob_store_is_closed_by_the_pipeline_that_opened_it_and_only_then(tmp_path, monkeypatch):
    closed = []

    class Blobs:
        blocking = False

        def close(self):
            closed.append("blobs")

    monkeypatch.setattr(pipelines, "open_blobs", lambda url: Blobs())
    crawler = _crawler(tmp_path)
    blobs, docs = BlobPipeline.from_crawler(crawler), DocumentPipeline(crawler)
    asyncio.run(docs.close_spider())
    assert closed == []
    blobs.close_spider()
    assert closed == ["blobs"]


# BlobPipeline: a page's body under its content hash, its snapshot's JSON beside it, in a real file blob store

BODY = b"<html><head><meta name='citation_doi' content='10.1234/a'></head></html>"


def _visited(body=BODY, doi="10.1234/a", error=None):
    """A DOI's analysis as the spider yields it: a page reached (its body along) or a failed visit (no body)."""
    pid = documents.pid(doi, "crossref", "7", "2026-11-23T00:00:00Z")
    snapshot = documents.snapshot(
        pid,
        timestamp="2026-11-23T00:00:01Z",
        driver="http",
        error=error,
        final_url=None if error else "https://pub.example/a",
        status=None if error else 200,
        resource_url=None if error else "https://pub.example/a",
        content_hash=documents.content_hash(body) if body is not None else None,
    )
    found = None if error else {"analysis/meta-tag-correctness": "ok", "analysis/doi-in-meta-tags": "non-url"}
    return AnalysisItem(documents.analysis(snapshot, found, "2026-11-23T00:00:02Z"), body=body)


@pytest.fixture
def blob_pipeline(tmp_path):
    made = BlobPipeline.from_crawler(_crawler(tmp_path))
    yield made
    made.close_spider()


def _blobs(tmp_path):
    return open_blobs(f"file://{tmp_path}/b")


def test_a_pages_body_is_stored_under_its_content_hash(blob_pipeline, tmp_path):
    asyncio.run(blob_pipeline.process_item(_visited()))
    assert _blobs(tmp_path).get(f"snapshot/{documents.content_hash(BODY)}") == BODY


def test_the_json_beside_a_body_is_its_snapshot_without_the_analysis(blob_pipeline, tmp_path):
    item = _visited()
    asyncio.run(blob_pipeline.process_item(item))
    stored = json.loads(_blobs(tmp_path).get(f"snapshot/{documents.content_hash(BODY)}.json"))
    assert stored == documents.only(item, documents.PID_KEYS, documents.SNAPSHOT_KEYS)


def test_a_body_met_again_is_counted_as_written_once(blob_pipeline):
    asyncio.run(blob_pipeline.process_item(_visited()))
    asyncio.run(blob_pipeline.process_item(_visited(doi="10.1234/b")))
    assert blob_pipeline.stats.get_value("landing/blobs_written") == 1


def test_a_visit_without_a_body_writes_no_blob(blob_pipeline, tmp_path):
    asyncio.run(blob_pipeline.process_item(_visited(body=None, error="timeout")))
    assert (list(_blobs(tmp_path).keys()), blob_pipeline.stats.get_value("landing/blobs_written")) == ([], None)


def test_the_blob_pipeline_passes_on_the_item_it_was_given(blob_pipeline):
    item = _visited()
    assert asyncio.run(blob_pipeline.process_item(item)) is item


# DocumentPipeline: the documents of each item, and the artifacts at close


def _stored(tmp_path, kind, doc_id):
    """A document read back from the crawl's store file after the pipeline closed it."""
    with open_docs(f"sqlite:///{tmp_path}/d.db") as docs:
        return docs.get(kind, doc_id)


def _closing_crawler(tmp_path, **settings):
    """_crawler's stores, with the artifacts and any unwritten documents kept under tmp_path as well."""
    crawler = get_crawler(
        scrapy.Spider,
        {
            **_crawler(tmp_path).settings.copy_to_dict(),
            "LANDING_ARTIFACTS_DIR": f"{tmp_path}/artifacts",
            "LANDING_UNWRITTEN_DIR": f"{tmp_path}/unwritten",
            **settings,
        },
    )
    crawler.stats.open_spider()
    return crawler


def test_a_pid_item_is_stored_under_its_doi_and_counted(tmp_path):
    pipeline = DocumentPipeline.from_crawler(_closing_crawler(tmp_path))
    doc = documents.pid("10.1234/a", "crossref", "7", "2026-11-23T00:00:00Z")
    asyncio.run(pipeline.process_item(PidItem(doc)))
    asyncio.run(pipeline.close_spider())
    assert (_stored(tmp_path, "pid", "10.1234/a"), pipeline.stats.get_value("landing/pids")) == (doc, 1)


def test_a_ledger_item_is_stored_under_its_own_kind_and_id(tmp_path):
    pipeline = DocumentPipeline.from_crawler(_closing_crawler(tmp_path))
    asyncio.run(pipeline.process_item(LedgerItem("sample", "r/0000003", {"sample/size": 12})))
    asyncio.run(pipeline.close_spider())
    assert _stored(tmp_path, "sample", "r/0000003") == {"sample/size": 12}


def test_an_analysis_item_stores_its_snapshot_and_its_analysis_under_the_visits_id(tmp_path):
    pipeline = DocumentPipeline.from_crawler(_closing_crawler(tmp_path, LANDING_EXPORT_ON_CLOSE=False))
    item = _visited()
    asyncio.run(pipeline.process_item(item))
    asyncio.run(pipeline.close_spider())
    doc_id = "10.1234/a http 2026-11-23"
    assert (_stored(tmp_path, "snapshot", doc_id), _stored(tmp_path, "analysis", doc_id)) == (
        documents.only(item, documents.PID_KEYS, documents.SNAPSHOT_KEYS),
        dict(item),
    )


def test_a_page_reached_is_counted_by_its_meta_tag_correctness_and_a_failure_by_its_class(tmp_path):
    pipeline = DocumentPipeline.from_crawler(_closing_crawler(tmp_path, LANDING_EXPORT_ON_CLOSE=False))
    asyncio.run(pipeline.process_item(_visited()))
    asyncio.run(pipeline.process_item(_visited(body=None, doi="10.1234/b", error="timeout")))
    asyncio.run(pipeline.close_spider())
    assert {k: v for k, v in pipeline.stats.get_stats().items() if k.startswith("landing/")} == {
        "landing/snapshots": 2,
        "landing/correctness/ok": 1,
        "landing/error/timeout": 1,
    }


def test_close_exports_the_artifacts_of_the_stored_analyses(tmp_path):
    pipeline = DocumentPipeline.from_crawler(_closing_crawler(tmp_path))
    asyncio.run(pipeline.process_item(_visited()))
    asyncio.run(pipeline.close_spider())
    assert (
        (tmp_path / "artifacts" / "prefixes-domains.csv").read_text(),
        pipeline.stats.get_value("landing/artifacts/prefixes-domains.csv"),
    ) == ("10.1234,pub.example,crossref\n", 1)


def test_an_export_that_fails_at_close_is_a_stat_and_one_error_line_not_a_raise(tmp_path, caplog):
    (tmp_path / "artifacts").mkdir()
    (tmp_path / "artifacts" / "versions").write_text("")  # a file where the export makes its versions directory
    pipeline = DocumentPipeline.from_crawler(_closing_crawler(tmp_path))
    asyncio.run(pipeline.process_item(_visited()))
    with caplog.at_level(logging.INFO, logger="landing"):
        asyncio.run(pipeline.close_spider())
    said = f"the export failed: cannot write the artifacts: not a directory: {tmp_path}/artifacts/versions"
    assert pipeline.stats.get_value("landing/export_failed") == said
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [("ERROR", f"Artifacts not exported: {said}")]
    assert _stored(tmp_path, "analysis", "10.1234/a http 2026-11-23") is not None  # what the crawl visited is kept


def test_close_exports_nothing_when_the_crawl_stored_no_snapshot(tmp_path):
    pipeline = DocumentPipeline.from_crawler(_closing_crawler(tmp_path))
    asyncio.run(pipeline.process_item(PidItem(documents.pid("10.1234/a", "crossref", "7", "2026-11-23T00:00:00Z"))))
    asyncio.run(pipeline.close_spider())
    assert (tmp_path / "artifacts").exists() is False


def test_close_exports_nothing_when_export_on_close_is_off(tmp_path):
    pipeline = DocumentPipeline.from_crawler(_closing_crawler(tmp_path, LANDING_EXPORT_ON_CLOSE=False))
    asyncio.run(pipeline.process_item(_visited()))
    asyncio.run(pipeline.close_spider())
    assert (tmp_path / "artifacts").exists() is False


def test_the_event_loop_runs_on_while_close_exports_the_last_version(tmp_path, monkeypatch):
    exporting, ticked = threading.Event(), threading.Event()

    def slow_export(docs, cfg, stats, at=None):
        exporting.set()
        assert ticked.wait(10)  # only the event loop sets it, while this export holds the store's thread

    monkeypatch.setattr(pipelines, "export", slow_export)
    pipeline = DocumentPipeline.from_crawler(_closing_crawler(tmp_path))
    asyncio.run(pipeline.process_item(_visited()))

    async def close_while_ticking():
        closing = asyncio.ensure_future(pipeline.close_spider())
        await asyncio.to_thread(exporting.wait, 10)
        ticked.set()
        await closing

    asyncio.run(close_while_ticking())
    assert ticked.is_set() and exporting.is_set()
