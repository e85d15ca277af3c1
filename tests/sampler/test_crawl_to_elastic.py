"""The sampler and every command that reads the store, with documents in Elasticsearch (the stand-in).

The same world is crawled into SQLite too: the two stores must come out with the same documents and
artifacts. A store that refuses writes stops the crawl with exit 1, and `scrapy load` recovers everything.
"""

import json
import subprocess

import pytest

from tests import elastic, forked
from tests.sampler.crawling import PROJECT, Stores, at_once

# Timestamps differ between two crawls, and so do cookie-wall chains: with one cookie jar per crawl, how many
# hops a site's session redirect takes depends on which of its DOIs was visited first.
VOLATILE = ("pid/timestamp", "snapshot/timestamp", "analysis/timestamp", "snapshot/urls", "snapshot/hops")


def _stable(docs):
    return sorted(json.dumps({k: v for k, v in doc.items() if k not in VOLATILE}, sort_keys=True) for doc in docs)


@pytest.fixture(scope="module")
def crawls(small_sandbox, request, tmp_path_factory):
    """The same world crawled into Elasticsearch and into SQLite, at once (tests.sampler.crawling.at_once)."""
    server, prefix = elastic.standin(), "crawl"

    def into(stores):
        return lambda: (stores, stores.crawl(small_sandbox.proxy))

    prepared = {
        "elastic_crawl": lambda: into(
            Stores(
                tmp_path_factory.mktemp("elastic-crawl"),
                docs=server.url,
                extra=("-s", f"LANDING_DOCS_INDEX_PREFIX={prefix}"),
            )
        ),
        "sqlite_crawl": lambda: into(Stores(tmp_path_factory.mktemp("sqlite-crawl"))),
    }
    with at_once(request, prepared) as started:
        yield started
    elastic.delete_indices(server.url, prefix)


@pytest.fixture(scope="module")
def elastic_crawl(crawls):
    return crawls["elastic_crawl"].result()


@pytest.fixture(scope="module")
def sqlite_crawl(crawls):
    return crawls["sqlite_crawl"].result()


@pytest.mark.parametrize("kind", ["pid", "snapshot", "analysis", "report"])
def test_elasticsearch_and_sqlite_hold_the_same_documents_after_the_same_crawl(elastic_crawl, sqlite_crawl, kind):
    in_elastic, in_sqlite = elastic_crawl[0].export(kind), sqlite_crawl[0].export(kind)
    assert in_elastic and _stable(in_elastic) == _stable(in_sqlite)


def test_scrapy_export_writes_every_document_elasticsearch_holds(elastic_crawl):
    stores, _ = elastic_crawl
    written = stores.export_command("analysis")  # the other tests read the store in their own process
    assert written and written == stores.export("analysis")


def _timeless(path):
    """An artifact file without its first-seen and last-seen times: two crawls visit at different times."""
    if path.suffix == ".csv":  # prefix,domain,ra in the lists; prefix,domain,first-seen,last-seen in the seen file
        fields = 2 if path.name == "prefixes-domains-seen.csv" else 3
        return [line.split(",")[:fields] for line in path.read_text().splitlines()]
    decisions = json.loads(path.read_text())
    for row in decisions["domains-prefixes"].values():
        for cell in row.values():
            cell.pop("first-seen", None), cell.pop("last-seen", None)
    return decisions


def test_the_artifacts_exported_from_elasticsearch_equal_those_from_sqlite(elastic_crawl, sqlite_crawl):
    (from_elastic, _), (from_sqlite, _) = elastic_crawl, sqlite_crawl
    names = sorted(p.name for p in from_sqlite.artifacts.iterdir() if p.is_file() and not p.name.startswith("."))
    assert names and [_timeless(from_elastic.artifacts / n) for n in names] == [
        _timeless(from_sqlite.artifacts / n) for n in names
    ]


def test_analyze_and_artifacts_run_unchanged_on_elasticsearch(elastic_crawl):
    stores, _ = elastic_crawl
    analyzed = stores.scrapy("analyze")
    assert analyzed.returncode == 0, analyzed.stderr[-2000:]
    assert " 0 analyses changed, 0 skipped" in analyzed.stdout
    rebuilt = stores.scrapy("artifacts")
    assert rebuilt.returncode == 0, rebuilt.stderr[-2000:]
    assert rebuilt.stdout.startswith("artifacts: ")


