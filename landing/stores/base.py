"""The DocStore and BlobStore interfaces every backend implements."""

import json
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator

from landing import tuning
from landing.core.pages.documents import upgraded
from landing.stores.checks import StoreError, check_id, check_key, check_kind, check_prefix, encode

__all__ = ["BlobStore", "DocStore", "StoreError"]


class DocStore(ABC):
    """JSON documents by kind and id. Puts are buffered and written in batches; reads see every put.

    A batch write that fails leaves its documents buffered: put() records the failure (`failing_since`,
    `last_error`) and tries again after a growing pause; flush(), reads and close() try at once and raise.
    Not thread-safe: use each store from one thread at a time.
    """

    # Seconds between a failed batch write and put()'s next attempt: doubling from 1, at most 60.
    RETRY_PAUSE_MAX = 60.0

    def __init__(
        self,
        *,
        batch_docs: int = tuning.DOCS_BATCH_DOCS,
        batch_seconds: float = tuning.DOCS_BATCH_SECONDS,
        scan_chunk: int = 1000,
    ):
        if batch_docs < 1 or scan_chunk < 1 or batch_seconds < 0:
            raise ValueError("batch_docs and scan_chunk must be at least 1, batch_seconds at least 0")
        self.batch_docs, self.batch_seconds, self.scan_chunk = batch_docs, batch_seconds, scan_chunk
        self._buffer: dict[tuple[str, str], str] = {}
        self._buffered_since = 0.0
        self._closed = False
        self._retry_at = 0.0
        self._failures = 0
        self.failing_since: float | None = None  # time.monotonic() of the first failed write in a row
        self.last_error: Exception | None = None

    def put(self, kind: str, doc_id: str, doc: dict) -> None:
        """Insert or replace a document; written when the batch is full or old, or at flush/close."""
        self._check_open()
        check_kind(kind)
        check_id(doc_id)
        # Encoded now: a bad document fails at its put, not at a later flush, and later mutation is not stored.
        text = encode(doc)
        if not self._buffer:
            self._buffered_since = time.monotonic()
        self._buffer[(kind, doc_id)] = text
        # The age check runs on put only: a quiet buffer waits for the next put, read, flush or close.
        now = time.monotonic()
        if (
            len(self._buffer) >= self.batch_docs or now - self._buffered_since >= self.batch_seconds
        ) and now >= self._retry_at:
            try:
                self.flush()
            except StoreError:
                pass  # buffered, recorded in failing_since and last_error; the caller decides how long to wait

    def flush(self) -> None:
        """Write every buffered document; they stay buffered, and StoreError is raised, if the write fails."""
        self._check_open()
        if not self._buffer:
            return
        try:
            try:
                self._write([(kind, doc_id, text) for (kind, doc_id), text in self._buffer.items()])
            except StoreError:
                raise
            except Exception as error:  # any backend's surprise is an outage to wait out and report, never a crash
                raise StoreError(f"{self!r} could not write: {type(error).__name__}: {error}") from error
        except StoreError as error:
            now = time.monotonic()
            self._failures += 1
            self.failing_since = self.failing_since or now
            self.last_error = error
            self._retry_at = now + min(2.0 ** (self._failures - 1), self.RETRY_PAUSE_MAX)
            raise
        self._buffer.clear()
        self._failures, self._retry_at, self.failing_since, self.last_error = 0, 0.0, None, None

    @property
    def pending(self) -> int:
        """How many documents are buffered, not yet written."""
        return len(self._buffer)

    def abandon(self) -> None:
        """Forget the buffered documents, once they are saved elsewhere, so close() does not try them again."""
        self._buffer.clear()

    def unwritten(self) -> Iterator[tuple[str, str, str]]:
        """The buffered (kind, id, JSON text) triples, for saving elsewhere when the store stays unavailable."""
        return ((kind, doc_id, text) for (kind, doc_id), text in self._buffer.items())

    # Reads give every document in today's form (landing.core.pages.documents.upgraded), whenever it was written.
    def get(self, kind: str, doc_id: str) -> dict | None:
        """The document, or None if there is none."""
        self._check_open()
        check_kind(kind)
        check_id(doc_id)
        # The buffer answers for itself, so a get-then-put loop does not flush on every document.
        text = self._buffer.get((kind, doc_id))
        if text is not None:
            return upgraded(json.loads(text))
        try:
            doc = self._read(kind, doc_id)
        except StoreError:
            raise
        except Exception as error:  # as in a scan: reported in one line, never a crash
            raise StoreError(f"{self!r} could not read: {type(error).__name__}: {error}") from error
        return doc if doc is None else upgraded(doc)

    def count(self, kind: str) -> int:
        """How many documents of this kind there are."""
        self._check_open()
        check_kind(kind)
        self.flush()
        return self._count(kind)

    def scan(self, kind: str, prefix: str = "", after: str = "") -> Iterator[dict]:
        """Every document of a kind in id order, read a chunk at a time; puts may go on meanwhile.

        Only ids that start with `prefix` and sort after `after`, when given. Each id is yielded once; documents
        added during the scan with ids past its position may appear.
        """
        return (doc for _, doc in self.items(kind, prefix, after))

    def items(self, kind: str, prefix: str = "", after: str = "") -> Iterator[tuple[str, dict]]:
        """(id, document) pairs of a kind, as scan() gives the documents: for a caller that must name what it read
        by the id it is stored under (retention deletes by id)."""
        self._check_open()
        check_kind(kind)
        self.flush()
        return self._scan(kind, prefix, after)

    def _scan(self, kind: str, prefix: str, after: str) -> Iterator[tuple[str, dict]]:
        # Ids are compared as UTF-8 bytes (code point order) by every backend: every id with the prefix sorts
        # at or after the prefix and before the prefix with its last character incremented.
        after = max(after, prefix[:-1] + chr(ord(prefix[-1]) - 1) + "\U0010ffff") if prefix else after
        before = prefix[:-1] + chr(ord(prefix[-1]) + 1) if prefix else None
        while True:
            self._check_open()
            # Keyset pagination: no cursor stays open between chunks, so writes in between are safe.
            try:
                rows = self._chunk(kind, after, self.scan_chunk, before)
            except StoreError:
                raise
            except Exception as error:  # as in flush: reported in one line, never a crash
                raise StoreError(f"{self!r} could not read: {type(error).__name__}: {error}") from error
            for doc_id, doc in rows:
                if doc_id.startswith(prefix):  # the lower bound admits odd ids just below the prefix
                    yield doc_id, upgraded(self._decoded(doc))
            if len(rows) < self.scan_chunk:
                return
            after = rows[-1][0]

    @staticmethod
    def _decoded(doc):
        """A document of a chunk as `_chunk` gave it, as a dict."""
        return doc

    def delete(self, kind: str, ids: Iterable[str]) -> None:
        """Delete documents of a kind by id, in batches of `batch_docs`; an id not stored is no error.

        A buffered put of a deleted id is dropped, so no later flush writes it back; a put after the delete stands.
        A batch that fails raises StoreError, leaving that batch's buffered puts as they were.
        """
        self._check_open()
        check_kind(kind)
        batch: list[str] = []
        for doc_id in ids:
            check_id(doc_id)
            batch.append(doc_id)
            if len(batch) >= self.batch_docs:
                self._delete_batch(kind, batch)
                batch = []
        if batch:
            self._delete_batch(kind, batch)

    def _delete_batch(self, kind: str, ids: list[str]) -> None:
        try:
            self._delete(kind, ids)
        except StoreError:
            raise
        except Exception as error:  # as in flush: a backend's surprise is reported, never a crash
            raise StoreError(f"{self!r} could not delete: {type(error).__name__}: {error}") from error
        for doc_id in ids:
            self._buffer.pop((kind, doc_id), None)

    def delete_kind(self, kind: str) -> None:
        """Delete every document of a kind, buffered ones included."""
        self._check_open()
        check_kind(kind)
        self.flush()
        self._delete_kind(kind)

    def checkpoint(self) -> None:
        """Fold what the store logged into its main file, so that its size on disk does not swing with the log (SQLite's
        write-ahead log); a no-op for a store that keeps no such log. Buffered documents stay buffered."""
        self._check_open()
        self._checkpoint()

    def _checkpoint(self) -> None:  # noqa: B027 (optional to override)
        """Fold the store's log into its main file: nothing to do unless a backend keeps one."""

    def close(self) -> None:
        """Flush and release the store; closing twice is harmless."""
        if self._closed:
            return
        try:
            self.flush()
        finally:
            self._closed = True
            self._release()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError(f"{self!r} is closed")

    @abstractmethod
    def _write(self, rows: list[tuple[str, str, str]]) -> None:
        """Upsert (kind, id, JSON text) rows; raise StoreError if any could not be written (a retry rewrites all)."""

    @abstractmethod
    def _read(self, kind: str, doc_id: str) -> dict | None:
        """One stored document or None."""

    @abstractmethod
    def _count(self, kind: str) -> int:
        """Stored documents of a kind."""

    @abstractmethod
    def _chunk(self, kind: str, after: str, limit: int, before: str | None = None) -> list[tuple[str, dict]]:
        """Up to `limit` (id, document) pairs with ids greater than `after` (and less than `before`), in id order."""

    @abstractmethod
    def _delete(self, kind: str, ids: list[str]) -> None:
        """Delete the stored documents of a kind with these ids (at most `batch_docs`); missing ones are no error."""

    @abstractmethod
    def _delete_kind(self, kind: str) -> None:
        """Delete the stored documents of a kind."""

    @abstractmethod
    def _release(self) -> None:
        """Release connections; called once, after the last flush."""


