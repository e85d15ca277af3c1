"""The DocStore contract: every backend in conftest.DOC_STORES must pass every test here."""

import time
from collections.abc import Iterator

import pytest

from landing.stores import StoreError


def pid(doi, **fields):
    return {"pid/doi": doi, "pid/ra": "crossref", **fields}


def ids_of(docs):
    return [doc["pid/doi"] for doc in docs]


def test_get_returns_the_document_put(doc_store):
    doc_store.put("pid", "10.1/a", pid("10.1/a", **{"pid/member-id": "78"}))
    assert doc_store.get("pid", "10.1/a") == {"pid/doi": "10.1/a", "pid/ra": "crossref", "pid/member-id": "78"}


def test_get_of_a_missing_id_returns_none(doc_store):
    doc_store.put("pid", "10.1/a", pid("10.1/a"))
    assert doc_store.get("pid", "10.1/b") is None


def test_get_of_a_kind_never_put_returns_none(doc_store):
    assert doc_store.get("report", "10.1/a") is None


def test_a_checkpoint_keeps_every_document_and_the_buffered_ones_buffered(doc_store):
    doc_store.put("pid", "10.1/a", pid("10.1/a"))
    doc_store.flush()
    doc_store.put("pid", "10.1/b", pid("10.1/b"))
    pending = doc_store.pending
    doc_store.checkpoint()
    assert doc_store.pending == pending
    assert ids_of(doc_store.scan("pid")) == ["10.1/a", "10.1/b"]


def test_a_reput_replaces_the_whole_document(doc_store):
    doc_store.put("pid", "10.1/a", pid("10.1/a", old=1))
    doc_store.flush()
    doc_store.put("pid", "10.1/a", pid("10.1/a", new=2))
    doc_store.flush()
    assert doc_store.get("pid", "10.1/a") == {"pid/doi": "10.1/a", "pid/ra": "crossref", "new": 2}


def test_reputs_never_duplicate(doc_store):
    for round_ in range(3):
        for n in range(5):
            doc_store.put("pid", f"10.1/{n}", pid(f"10.1/{n}", round=round_))
        doc_store.flush()
    assert doc_store.count("pid") == 5
    assert [doc["round"] for doc in doc_store.scan("pid")] == [2, 2, 2, 2, 2]


def test_the_last_of_several_buffered_puts_wins(doc_store):
    doc_store.put("pid", "10.1/a", pid("10.1/a", v=1))
    doc_store.put("pid", "10.1/a", pid("10.1/a", v=2))
    assert doc_store.get("pid", "10.1/a")["v"] == 2
    assert doc_store.count("pid") == 1


def test_get_sees_a_buffered_put(doc_store):
    doc_store.put("pid", "10.1/a", pid("10.1/a"))
    assert doc_store.get("pid", "10.1/a") == pid("10.1/a")


def test_count_is_per_kind(doc_store):
    for n in range(3):
        doc_store.put("pid", f"10.1/{n}", pid(f"10.1/{n}"))
    for n in range(5):
        doc_store.put("snapshot", f"10.1/{n}@t", {"snapshot/n": n})
    assert (doc_store.count("pid"), doc_store.count("snapshot"), doc_store.count("analysis")) == (3, 5, 0)


def test_count_sees_buffered_puts(doc_store):
    doc_store.put("pid", "10.1/a", pid("10.1/a"))
    assert doc_store.count("pid") == 1


def test_the_same_id_in_two_kinds_is_two_documents(doc_store):
    doc_store.put("snapshot", "10.1/a@t", {"from": "snapshot"})
    doc_store.put("analysis", "10.1/a@t", {"from": "analysis"})
    assert (doc_store.get("snapshot", "10.1/a@t"), doc_store.get("analysis", "10.1/a@t")) == (
        {"from": "snapshot"},
        {"from": "analysis"},
    )


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 9, 10])
def test_scan_yields_every_document_once_in_id_order_across_chunks(doc_store, n):
    # doc_store scans 3 at a time: these sizes fall short of, on, and past chunk boundaries.
    ids = [f"10.1/{k:02d}" for k in range(n)]
    for doc_id in reversed(ids):
        doc_store.put("pid", doc_id, pid(doc_id))
    assert ids_of(doc_store.scan("pid")) == ids


def test_scan_yields_only_its_kind(doc_store):
    doc_store.put("pid", "10.1/a", pid("10.1/a"))
    doc_store.put("snapshot", "10.1/a@t", {"pid/doi": "10.1/a", "snapshot/driver": "http"})
    doc_store.put("pid", "10.1/b", pid("10.1/b"))
    assert ids_of(doc_store.scan("pid")) == ["10.1/a", "10.1/b"]


def test_scan_of_a_kind_never_put_is_empty(doc_store):
    assert list(doc_store.scan("report")) == []


