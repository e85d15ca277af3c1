"""landing.publish.pruning: the retention applied to real stores (SQLite and files; the Elasticsearch stand-in and
moto's S3 server), and the reports and artifacts unchanged by it."""

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from landing.artifacts import artifact_files
from landing.core.pages import documents
from landing.core.pages.documents import content_hash
from landing.core.publishing.artifact_format import FILENAMES
from landing.core.sampling import runs
from landing.publish import publish
from landing.publish.pruning import prune
from landing.stores.file_blobs import FileBlobStore
from landing.stores.sqlite import SqliteDocStore
from tests.stores.conftest import BLOB_STORES, DOC_STORES

NOW = datetime(2026, 12, 1, tzinfo=UTC)
PAIRS = {"sqlite-files": ("sqlite", "files"), "elastic-s3": ("elastic-standin", "s3-moto")}


@pytest.fixture(params=sorted(PAIRS))
def stores(request, tmp_path):
    """(docs, blobs) of one pair of backends, on fresh data."""
    doc_kind, blob_kind = PAIRS[request.param]
    with DOC_STORES[doc_kind](tmp_path) as open_docs, BLOB_STORES[blob_kind](tmp_path) as open_blobs:
        docs, blobs = open_docs(batch_docs=7, scan_chunk=5), open_blobs()
        yield docs, blobs
        docs.close()
        blobs.close()


def visit(doi, day, domain="a.example", error=None, page=None, correctness="ok", driver="http", member="1"):
    """An analysis document as the sampler stores it; `page` is the body's text (its hash names the blob)."""
    when = f"2026-11-{day:02}T08:00:00Z"
    snapshot = documents.snapshot(
        documents.pid(doi, "crossref", member, when),
        timestamp=when,
        driver=driver,
        final_url=None if error else f"https://{domain}/{doi}",
        resource_url=f"https://{domain}/{doi}",
        error=error,
        status=None if error else 200,
        content_hash=content_hash(page.encode()) if page else None,
    )
    found = None if error else {"analysis/meta-tag-correctness": correctness, "analysis/doi-in-meta-tags": "https-doi"}
    return documents.analysis(snapshot, found, when)


def store(docs, blobs, visits, page_of=None):
    for doc in visits:
        doc_id = documents.snapshot_id(doc)
        docs.put("snapshot", doc_id, documents.only(doc, documents.PID_KEYS, documents.SNAPSHOT_KEYS))
        docs.put("analysis", doc_id, doc)
        if doc["snapshot/content-hash"]:
            page = (page_of or {}).get(doc_id) or doc_id
            blobs.put(f"snapshot/{doc['snapshot/content-hash']}", page.encode())
            blobs.put(f"snapshot/{doc['snapshot/content-hash']}.json", b"{}")
    docs.flush()


# 10.1/a moves from old.example to new.example on day 3; each visit's page differs.
MOVED = [visit("10.1/a", day, "old.example" if day < 3 else "new.example", page=f"a{day}") for day in range(1, 6)]
# 10.1/b: the same page every day, then a failed visit.
STEADY = [visit("10.1/b", day, page="b") for day in (1, 2, 3)] + [visit("10.1/b", 4, error="timeout")]
ORPHAN = f"snapshot/{content_hash(b'nobody names me')}"


def ids(docs, kind):
    return [doc_id for doc_id, _ in docs.items(kind)]


def tree(directory: Path) -> list[str]:
    return sorted(str(path) for path in directory.rglob("*"))


def run(docs, blobs, tmp_path, **options):
    return prune(docs, blobs, tmp_path / "artifacts", NOW, 30, options.pop("keep_last", 1), grace_seconds=0, **options)


def test_a_doi_keeps_its_first_snapshot_its_changes_the_one_reports_count_and_its_last(stores, tmp_path):
    docs, blobs = stores
    store(docs, blobs, MOVED + STEADY)
    run(docs, blobs, tmp_path)
    kept = ["10.1/a http 2026-11-01", "10.1/a http 2026-11-03", "10.1/a http 2026-11-05"]
    kept += ["10.1/b http 2026-11-01", "10.1/b http 2026-11-03", "10.1/b http 2026-11-04"]
    assert (ids(docs, "snapshot"), ids(docs, "analysis")) == (kept, kept)


