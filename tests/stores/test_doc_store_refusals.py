"""The DocStore contract, continued: what every backend refuses, and what it keeps when a write fails."""

import pytest

from landing.stores import StoreError


def pid(doi, **fields):
    return {"pid/doi": doi, "pid/ra": "crossref", **fields}


@pytest.mark.parametrize("kind", ["", "Pid", "pid/doi", "1pid", "pid kind", "x" * 33, None])
def test_bad_kinds_are_refused(doc_store, kind):
    message = f"bad document kind {kind!r}: expected a short lower-case name such as 'pid'"
    for use in (
        lambda: doc_store.put(kind, "10.1/a", {}),
        lambda: doc_store.get(kind, "10.1/a"),
        lambda: doc_store.count(kind),
        lambda: doc_store.scan(kind),
        lambda: doc_store.delete_kind(kind),
    ):
        with pytest.raises(StoreError) as error:
            use()
        assert str(error.value) == message


@pytest.mark.parametrize(
    "doc_id, message",
    [
        ("", "bad document id '': expected a non-empty string"),
        (None, "bad document id None: expected a non-empty string"),
        (17, "bad document id 17: expected a non-empty string"),
        ("é" * 257, f"bad document id {'é' * 40!r}...: longer than 512 bytes"),
    ],
)
def test_bad_ids_are_refused(doc_store, doc_id, message):
    for use in (lambda: doc_store.put("pid", doc_id, {}), lambda: doc_store.get("pid", doc_id)):
        with pytest.raises(StoreError) as error:
            use()
        assert str(error.value) == message


def test_an_id_of_512_bytes_is_accepted(doc_store):
    doc_store.put("pid", "é" * 256, {"ok": True})
    doc_store.flush()
    assert doc_store.get("pid", "é" * 256) == {"ok": True}


@pytest.mark.parametrize(
    "doc, error, message",
    [
        (["not", "a", "dict"], TypeError, "a document is a dict, not list"),
        ({"x": float("nan")}, ValueError, "Out of range float values are not JSON compliant"),
        ({"x": float("inf")}, ValueError, "Out of range float values are not JSON compliant"),
        ({"x": {1, 2}}, TypeError, "Object of type set is not JSON serializable"),
    ],
)
def test_documents_that_are_not_json_objects_are_refused_at_put(doc_store, doc, error, message):
    with pytest.raises(error) as raised:
        doc_store.put("pid", "10.1/a", doc)
    assert str(raised.value) == message
    assert (doc_store.get("pid", "10.1/a"), doc_store.count("pid")) == (None, 0)


@pytest.mark.parametrize("options", [{"batch_docs": 0}, {"scan_chunk": 0}, {"batch_seconds": -1}])
def test_bad_batch_options_are_refused(open_doc_store, options):
    with pytest.raises(ValueError) as error:
        open_doc_store(**options)
    assert str(error.value) == "batch_docs and scan_chunk must be at least 1, batch_seconds at least 0"


def _failing_writes(store, monkeypatch):
    # Every batch write fails, as when the backend is down; returns the list of attempted batch sizes.
    attempts = []

    def refuse(rows):
        attempts.append(len(rows))
        raise StoreError("backend down")

    monkeypatch.setattr(store, "_write", refuse)
    return attempts


def test_a_put_whose_batch_write_fails_keeps_the_documents_and_records_the_failure(doc_store, monkeypatch):
    attempts = _failing_writes(doc_store, monkeypatch)
    for k in range(4):
        doc_store.put("pid", f"10.1/{k}", pid(f"10.1/{k}"))
    assert attempts == [4]
    assert (doc_store.pending, str(doc_store.last_error), doc_store.failing_since is not None) == (
        4,
        "backend down",
        True,
    )
    assert doc_store.get("pid", "10.1/3") == pid("10.1/3")


def test_after_a_failed_write_puts_wait_before_trying_again(doc_store, monkeypatch):
    attempts = _failing_writes(doc_store, monkeypatch)
    for k in range(12):
        doc_store.put("pid", f"10.1/{k}", pid(f"10.1/{k}"))
    assert (attempts, doc_store.pending) == ([4], 12)


def test_flush_after_a_failed_write_tries_at_once_and_raises(doc_store, monkeypatch):
    attempts = _failing_writes(doc_store, monkeypatch)
    doc_store.put("pid", "10.1/a", pid("10.1/a"))
    with pytest.raises(StoreError, match="^backend down$"):
        doc_store.flush()
    assert (attempts, doc_store.pending) == ([1], 1)


def test_a_successful_write_clears_the_failure(doc_store, monkeypatch):
    _failing_writes(doc_store, monkeypatch)
    doc_store.put("pid", "10.1/a", pid("10.1/a"))
    with pytest.raises(StoreError):
        doc_store.flush()
    monkeypatch.undo()
    doc_store.flush()
    assert (doc_store.pending, doc_store.failing_since, doc_store.last_error, doc_store.count("pid")) == (
        0,
        None,
        None,
        1,
    )


def test_unwritten_lists_the_buffered_documents_and_abandon_forgets_them(doc_store, monkeypatch):
    _failing_writes(doc_store, monkeypatch)
    doc_store.put("pid", "10.1/a", pid("10.1/a"))
    doc_store.put("snapshot", "10.1/a http 2026-11-22", {"x": 1})
    assert sorted(doc_store.unwritten()) == [
        ("pid", "10.1/a", '{"pid/doi":"10.1/a","pid/ra":"crossref"}'),
        ("snapshot", "10.1/a http 2026-11-22", '{"x":1}'),
    ]
    doc_store.abandon()
    doc_store.close()
    assert doc_store.pending == 0


def test_a_lone_surrogate_is_stored_as_a_replacement_character_and_the_store_goes_on(doc_store):
    # Issue 16: an API's "\ud800" made SQLite refuse the flush, and every document buffered after it stayed unwritten.
    doc_store.put("pid", "10.1/a", {"title": "bad \ud800 title"})
    doc_store.put("pid", "10.1/b", {"title": "good"})
    doc_store.flush()
    assert ([doc_store.get("pid", i) for i in ("10.1/a", "10.1/b")], doc_store.pending) == (
        [{"title": "bad \ufffd title"}, {"title": "good"}],
        0,
    )


def test_an_id_with_a_lone_surrogate_is_refused_at_put(doc_store):
    with pytest.raises(StoreError, match="lone surrogate"):
        doc_store.put("pid", "10.1/\ud800", {})
    assert doc_store.pending == 0
