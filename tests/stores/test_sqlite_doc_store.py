"""The SQLite document store: its table, WAL mode, and several processes on one file."""

import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from landing.stores import StoreError
from landing.stores.sqlite import SqliteDocStore
from tests import forked
from tests.stores.damaged import damaged_sqlite

REPO = Path(__file__).resolve().parents[2]


def test_the_file_holds_one_table_without_rowid_in_wal_mode(tmp_path):
    SqliteDocStore(tmp_path / "landing.db").close()
    db = sqlite3.connect(tmp_path / "landing.db")
    assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert [name for (name,) in db.execute("SELECT name FROM sqlite_master")] == ["docs"]
    assert [row[1:3] for row in db.execute("PRAGMA table_info(docs)")] == [
        ("kind", "TEXT"),
        ("id", "TEXT"),
        ("doc", "TEXT"),
    ]
    assert db.execute("SELECT sql FROM sqlite_master").fetchone()[0].endswith("WITHOUT ROWID")


def test_documents_are_stored_as_compact_json_text(tmp_path):
    with SqliteDocStore(tmp_path / "landing.db") as store:
        store.put("pid", "10.1/ü", {"pid/doi": "10.1/ü", "n": [1, 2]})
    row = sqlite3.connect(tmp_path / "landing.db").execute("SELECT kind, id, doc FROM docs").fetchone()
    assert row == ("pid", "10.1/ü", '{"pid/doi":"10.1/ü","n":[1,2]}')


def test_a_checkpoint_cuts_the_write_ahead_log_to_nothing_and_keeps_every_document(tmp_path):
    with SqliteDocStore(tmp_path / "landing.db", batch_docs=100) as store:
        for n in range(500):
            store.put("pid", f"10.1/{n}", {"pid/doi": f"10.1/{n}", "text": "x" * 200})
        store.flush()
        wal = tmp_path / "landing.db-wal"
        assert wal.stat().st_size > 0
        store.checkpoint()
        assert wal.stat().st_size == 0
        assert store.count("pid") == 500
    assert sqlite3.connect(tmp_path / "landing.db").execute("SELECT COUNT(*) FROM docs").fetchone() == (500,)


def test_a_flush_waits_for_another_connections_write_lock(tmp_path):
    store = SqliteDocStore(tmp_path / "landing.db")
    locked, other = threading.Event(), sqlite3.connect(tmp_path / "landing.db", check_same_thread=False)

    released = []

    def hold_the_lock():
        other.execute("BEGIN IMMEDIATE")
        locked.set()
        time.sleep(0.3)
        released.append(time.monotonic())  # before the commit: no write of another connection can end sooner
        other.execute("COMMIT")

    holder = threading.Thread(target=hold_the_lock)
    holder.start()
    locked.wait()
    store.put("pid", "10.1/a", {"v": 1})
    store.flush()
    flushed = time.monotonic()
    holder.join()
    assert flushed >= released[0]
    assert store.count("pid") == 1


WRITER = """
import sys
from landing.stores.sqlite import SqliteDocStore
path, name = sys.argv[1:]
with SqliteDocStore(path, batch_docs=25) as store:
    for n in range(2000):
        store.put("pid", f"10.1/{name}-{n}", {"by": name})
        store.put("pid", f"10.1/shared-{n % 100}", {"by": name})
"""


def test_two_processes_write_the_same_file(tmp_path):
    writers = [
        forked.popen(
            [sys.executable, "-c", WRITER, str(tmp_path / "landing.db"), name],
            cwd=REPO,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("a", "b")
    ]
    errors = [writer.communicate(timeout=120)[1] for writer in writers]
    assert errors == ["", ""]
    with SqliteDocStore(tmp_path / "landing.db") as store:
        assert store.count("pid") == 4100
        assert {doc["by"] for doc in store.scan("pid")} == {"a", "b"}


def test_any_exception_a_backend_raises_while_writing_takes_the_store_error_path(tmp_path, monkeypatch):
    store = SqliteDocStore(tmp_path / "landing.db")
    store.put("pid", "10.1/a", {})

    def broken(rows):
        raise UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed")

    monkeypatch.setattr(store, "_write", broken)
    with pytest.raises(StoreError, match="UnicodeEncodeError"):
        store.flush()
    assert (store.pending, store.failing_since is not None, type(store.last_error)) == (1, True, StoreError)


def test_a_get_from_a_damaged_file_is_a_store_error_in_one_line(tmp_path):
    db = tmp_path / "landing.db"
    damaged_sqlite(str(db))
    docs = SqliteDocStore(str(db))
    try:
        with pytest.raises(StoreError, match=r"could not read: DatabaseError: database disk image is malformed$"):
            docs.get("visit", "run 150")
    finally:
        docs.abandon()
        docs.close()