def test_blobs_no_kept_snapshot_names_are_deleted_with_their_json(stores, tmp_path):
    docs, blobs = stores
    store(docs, blobs, MOVED + STEADY)
    blobs.put(ORPHAN, b"nobody names me")
    summary = run(docs, blobs, tmp_path)
    named = {f"snapshot/{content_hash(page.encode())}" for page in ("a1", "a3", "a5", "b")}
    assert sorted(blobs.keys("snapshot/")) == sorted(named | {key + ".json" for key in named})
    assert (summary["blobs_deleted"], summary["blobs_kept"]) == (5, 8)  # a2, a4 and their .json; the orphan


def test_blobs_written_within_the_grace_are_kept_whoever_names_them(stores, tmp_path):
    docs, blobs = stores
    store(docs, blobs, MOVED)
    blobs.put(ORPHAN, b"nobody names me")
    summary = prune(docs, blobs, tmp_path / "artifacts", NOW, 30, 1)  # the default grace: an hour
    assert (summary["blobs_deleted"], summary["blobs_recent"], ORPHAN in set(blobs.keys())) == (0, 11, True)


def test_the_summary_counts_what_went_and_what_stayed(stores, tmp_path):
    docs, blobs = stores
    store(docs, blobs, MOVED + STEADY)
    blobs.put("snapshot/not-a-hash", b"?")
    summary = run(docs, blobs, tmp_path)
    assert {key: value for key, value in summary.items() if "report" not in key and key != "unrecognised"} == {
        "dois": 2,
        "dois_skipped": 0,
        "snapshots_deleted": 3,
        "analyses_deleted": 3,
        "snapshots_kept": 6,
        "blobs_deleted": 4,
        "blobs_kept": 8,
        "blobs_recent": 0,
        "blobs_unrecognised": 1,
        "blobs_checked": True,
        "samples_deleted": 0,
        "visits_deleted": 0,
        "versions_compressed": 0,
        "dry_run": False,
    }
    assert blobs.get("snapshot/not-a-hash") == b"?"


def test_a_dry_run_counts_the_same_and_deletes_nothing(stores, tmp_path):
    docs, blobs = stores
    store(docs, blobs, MOVED + STEADY)
    make_versions(tmp_path / "artifacts", ["20261001T000000Z", "20261015T000000Z", "20261130T000000Z"])
    before = (ids(docs, "snapshot"), ids(docs, "analysis"), sorted(blobs.keys()), tree(tmp_path / "artifacts"))
    dry = run(docs, blobs, tmp_path, dry_run=True)
    after = (ids(docs, "snapshot"), ids(docs, "analysis"), sorted(blobs.keys()), tree(tmp_path / "artifacts"))
    assert after == before
    assert dry["deleted_reports"] == ["20261001T000000Z"]
    assert {**run(docs, blobs, tmp_path), "dry_run": True} == dry


def test_a_second_prune_finds_nothing_more_to_delete(stores, tmp_path):
    docs, blobs = stores
    store(docs, blobs, MOVED + STEADY)
    make_versions(tmp_path / "artifacts", ["20261001T000000Z", "20261015T000000Z", "20261130T000000Z"])
    assert run(docs, blobs, tmp_path)["reports_deleted"] == 1
    again = run(docs, blobs, tmp_path)
    assert (again["snapshots_deleted"], again["analyses_deleted"], again["blobs_deleted"]) == (0, 0, 0)
    assert again["reports_deleted"] == 0


def test_the_ledger_and_other_kinds_are_not_touched(stores, tmp_path):
    docs, blobs = stores
    store(docs, blobs, MOVED)
    docs.put("pid", "10.1/a", documents.only(MOVED[0], documents.PID_KEYS))
    for doc in MOVED:
        docs.put("visit", f"run-1 {doc['snapshot/timestamp']}", {"visit/doi": "10.1/a"})
    docs.flush()
    run(docs, blobs, tmp_path)
    assert (docs.count("pid"), docs.count("visit"), docs.count("snapshot")) == (1, 5, 3)


