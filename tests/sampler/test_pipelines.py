"""DocumentPipeline with a shared frontier: a DOI's lease is acked only once its pid and visit record are written."""
import pytest
import scrapy
from scrapy.utils.test import get_crawler

from landing import settings as project
from landing.core import documents
from landing.sampler.items import AnalysisItem
from landing.sampler.pipelines import DocumentPipeline, Stores

LEASE = ("r/0000001/0000", "token")


@pytest.fixture
def pipeline(tmp_path):
    settings = {name: getattr(project, name) for name in dir(project) if name.isupper()}
    crawler = get_crawler(scrapy.Spider, {**settings, "LANDING_DOCS": f"sqlite:///{tmp_path}/d.db",
                                          "LANDING_BLOBS": f"file://{tmp_path}/b", "LANDING_DOCS_BATCH_DOCS": 1000,
                                          "LANDING_DOCS_BATCH_SECONDS": 3600})
    crawler.stats.open_spider()
    made = DocumentPipeline(crawler)
    yield made
    Stores.of(crawler).worker.submit(made.docs.close).result()
    made.worker.shutdown()


def _final(lease=LEASE):
    doc = {**documents.pid("10.1234/a", "crossref", "7", "2026-11-23T00:00:00Z"), "snapshot/timestamp": "2026-11-23T00:00:01Z",
           "snapshot/driver": "http", "snapshot/error": None, "analysis/meta-tag-correctness": "correct"}
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
        "10.1234/a", "crossref", "7", "2026-11-23T00:00:00Z")
    assert _on_store_thread(pipeline, pipeline.docs.get, "visit", "r/0000001/0000") is not None


def test_a_visit_without_a_lease_writes_no_pid_and_releases_nothing(pipeline):
    _on_store_thread(pipeline, pipeline._put, _final(lease=None))
    assert _on_store_thread(pipeline, pipeline._flush_written) == []
    assert _on_store_thread(pipeline, pipeline.docs.get, "pid", "10.1234/a") is None
