"""Deletes, the retention's tool (landing.publish.pruning): DocStore.delete and BlobStore.delete/listing, the same
contract for every backend in conftest.DOC_STORES and BLOB_STORES; then a refused delete, per backend."""

import hashlib
import time

import pytest

from landing.core.pages.documents import content_hash
from landing.stores import StoreError, open_docs
from landing.stores.file_blobs import FileBlobStore
from tests import elastic


def snap(n):
    return {"pid/doi": f"10.1/{n}", "n": n}


def stored(doc_store, ids):
    for doc_id in ids:
        doc_store.put("snapshot", doc_id, snap(doc_id))
    doc_store.flush()


def test_deleted_documents_are_gone_from_get_count_and_scan(doc_store):
    stored(doc_store, ["a", "b", "c", "d", "e"])
    doc_store.delete("snapshot", ["b", "d"])
    assert (doc_store.get("snapshot", "b"), doc_store.count("snapshot")) == (None, 3)
    assert [doc["n"] for doc in doc_store.scan("snapshot")] == ["a", "c", "e"]


def test_deletes_cross_batch_boundaries(doc_store):
    ids = [f"{n:02}" for n in range(13)]  # the fixture's batches are of 4
    stored(doc_store, ids)
    doc_store.delete("snapshot", (doc_id for doc_id in ids if doc_id != "07"))
    assert [doc["n"] for doc in doc_store.scan("snapshot")] == ["07"]


def test_a_buffered_put_of_a_deleted_id_is_not_written_back(doc_store):
    stored(doc_store, ["a"])
    doc_store.put("snapshot", "a", snap("a-again"))
    doc_store.put("snapshot", "b", snap("b"))  # buffered only, never written
    assert doc_store.pending == 2
    doc_store.delete("snapshot", ["a", "b"])
    doc_store.flush()
    assert (doc_store.pending, doc_store.get("snapshot", "a"), doc_store.count("snapshot")) == (0, None, 0)


def test_a_put_after_a_delete_stands(doc_store):
    stored(doc_store, ["a"])
    doc_store.delete("snapshot", ["a"])
    doc_store.put("snapshot", "a", snap("back"))
    doc_store.flush()
    assert doc_store.get("snapshot", "a") == snap("back")


def test_a_delete_survives_reopening_the_store(open_doc_store):
    first = open_doc_store(batch_docs=4)
    stored(first, ["a", "b"])
    first.delete("snapshot", ["a"])
    first.close()
    assert [doc["n"] for doc in open_doc_store().scan("snapshot")] == ["b"]


def test_deleting_ids_never_stored_is_no_error(doc_store):
    stored(doc_store, ["a"])
    doc_store.delete("snapshot", ["zz", "yy"])
    doc_store.delete("analysis", ["a"])  # a kind with no document at all (an index never made, in Elasticsearch)
    assert doc_store.count("snapshot") == 1


def test_a_delete_touches_only_its_kind(doc_store):
    stored(doc_store, ["a"])
    doc_store.put("analysis", "a", snap("a"))
    doc_store.delete("snapshot", ["a"])
    assert (doc_store.get("snapshot", "a"), doc_store.get("analysis", "a")) == (None, snap("a"))


def test_a_scan_goes_on_past_documents_deleted_behind_it(doc_store):
    ids = [f"{n:02}" for n in range(10)]  # scan chunks of 3
    stored(doc_store, ids)
    seen = []
    for doc in doc_store.scan("snapshot"):
        seen.append(doc["n"])
        doc_store.delete("snapshot", [doc["n"]])
    assert (seen, doc_store.count("snapshot")) == (ids, 0)


@pytest.mark.parametrize("bad", ["", 7, "x" * 513])
def test_a_bad_id_is_refused(doc_store, bad):
    with pytest.raises(StoreError, match="bad document id"):
        doc_store.delete("snapshot", [bad])


def test_a_closed_store_refuses_deletes(doc_store):
    doc_store.close()
    with pytest.raises(StoreError, match="is closed"):
        doc_store.delete("snapshot", ["a"])


def blob(text):
    data = text.encode()
    return f"snapshot/{content_hash(data)}", data