class BlobStore(ABC):
    """Immutable byte blobs by key (`snapshot/<content hash>`, landing.core.pages.documents); never rewritten once written."""

    # Whether a put may block for long (a network round trip, a disk flush): the crawl then writes from a thread.
    blocking = True
    # Keys a delete sends at once: S3's DeleteObjects takes at most 1,000.
    DELETE_BATCH = 1000

    def put(self, key: str, data: bytes) -> bool:
        """Store the blob; False, and no write, when the key already exists."""
        check_key(key)
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"blob data is bytes, not {type(data).__name__}")
        return self._put(key, bytes(data))

    def get(self, key: str) -> bytes | None:
        """The blob, or None if there is none."""
        check_key(key)
        return self._get(key)

    def exists(self, key: str) -> bool:
        """Whether the key holds a blob."""
        check_key(key)
        return self._exists(key)

    def keys(self, prefix: str = "") -> Iterator[str]:
        """Every key starting with `prefix`, streamed; order is not part of the contract."""
        check_prefix(prefix)
        return self._keys(prefix)

    def delete(self, keys: Iterable[str]) -> None:
        """Delete blobs by key; a key that holds none is no error."""
        batch: list[str] = []
        for key in keys:
            check_key(key)
            batch.append(key)
            if len(batch) >= self.DELETE_BATCH:
                self._delete_batch(batch)
                batch = []
        if batch:
            self._delete_batch(batch)

    def _delete_batch(self, keys: list[str]) -> None:
        try:
            self._delete(keys)
        except StoreError:
            raise
        except Exception as error:  # an outage or a refusal is reported in one line, never a crash
            raise StoreError(f"{self!r} could not delete {len(keys)} blobs: {type(error).__name__}: {error}") from error

    def listing(self, prefix: str = "") -> Iterator[tuple[str, float]]:
        """(key, Unix time it was written) of every key starting with `prefix`, streamed; order is not part of the
        contract."""
        check_prefix(prefix)
        return self._listed(prefix)

    def _listed(self, prefix: str) -> Iterator[tuple[str, float]]:
        try:
            yield from self._listing(prefix)
        except StoreError:
            raise
        except Exception as error:  # an outage or a refusal is reported in one line, never a crash
            raise StoreError(f"{self!r} could not list its blobs: {type(error).__name__}: {error}") from error

    def close(self) -> None:  # noqa: B027 (optional to override)
        """Release connections; the file store holds none."""

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    @abstractmethod
    def _put(self, key: str, data: bytes) -> bool:
        """Write atomically unless the key exists."""

    @abstractmethod
    def _get(self, key: str) -> bytes | None:
        """Read one blob."""

    @abstractmethod
    def _exists(self, key: str) -> bool:
        """Whether the key holds a blob."""

    @abstractmethod
    def _keys(self, prefix: str) -> Iterator[str]:
        """Stream the keys starting with `prefix`."""

    @abstractmethod
    def _listing(self, prefix: str) -> Iterator[tuple[str, float]]:
        """Stream (key, Unix time written) of the keys starting with `prefix`."""

    @abstractmethod
    def _delete(self, keys: list[str]) -> None:
        """Delete these keys' blobs (at most DELETE_BATCH); missing ones are no error."""