def test_the_continuous_runs_samples_and_visits_of_closed_rounds_are_deleted_the_open_rounds_kept(stores, tmp_path):
    docs, blobs = stores
    docs.put("run", "continuous", {"run/id": "continuous", "run/mode": "continuous", "run/owners": 4})
    docs.put("run", "full", {"run/id": "full", "run/mode": "full", "run/owners": 4})
    opened = [{"from": 2, "to": 3, "planned": "2026-11-30T00:00:00Z", "prefixes": ["crossref 10.3"]}]
    docs.put("continuous", "state", {"continuous/run": "continuous", "continuous/open": opened})
    for run_id in ("continuous", "full"):
        for order in range(5):  # order 4: a round being begun, past the run's owners
            docs.put("sample", runs.sample_id(run_id, order), {"sample/order": order})
            docs.put("visit", runs.visit_id(run_id, order, 0), {"visit/order": order})
    docs.flush()
    summary = run(docs, blobs, tmp_path)
    kept = [f"continuous/{o:07}" for o in (2, 4)] + [f"full/{o:07}" for o in range(5)]
    assert (ids(docs, "sample"), ids(docs, "visit")) == (kept, [f"{doc_id}/0000" for doc_id in kept])
    assert (summary["samples_deleted"], summary["visits_deleted"]) == (3, 3)


def test_without_a_continuous_run_no_sample_or_visit_is_deleted(stores, tmp_path):
    docs, blobs = stores
    docs.put("run", "continuous", {"run/id": "continuous", "run/mode": "full", "run/owners": 2})
    docs.put("continuous", "state", {"continuous/run": "continuous", "continuous/open": []})
    docs.put("sample", runs.sample_id("continuous", 0), {"sample/order": 0})
    docs.flush()
    summary = run(docs, blobs, tmp_path)
    assert (docs.count("sample"), summary["samples_deleted"]) == (1, 0)


def test_an_empty_document_store_leaves_the_blobs_alone(stores, tmp_path):
    docs, blobs = stores
    blobs.put(ORPHAN, b"nobody names me")
    summary = run(docs, blobs, tmp_path)
    assert (summary["blobs_checked"], list(blobs.keys())) == (False, [ORPHAN])


def test_a_doi_whose_documents_are_not_under_their_derived_ids_is_kept_whole(stores, tmp_path):
    docs, blobs = stores
    store(docs, blobs, MOVED)
    docs.put("snapshot", "10.1/a http 2026-11-02-old", MOVED[1])  # an id no snapshot of today's code has
    docs.flush()
    summary = run(docs, blobs, tmp_path)
    assert (summary["dois_skipped"], docs.count("snapshot"), docs.count("analysis")) == (1, 6, 5)


def make_versions(directory: Path, names):
    """Version folders, each with its artifact files' changes.json, figures, report folder and report data."""
    for name in names:
        version = directory / "versions" / name
        (version / "report").mkdir(parents=True)
        (version / "report" / "index.html").write_text("<p>report</p>")
        for part in ("changes.json", "report.json", "members.jsonl.gz", "domains.jsonl.gz", "alerts.jsonl"):
            (version / part).write_text("{}")


def test_old_versions_lose_their_report_but_the_last_of_each_month_and_unrecognised_names_keep_it(tmp_path):
    names = ["20260905T000000Z", "20260920T000000Z", "20261003T000000Z", "20261010T000000Z", "20261010T000000Z-1"]
    names += ["20261115T000000Z", "notes"]
    make_versions(tmp_path / "artifacts", names)
    with SqliteDocStore(tmp_path / "docs.db") as docs:
        summary = prune(docs, None, tmp_path / "artifacts", NOW, 30, 1)
    assert [path.name for path in artifact_files.versions(tmp_path / "artifacts")] == names
    reported = [name for name in names if (tmp_path / "artifacts" / "versions" / name / "report").exists()]
    assert reported == ["20260920T000000Z", "20261010T000000Z-1", "20261115T000000Z", "notes"]
    assert sorted(path.name for path in (tmp_path / "artifacts" / "versions" / names[0]).iterdir()) == [
        "changes.json",
        "report.json",
    ]
    assert (summary["deleted_reports"], summary["unrecognised"], summary["reports_kept"]) == (
        ["20260905T000000Z", "20261003T000000Z", "20261010T000000Z"],
        ["notes"],
        3,
    )
    assert not list((tmp_path / "artifacts").glob(".removing-*"))


