"""The default document store: one SQLite file in WAL mode, safe for several processes at once."""

import json
import sqlite3
import time
from contextlib import contextmanager
from pathlib import Path

from landing.stores.base import DocStore
from landing.stores.checks import StoreError, describe

SCHEMA = """CREATE TABLE IF NOT EXISTS docs (
    kind TEXT NOT NULL, id TEXT NOT NULL, doc TEXT NOT NULL, PRIMARY KEY (kind, id)
) WITHOUT ROWID"""
UPSERT = "INSERT INTO docs (kind, id, doc) VALUES (?, ?, ?) ON CONFLICT (kind, id) DO UPDATE SET doc = excluded.doc"


class SqliteDocStore(DocStore):
    """Documents in the `docs` table of a SQLite file; `busy_seconds` is how long to wait for another writer."""

    def __init__(self, path, *, busy_seconds: float = 30.0, **options):
        super().__init__(**options)
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # Autocommit mode: transactions are begun explicitly, so reads never hold a snapshot open.
            # Any thread may use it, one at a time (DocStore's rule): the crawl writes from a worker thread.
            self._db = sqlite3.connect(self.path, timeout=busy_seconds, isolation_level=None, check_same_thread=False)
        except OSError as error:
            raise StoreError(f"cannot open {self.path}: {describe(error)}") from None
        except sqlite3.Error as error:
            raise StoreError(f"cannot open {self.path}: {error}") from None
        deadline = time.monotonic() + busy_seconds
        while True:
            try:
                self._prepare()
                break
            except sqlite3.OperationalError as error:
                # Two processes creating the file at once: switching to WAL can fail "locked" without waiting.
                if "locked" in str(error) and time.monotonic() < deadline:
                    time.sleep(0.05)
                    continue
                self._db.close()
                raise StoreError(f"cannot open {self.path}: {error}") from None
            except sqlite3.Error as error:
                self._db.close()
                raise StoreError(f"cannot open {self.path}: {error}") from None

    def _prepare(self):
        # WAL: readers never block the writer; NORMAL sync is still crash-safe in WAL mode.
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        # Checkpoint every ~40 MB of WAL rather than 4 MB: fewer, larger checkpoints write batches of scattered ids
        # faster (bench/README.md "Figures behind choices in the code").
        self._db.execute("PRAGMA wal_autocheckpoint=10000")
        self._db.execute(SCHEMA)

    def __repr__(self):
        return f"SqliteDocStore({str(self.path)!r})"

    @contextmanager
    def _transaction(self):
        # IMMEDIATE takes the write lock up front, where the busy timeout applies, instead of failing mid-way.
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def _write(self, rows):
        # Key order makes the inserts sequential in the clustered (kind, id) index.
        rows.sort(key=lambda row: (row[0], row[1]))
        try:
            with self._transaction():
                self._db.executemany(UPSERT, rows)
        except sqlite3.Error as error:  # locked past busy_seconds, disk full, read-only file
            raise StoreError(f"cannot write {len(rows)} documents to {self.path}: {error}") from None

    def _read(self, kind, doc_id):
        row = self._db.execute("SELECT doc FROM docs WHERE kind = ? AND id = ?", (kind, doc_id)).fetchone()
        return json.loads(row[0]) if row else None

    def _count(self, kind):
        return self._db.execute("SELECT COUNT(*) FROM docs WHERE kind = ?", (kind,)).fetchone()[0]

    def _chunk(self, kind, after, limit, before=None):
        if before is None:
            rows = self._db.execute(
                "SELECT id, doc FROM docs WHERE kind = ? AND id > ? ORDER BY id LIMIT ?", (kind, after, limit)
            ).fetchall()
        else:
            rows = self._db.execute(
                "SELECT id, doc FROM docs WHERE kind = ? AND id > ? AND id < ? ORDER BY id LIMIT ?",
                (kind, after, before, limit),
            ).fetchall()
        # Decoded one at a time as the scan reaches them (_decoded): a whole chunk decoded at once was the peak of a
        # crawl's closing rebuild (bench/README.md "Figures behind choices in the code").
        return rows

    _decoded = staticmethod(json.loads)

    def _delete(self, kind, ids):
        try:
            with self._transaction():
                self._db.executemany("DELETE FROM docs WHERE kind = ? AND id = ?", [(kind, doc_id) for doc_id in ids])
        except sqlite3.Error as error:
            raise StoreError(f"cannot delete {len(ids)} documents from {self.path}: {error}") from None

    def _delete_kind(self, kind):
        with self._transaction():
            self._db.execute("DELETE FROM docs WHERE kind = ?", (kind,))

    def _checkpoint(self):
        # TRUNCATE: the log folded into the file and cut to 0 bytes, where the autocheckpoint leaves it at its largest
        # until the last connection closes. A reader in the way makes it wait (busy_seconds), then do what it can:
        # the next call does the rest.
        try:
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        except sqlite3.Error as error:
            raise StoreError(f"cannot checkpoint {self.path}: {error}") from None

    def _release(self):
        self._db.close()