def test_match_evaluate_reads_elasticsearch_and_matches_no_wrong_doi(elastic_crawl, small_sandbox):
    stores, _ = elastic_crawl
    # Not about pacing: without AutoThrottle the pages that answer 500 are not retried up to 30 s apart.
    overrides = ["-s", f"LANDING_SANDBOX={small_sandbox.proxy}", "-s", "AUTOTHROTTLE_ENABLED=False"]
    done = stores.scrapy("match", "--evaluate", overrides=overrides)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [line.split("|") for line in done.stdout.splitlines() if line.startswith(("| landing", "| pii"))]
    assert rows and all(
        int(row[4].strip().replace(",", "")) == 0 for row in rows if row[2].strip().startswith("checked-url")
    )


def test_a_store_that_refuses_writes_stops_the_crawl_and_scrapy_load_recovers_every_document(
    small_sandbox, sqlite_crawl, tmp_path
):
    server, prefix = elastic.standin(), "outage"
    stores = Stores(tmp_path, docs=server.url, extra=("-s", f"LANDING_DOCS_INDEX_PREFIX={prefix}"))
    # The outage begins with the run's first visit record, inside the stand-in: the plan is stored and the crawl
    # under way, and it cannot visit the whole small world first (a test that polled for the sample index and then
    # began the outage sometimes began it too late).
    server.reject_bulk_items_after(f"{prefix}-visit")
    crawl = forked.popen(
        stores.crawl_command(
            small_sandbox.proxy,
            "-s",
            "TUNING_DOCS_RETRIES=0",
            "-s",
            "TUNING_DOCS_BATCH_DOCS=10",
            "-s",
            "LANDING_DOCS_OUTAGE_MAX=0",
            "-s",
            "CONCURRENT_REQUESTS=8",
        ),
        cwd=PROJECT,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        done = subprocess.CompletedProcess(crawl.args, crawl.wait(timeout=300), None, crawl.stderr.read())
    finally:
        server.reject_bulk_items(0)
    try:
        assert done.returncode == 1, done.stderr[-3000:]
        assert "'finish_reason': 'docstore_unavailable'" in done.stderr
        saved = sorted((tmp_path / "unwritten").iterdir())
        assert len(saved) == 1 and "crawl: the document store refused writes;" in done.stderr
        assert f"run `scrapy load {saved[0]}` once the store is back" in done.stderr
        kinds = ("pid", "snapshot", "analysis", "visit")
        written = sum(len(stores.export(kind)) for kind in kinds)  # before the outage began
        loaded = stores.scrapy("load", str(saved[0]))
        assert loaded.returncode == 0, loaded.stderr
        lines = len(saved[0].read_text().splitlines())
        assert loaded.stdout == f"load: {lines:,} documents loaded\n"
        pids, snapshots, analyses = (stores.export(kind) for kind in ("pid", "snapshot", "analysis"))
        # How much the crawl did before it stopped depends on timing (visits in flight are finished); every
        # document it made is kept either way.
        assert len(snapshots) == len(analyses) <= len(sqlite_crawl[0].export("snapshot"))
        assert server.indices.keys() >= {f"{prefix}-pid"} and "landing-pid" not in server.indices
        assert {d["pid/doi"] for d in snapshots} <= {d["pid/doi"] for d in pids}
        assert written < len(pids) + len(snapshots) + len(analyses) + len(stores.export("visit")) <= written + lines
    finally:
        elastic.delete_indices(server.url, prefix)


def test_a_store_that_refuses_the_runs_first_write_ends_the_crawl_at_once_with_exit_1(small_sandbox, tmp_path):
    server, prefix = elastic.standin(), "refused"
    stores = Stores(tmp_path, docs=server.url, extra=("-s", f"LANDING_DOCS_INDEX_PREFIX={prefix}"))
    server.reject_bulk_items(10**9)
    try:
        done = stores.try_crawl(small_sandbox.proxy, "-s", "TUNING_DOCS_RETRIES=0")
    finally:
        server.reject_bulk_items(0)
        elastic.delete_indices(server.url, prefix)
    assert done.returncode == 1
    assert "Cannot read or record the run in LANDING_DOCS" in done.stderr
    assert "'downloader/request_count'" not in done.stderr  # nothing was asked of the web