def test_every_versions_artifact_files_are_still_there_after_60_days_of_daily_versions_and_prunes_between(tmp_path):
    files = {name: f"{name}\n" for name in (*FILENAMES, "changes.json")}
    start, names = datetime(2026, 9, 1, tzinfo=UTC), []
    with SqliteDocStore(tmp_path / "docs.db") as docs:
        for day in range(60):
            names.append(f"{start + timedelta(days=day):%Y%m%dT%H%M%SZ}")
            make_versions(tmp_path, names[-1:])
            for name, text in files.items():
                (tmp_path / "versions" / names[-1] / name).write_text(text)
            if day % 4 == 3:  # every fourth day, the last on the 60th
                prune(docs, None, tmp_path, start + timedelta(days=day, hours=1), 30, 1)
    found = artifact_files.versions(tmp_path)
    assert [version.name for version in found] == names
    kept = [artifact_files.text_of(artifact_files.found_file(version, name)) for version in found for name in files]
    assert kept == list(files.values()) * 60
    assert sum((version / "report").exists() for version in found) == 30 + 1  # 30 days, and September's last
    assert sum((version / "prefixes-domains.csv.gz").exists() for version in found) == 30  # older than 30 days


def history(seed=3, dois=40, days=10):
    """Several visits per DOI over `days`, by both drivers, with moves, failures and meta-tag changes at random."""
    rng, visits = random.Random(seed), []
    for n in range(dois):
        doi, domain, correctness = f"10.{1000 + n % 7}/{n}", f"host{n % 9}.example", rng.choice(["ok", "missing"])
        for day in range(1, days + 1):
            if rng.random() < 0.1:
                domain = f"moved{n}.example"
            if rng.random() < 0.1:
                correctness = rng.choice(["ok", "missing", "incorrect"])
            error = "timeout" if rng.random() < 0.15 else None
            for driver in ("http", "browser") if rng.random() < 0.3 else ("http",):
                page = None if error else f"{doi} {domain} {correctness} {rng.random() if n % 4 == 0 else ''}"
                member = str(n % 5)
                visits.append(visit(doi, day, domain, error, page, correctness, driver, member))
    return visits


def exported(docs, directory):
    publish(docs, directory, report=False)
    reports = {doc_id: doc for doc_id, doc in docs.items("report")}
    return {name: (directory / name).read_text() for name in FILENAMES}, reports


def test_reports_and_artifacts_are_the_same_after_a_prune(tmp_path):
    # SQLite and files only: the other backends pass the same deletes above, and this store's 500 visits cost them
    # a minute of round trips.
    docs, blobs = SqliteDocStore(tmp_path / "docs.db"), FileBlobStore(tmp_path / "blobs")
    store(docs, blobs, history())
    before = exported(docs, tmp_path / "before")
    summary = run(docs, blobs, tmp_path, keep_last=1)
    assert summary["snapshots_deleted"] > 100  # the test prunes for real
    assert exported(docs, tmp_path / "after") == before
    docs.close()


def test_a_negative_number_to_keep_is_refused(tmp_path):
    with SqliteDocStore(tmp_path / "docs.db") as docs, pytest.raises(ValueError, match="not -1 and 30"):
        prune(docs, None, tmp_path / "artifacts", NOW, 30, -1)


def test_new_blobs_are_spared_twice_the_longest_store_outage_and_at_least_a_minute():
    from landing.publish.pruning import grace

    assert (grace(300.0), grace(0.0)) == (600.0, 60.0)