def test_deleted_blobs_are_gone_and_the_others_stay(blob_store):
    keys = {}
    for text in ("one", "two", "three"):
        key, data = blob(text)
        blob_store.put(key, data)
        keys[text] = key
    blob_store.delete([keys["one"], keys["three"]])
    assert (blob_store.exists(keys["one"]), blob_store.get(keys["two"]), blob_store.exists(keys["three"])) == (
        False,
        b"two",
        False,
    )
    assert list(blob_store.keys("snapshot/")) == [keys["two"]]


def test_a_deleted_blob_can_be_put_again(blob_store):
    key, data = blob("one")
    blob_store.put(key, data)
    blob_store.delete([key])
    assert (blob_store.put(key, data), blob_store.get(key)) == (True, data)


def test_deleting_a_missing_blob_is_no_error(blob_store):
    key, data = blob("one")
    blob_store.put(key, data)
    blob_store.delete([blob("never")[0]])
    assert blob_store.get(key) == data


def test_deletes_cross_the_batch_size(blob_store):
    blob_store.DELETE_BATCH = 2
    keys = [blob(str(n))[0] for n in range(5)]
    for n, key in enumerate(keys):
        blob_store.put(key, str(n).encode())
    blob_store.delete(keys[:4])
    assert list(blob_store.keys()) == keys[4:]


def test_a_bad_key_is_refused(blob_store):
    with pytest.raises(StoreError, match="bad blob key"):
        blob_store.delete(["../etc/passwd"])


def test_the_listing_gives_each_key_with_the_time_it_was_written(blob_store):
    before = time.time()
    key, data = blob("one")
    blob_store.put(key, data)
    blob_store.put("other/x", b"x")
    after = time.time()
    listed = dict(blob_store.listing("snapshot/"))
    assert list(listed) == [key]
    # S3 keeps whole seconds (moto: milliseconds): a second either side.
    assert before - 1 <= listed[key] <= after + 1


def test_a_blob_that_cannot_be_deleted_is_a_store_error_naming_it(tmp_path):
    store = FileBlobStore(tmp_path / "blobs")
    key, data = blob("one")
    store.put(key, data)
    store.path(key).unlink()
    store.path(key).mkdir()  # a directory in the blob's place: unlink refuses it
    with pytest.raises(StoreError, match=f"^cannot delete the blob '{key}': "):
        store.delete([key])


def test_a_bucket_that_refuses_deletes_is_a_store_error(monkeypatch, tmp_path):
    from tests import s3server

    s3server.use(monkeypatch)
    from landing.stores.s3 import S3BlobStore

    store = S3BlobStore(s3server.bucket("landing-tests"), tmp_path.name)
    key, data = blob("one")
    store.put(key, data)
    store.bucket = "landing-no-such-bucket"
    with pytest.raises(StoreError, match="^cannot delete 1 blobs from bucket 'landing-no-such-bucket': NoSuchBucket"):
        store.delete([key])
    store.close()


def test_an_elasticsearch_delete_that_fails_keeps_the_buffered_puts(request):
    server = elastic.standin()
    prefix = "d" + hashlib.sha256(request.node.nodeid.encode()).hexdigest()[:12]
    docs = open_docs(server.url, index_prefix=prefix, backoff=0.01, retries=1)
    try:
        stored(docs, ["a"])
        docs.put("snapshot", "a", snap("a-again"))
        server.down = True
        with pytest.raises(
            StoreError, match=f"^cannot delete 1 documents from Elasticsearch at {server.url}: HTTP 503"
        ):
            docs.delete("snapshot", ["a"])
        server.down = False
        assert (docs.pending, docs.get("snapshot", "a")) == (1, snap("a-again"))
    finally:
        server.down = False
        docs.close()
        elastic.delete_indices(server.url, prefix)


def test_items_pair_each_document_with_the_id_it_is_stored_under(doc_store):
    doc_store.put("snapshot", "b", {"n": 2})
    doc_store.put("snapshot", "a", {"n": 1})
    assert list(doc_store.items("snapshot")) == [("a", {"n": 1}), ("b", {"n": 2})]
