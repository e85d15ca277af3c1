"""`scrapy analyze` and `scrapy export` on a crawled store: no network, nothing lost, clear errors."""

import json
import shutil
import sqlite3

import pytest

from landing.core.registries.names import KEYS, UNKNOWN, keyed
from landing.stores import open_blobs, open_docs
from tests.sampler.crawling import Stores

STRIP = ("analysis/timestamp",)


@pytest.fixture
def copied(every_crawl, tmp_path):
    """A private copy of the every-scenario crawl's stores, free to change."""
    stores, _ = every_crawl
    shutil.copy(stores.root / "landing.db", tmp_path / "landing.db")
    shutil.copytree(stores.root / "blobs", tmp_path / "blobs")
    return Stores(tmp_path)


def _without_timestamps(docs):
    return {d["pid/doi"]: {k: v for k, v in d.items() if k not in STRIP} for d in docs}


def test_analyze_reproduces_the_crawls_analyses_exactly(copied):
    before = _without_timestamps(copied.export("analysis"))
    done = copied.scrapy("analyze")
    assert done.returncode == 0, done.stderr
    assert f"{len(before):,} snapshots analysed" in done.stdout and " 0 analyses changed" in done.stdout
    assert _without_timestamps(copied.export("analysis")) == before


def test_analyze_repairs_an_analysis_from_the_stored_body(copied):
    original = next(d for d in copied.export("analysis") if d["analysis/meta-tag-correctness"] == "ok")
    key = f"{original['pid/doi']} http {original['snapshot/timestamp'][:10]}"
    with open_docs(f"sqlite:///{copied.root / 'landing.db'}") as docs:
        docs.put("analysis", key, {**original, "analysis/meta-tag-correctness": "missing"})
    done = copied.scrapy("analyze")
    assert done.returncode == 0 and " 1 analyses changed" in done.stdout
    repaired = next(d for d in copied.export("analysis") if d["pid/doi"] == original["pid/doi"])
    assert repaired["analysis/meta-tag-correctness"] == "ok"


def test_analyze_reports_snapshots_whose_body_is_missing_and_keeps_their_analysis(copied):
    victim = next(d for d in copied.export("analysis") if d["analysis/meta-tag-correctness"] == "ok")
    blobs = open_blobs(f"file://{copied.root / 'blobs'}")
    digest = victim["snapshot/content-hash"]
    path = next(p for p in (copied.root / "blobs").rglob(digest) if p.is_file())
    path.unlink()
    assert not blobs.exists(f"snapshot/{digest}")
    done = copied.scrapy("analyze")
    assert done.returncode == 1
    assert "1 skipped (body missing from the blob store)" in done.stdout
    kept = next(d for d in copied.export("analysis") if d["pid/doi"] == victim["pid/doi"])
    assert kept["analysis/meta-tag-correctness"] == "ok"


def _as_written_before_hops(db):
    """Rewrite a store's snapshots and analyses as stores were written before snapshot/hops: hops in snapshot/urls."""
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT kind, id, doc FROM docs WHERE kind IN ('snapshot', 'analysis')").fetchall()
        for kind, doc_id, text in rows:
            doc = json.loads(text)
            doc["snapshot/urls"] = doc.pop("snapshot/hops")
            con.execute("UPDATE docs SET doc = ? WHERE kind = ? AND id = ?", (json.dumps(doc), kind, doc_id))
    return len(rows)


def test_a_store_written_with_hops_in_snapshot_urls_is_analysed_and_exported_in_today_s_form(copied):
    before = _without_timestamps(copied.export("analysis"))
    assert _as_written_before_hops(copied.root / "landing.db") == 2 * len(before)
    done = copied.scrapy("analyze")
    assert done.returncode == 0 and " 0 analyses changed" in done.stdout, done.stderr
    assert _without_timestamps(copied.export("analysis")) == before
    snapshots = copied.export("snapshot")
    assert all(isinstance(url, str) for doc in snapshots for url in doc["snapshot/urls"]) and len(snapshots) == len(
        before
    )


def test_analyze_reads_a_store_written_before_owners_names_with_null_names(copied):
    before = _without_timestamps(copied.export("analysis"))
    assert {d["pid/member-name"] is not None for d in before.values()} == {True}  # kept: the test above
    with sqlite3.connect(copied.root / "landing.db") as con:
        rows = con.execute("SELECT kind, id, doc FROM docs WHERE kind IN ('pid', 'snapshot', 'analysis')").fetchall()
        for kind, doc_id, text in rows:
            old = {k: v for k, v in json.loads(text).items() if k not in KEYS["pid"]}
            con.execute("UPDATE docs SET doc = ? WHERE kind = ? AND id = ?", (json.dumps(old), kind, doc_id))
    done = copied.scrapy("analyze")
    assert done.returncode == 0 and " 0 analyses changed" in done.stdout, done.stderr
    unnamed = {doi: {**doc, **keyed("pid", UNKNOWN)} for doi, doc in before.items()}
    assert _without_timestamps(copied.export("analysis")) == unnamed


@pytest.fixture(scope="module")
def exported_analyses(every_crawl):
    """`scrapy export analysis` of the every-scenario crawl, run once for the tests that read what it wrote."""
    return every_crawl[0].export_command("analysis")


def test_export_writes_namespaced_keys_only(every_crawl, exported_analyses):
    stores, _ = every_crawl
    for kind, stages in (
        ("pid", {"pid"}),
        ("snapshot", {"pid", "snapshot"}),
        ("analysis", {"pid", "snapshot", "analysis"}),
    ):
        docs = exported_analyses if kind == "analysis" else stores.export_command(kind)
        assert {key.split("/")[0] for doc in docs for key in doc} == stages, kind


def test_export_writes_every_stored_document_of_its_kind_as_the_store_reads_it(every_crawl, exported_analyses):
    stores, _ = every_crawl
    # The other tests read stores in their own process: the same documents.
    assert len(exported_analyses) > 50 and exported_analyses == stores.export("analysis")


def test_export_of_an_unknown_kind_is_a_usage_error(copied):
    done = copied.scrapy("export", "snapshots", "-o", str(copied.root / "x.jsonl"))
    assert done.returncode == 2
    assert "name one kind to export: pid, snapshot, analysis, report" in done.stderr
    assert "Traceback" not in done.stderr


def test_export_without_an_output_is_a_usage_error(copied):
    done = copied.scrapy("export", "pid")
    assert done.returncode == 2 and "-o FILE.jsonl" in done.stderr


def test_a_malformed_store_setting_is_a_usage_error_not_a_traceback(copied):
    done = copied.scrapy("export", "pid", "-o", "-", overrides=["-s", "LANDING_DOCS=postgres://x/y"])
    assert done.returncode == 2 and "LANDING_DOCS" in done.stderr and "Traceback" not in done.stderr