def test_scan_sees_buffered_puts(doc_store):
    doc_store.put("pid", "10.1/a", pid("10.1/a"))
    assert ids_of(doc_store.scan("pid")) == ["10.1/a"]


def test_scan_reads_one_chunk_at_a_time(doc_store, monkeypatch):
    for k in range(10):
        doc_store.put("pid", f"10.1/{k}", pid(f"10.1/{k}"))
    chunks = []
    read_chunk = doc_store._chunk
    monkeypatch.setattr(doc_store, "_chunk", lambda *args: chunks.append(read_chunk(*args)) or chunks[-1])
    scan = doc_store.scan("pid")
    assert isinstance(scan, Iterator)
    next(scan)
    assert [len(chunk) for chunk in chunks] == [3]
    list(scan)
    assert [len(chunk) for chunk in chunks] == [3, 3, 3, 1]


def test_scan_decodes_a_chunk_one_document_at_a_time(doc_store, monkeypatch):
    for k in range(3):
        doc_store.put("pid", f"10.1/{k}", pid(f"10.1/{k}"))
    decoded = []
    decode = doc_store._decoded
    monkeypatch.setattr(doc_store, "_decoded", lambda doc: decoded.append(decode(doc)) or decoded[-1])
    scan = doc_store.scan("pid")
    assert next(scan)["pid/doi"] == "10.1/0"
    assert len(decoded) == 1


def test_scan_with_a_prefix_yields_only_ids_that_start_with_it_across_chunks(doc_store):
    ids = ["run-1/0", "run-1/1", "run-1/2", "run-1/3", "run-10/0", "run-1", "run-0/9", "run-2/0", "run-1/\u00e9"]
    for doc_id in ids:
        doc_store.put("sample", doc_id, {"id": doc_id})
    assert [d["id"] for d in doc_store.scan("sample", prefix="run-1/")] == [
        "run-1/0",
        "run-1/1",
        "run-1/2",
        "run-1/3",
        "run-1/\u00e9",
    ]


def test_scan_after_an_id_starts_past_it_within_the_prefix(doc_store):
    for doc_id in ("r/0", "r/1", "r/2", "r/3", "r/4", "s/0"):
        doc_store.put("sample", doc_id, {"id": doc_id})
    assert [d["id"] for d in doc_store.scan("sample", prefix="r/", after="r/1")] == ["r/2", "r/3", "r/4"]
    assert [d["id"] for d in doc_store.scan("sample", after="r/3")] == ["r/4", "s/0"]


def test_scanning_one_kind_while_putting_another(doc_store):
    for k in range(10):
        doc_store.put("snapshot", f"10.1/{k}@t", {"pid/doi": f"10.1/{k}"})
    seen = []
    # Batches of 4 and chunks of 3: analysis puts are committed between the snapshot chunks.
    for snapshot in doc_store.scan("snapshot"):
        seen.append(snapshot["pid/doi"])
        doc_store.put("analysis", f"{snapshot['pid/doi']}@t", {**snapshot, "analysis/doi-in-text": "non-url"})
    assert seen == [f"10.1/{k}" for k in range(10)]
    assert ids_of(doc_store.scan("analysis")) == seen


def test_scanning_a_kind_while_updating_its_documents_yields_each_id_once(doc_store):
    for k in range(10):
        doc_store.put("analysis", f"10.1/{k}", pid(f"10.1/{k}", v=1))
    seen = []
    for doc in doc_store.scan("analysis"):
        seen.append((doc["pid/doi"], doc["v"]))
        doc_store.put("analysis", doc["pid/doi"], {**doc, "v": 2})
    assert seen == [(f"10.1/{k}", 1) for k in range(10)]
    assert [doc["v"] for doc in doc_store.scan("analysis")] == [2] * 10


def test_puts_are_buffered_until_the_batch_is_full(doc_store, open_doc_store):
    other = open_doc_store()
    for k in range(3):
        doc_store.put("pid", f"10.1/{k}", pid(f"10.1/{k}"))
    assert other.count("pid") == 0
    doc_store.put("pid", "10.1/3", pid("10.1/3"))
    assert other.count("pid") == 4


def test_puts_older_than_batch_seconds_are_written_at_the_next_put(open_doc_store):
    store, other = open_doc_store(batch_docs=100, batch_seconds=0.2), open_doc_store()
    store.put("pid", "10.1/a", pid("10.1/a"))
    time.sleep(0.25)
    assert other.count("pid") == 0
    store.put("pid", "10.1/b", pid("10.1/b"))
    assert other.count("pid") == 2


def test_flush_makes_puts_visible_to_another_store(doc_store, open_doc_store):
    other = open_doc_store()
    doc_store.put("pid", "10.1/a", pid("10.1/a"))
    doc_store.flush()
    assert other.get("pid", "10.1/a") == pid("10.1/a")


