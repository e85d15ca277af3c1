"""`scrapy prune [--dry-run]` on the configured stores: what it deletes, its one-line summary, and its errors."""

import os
import socket
import time

import pytest

from landing.commands.prune import line
from landing.stores.file_blobs import FileBlobStore
from landing.stores.sqlite import SqliteDocStore
from tests.publish.test_pruning import MOVED, STEADY, make_versions, store
from tests.sampler.crawling import Stores
from tests.stores.damaged import damaged_sqlite

VERSIONS = ["20261001T000000Z", "20261015T000000Z", "20261130T000000Z", "notes"]
CLOCK = ("-s", "LANDING_CLOCK=2026-12-01T00:00:00Z", "-s", "TUNING_KEEP_SNAPSHOTS=1")


@pytest.fixture
def stores(tmp_path):
    """Two DOIs visited several times, blobs written two hours ago, and four version directories."""
    stores = Stores(tmp_path)
    blobs = FileBlobStore(stores.blobs.removeprefix("file://"))
    with SqliteDocStore(stores.docs.removeprefix("sqlite:///")) as docs:
        store(docs, blobs, MOVED + STEADY)
    old = time.time() - 7200
    for top, _, names in os.walk(blobs.root):
        for name in names:
            os.utime(os.path.join(top, name), (old, old))
    make_versions(stores.artifacts, VERSIONS)
    stores.blob_store = blobs
    return stores


def snapshots(stores):
    with SqliteDocStore(stores.docs.removeprefix("sqlite:///")) as docs:
        return docs.count("snapshot")


def test_prune_deletes_what_the_retention_drops_and_says_so_in_one_line(stores):
    done = stores.scrapy("prune", overrides=CLOCK)
    assert (done.returncode, done.stdout) == (
        0,
        "prune: deleted 1 old versions' reports (kept 2), compressing 0 versions' artifact files (every version's kept), "
        "3 snapshots and 3 analyses of 2 DOIs (kept 6 snapshots), 4 blobs (kept 8, and 0 too recent to judge); not "
        "versions, left alone: notes\n",
    )
    assert (
        snapshots(stores),
        len(list(stores.blob_store.keys())),
        sorted(os.listdir(stores.artifacts / "versions")),
        sorted(os.listdir(stores.artifacts / "versions" / "20261001T000000Z")),
    ) == (
        6,
        8,
        VERSIONS,
        ["changes.json", "report.json"],
    )


def test_a_dry_run_names_the_versions_it_would_delete_and_deletes_nothing(stores):
    done = stores.scrapy("prune", "--dry-run", overrides=CLOCK)
    assert done.returncode == 0
    assert done.stdout.splitlines()[0] == "  would delete the report of version 20261001T000000Z"
    assert done.stdout.splitlines()[1].startswith("prune: would delete 1 old versions' reports (kept 2), compressing")
    assert (snapshots(stores), len(list(stores.blob_store.keys())), len(os.listdir(stores.artifacts / "versions"))) == (
        9,
        12,
        4,
    )
    assert (stores.artifacts / "versions" / "20261001T000000Z" / "report" / "index.html").is_file()


def test_an_unreachable_document_store_is_one_line_and_exit_2(stores):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # free now, and nothing listens on it
    done = stores.scrapy("prune", overrides=("-s", f"LANDING_DOCS=http://127.0.0.1:{port}"))
    assert (done.returncode, done.stdout, "Traceback" in done.stderr) == (2, "", False)
    assert f"LANDING_DOCS='http://127.0.0.1:{port}': cannot use Elasticsearch at http://127.0.0.1:{port}" in done.stderr


def test_a_store_that_fails_mid_way_is_one_line_and_exit_1(stores):
    db = stores.docs.removeprefix("sqlite:///")
    damaged_sqlite(db)
    done = stores.scrapy("prune", overrides=CLOCK)
    assert (done.returncode, done.stdout, done.stderr) == (
        1,
        "",
        f"prune: SqliteDocStore('{db}') could not read: DatabaseError: database disk image is malformed\n",
    )


def test_the_line_counts_the_continuous_runs_ledger_deleted():
    summary = {
        "dry_run": False,
        "reports_deleted": 0,
        "reports_kept": 1,
        "snapshots_deleted": 2,
        "analyses_deleted": 2,
        "dois": 1,
        "snapshots_kept": 1,
        "blobs_checked": False,
        "dois_skipped": 0,
        "unrecognised": [],
        "samples_deleted": 3,
        "visits_deleted": 1200,
    }
    assert line(summary) == (
        "prune: deleted 0 old versions' reports (kept 1), compressing 0 versions' artifact files (every version's kept), "
        "2 snapshots and 2 analyses of 1 DOIs (kept 1 snapshots), no blob (no snapshot in the document store); 3 samples and 1,200 visits of the continuous run's closed rounds"
    )