def test_close_flushes_and_a_reopened_store_reads_everything(open_doc_store):
    store = open_doc_store(batch_docs=1000)
    for k in range(7):
        store.put("pid", f"10.1/{k}", pid(f"10.1/{k}"))
    store.close()
    reopened = open_doc_store(scan_chunk=2)
    assert ids_of(reopened.scan("pid")) == [f"10.1/{k}" for k in range(7)]


def test_leaving_a_with_block_closes_and_flushes(open_doc_store):
    with open_doc_store(batch_docs=1000) as store:
        store.put("pid", "10.1/a", pid("10.1/a"))
    assert open_doc_store().get("pid", "10.1/a") == pid("10.1/a")
    with pytest.raises(StoreError):
        store.get("pid", "10.1/a")


def test_closing_twice_is_harmless(doc_store):
    doc_store.close()
    doc_store.close()


@pytest.mark.parametrize(
    "use",
    [
        lambda s: s.put("pid", "10.1/a", {}),
        lambda s: s.get("pid", "10.1/a"),
        lambda s: s.count("pid"),
        lambda s: s.scan("pid"),
        lambda s: s.flush(),
        lambda s: s.delete_kind("pid"),
    ],
)
def test_a_closed_store_refuses_every_use(doc_store, use):
    doc_store.close()
    with pytest.raises(StoreError, match="is closed$"):
        use(doc_store)


def test_unicode_and_nested_values_round_trip(doc_store):
    doc = {
        "pid/doi": "10.1000/ünïcödé–😀",
        "text": '日本語 "quoted" \\ back\nslash\t\u0000',
        "analysis/meta-tags": [["citation_doi", "10.1000/ü"], ["dc.identifier", "doi:10.1000/ü"]],
        "nested": {"a": {"b": [1, 2.5, -3, True, False, None, {"c": []}]}, "empty": {}},
        "big": 2**62,
        "float": 1e-300,
    }
    doc_store.put("analysis", "10.1000/ünïcödé–😀", doc)
    doc_store.flush()
    assert doc_store.get("analysis", "10.1000/ünïcödé–😀") == doc
    assert list(doc_store.scan("analysis")) == [doc]


def test_an_empty_document_round_trips(doc_store):
    doc_store.put("report", "empty", {})
    doc_store.flush()
    assert doc_store.get("report", "empty") == {}


def test_scan_orders_unicode_ids_by_code_point(doc_store):
    ids = ["10.1/Z", "10.1/a", "10.1/é", "10.1/中", "10.1/😀", "10.1/~"]
    for doc_id in reversed(ids):
        doc_store.put("pid", doc_id, {"pid/doi": doc_id})
    assert ids_of(doc_store.scan("pid")) == sorted(ids)


def test_changing_a_document_after_put_does_not_change_the_stored_one(doc_store):
    doc = pid("10.1/a", tags=["x"])
    doc_store.put("pid", "10.1/a", doc)
    doc["tags"].append("y")
    assert doc_store.get("pid", "10.1/a")["tags"] == ["x"]


def test_changing_a_document_read_does_not_change_the_stored_one(doc_store):
    doc_store.put("pid", "10.1/a", pid("10.1/a", tags=["x"]))
    doc_store.get("pid", "10.1/a")["tags"].append("y")
    assert doc_store.get("pid", "10.1/a")["tags"] == ["x"]


def test_delete_kind_removes_that_kind_only_buffered_puts_included(doc_store):
    for k in range(5):
        doc_store.put("report", f"prefix/10.{k}", {"n": k})
    doc_store.flush()
    doc_store.put("report", "prefix/10.9", {"n": 9})
    doc_store.put("pid", "10.1/a", pid("10.1/a"))
    doc_store.delete_kind("report")
    assert (doc_store.count("report"), list(doc_store.scan("report")), doc_store.count("pid")) == (0, [], 1)


def test_puts_after_delete_kind_are_kept(doc_store):
    doc_store.put("report", "prefix/10.1", {"n": 1})
    doc_store.delete_kind("report")
    doc_store.put("report", "prefix/10.2", {"n": 2})
    assert list(doc_store.scan("report")) == [{"n": 2}]


OLD_HOPS = [{"url": "https://doi.org/10.1/a", "status": 302}, {"url": "https://pub.example/a", "status": 200}]


def test_a_snapshot_stored_with_hop_objects_in_its_urls_is_read_with_urls_and_hops(doc_store):
    # Stores written before snapshot/hops (issue 29) hold the hops in snapshot/urls; every reader sees today's form.
    doc_store.put("snapshot", "10.1/a http 2026-11-24", {"pid/doi": "10.1/a", "snapshot/urls": OLD_HOPS})
    doc_store.flush()
    want = {"pid/doi": "10.1/a", "snapshot/urls": ["https://doi.org/10.1/a", "https://pub.example/a"]}
    want["snapshot/hops"] = OLD_HOPS
    assert (doc_store.get("snapshot", "10.1/a http 2026-11-24"), list(doc_store.scan("snapshot"))) == (want, [want])
