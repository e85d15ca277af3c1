"""The BlobStore contract: every backend in conftest.BLOB_STORES must pass every test here."""

import os
from collections.abc import Iterator

import pytest

from landing.core.pages.documents import content_hash
from landing.stores import StoreError

PAGE = b"<html><meta name='citation_doi' content='10.1/a'></html>"
KEY = f"snapshot/{content_hash(PAGE)}"


def test_put_of_a_new_key_returns_true_and_get_returns_the_bytes(blob_store):
    assert blob_store.put(KEY, PAGE) is True
    assert blob_store.get(KEY) == PAGE


def test_put_of_an_existing_key_returns_false_and_keeps_the_first_content(blob_store):
    blob_store.put(KEY, PAGE)
    assert blob_store.put(KEY, b"something else") is False
    assert blob_store.get(KEY) == PAGE


def test_get_of_a_missing_key_returns_none(blob_store):
    blob_store.put(KEY, PAGE)
    assert blob_store.get(f"snapshot/{content_hash(b'other')}") is None


def test_exists_tells_put_keys_from_others(blob_store):
    blob_store.put(KEY, PAGE)
    assert (blob_store.exists(KEY), blob_store.exists(KEY + ".json"), blob_store.exists("other/x")) == (
        True,
        False,
        False,
    )


def test_an_empty_blob_round_trips_and_exists(blob_store):
    assert blob_store.put(f"snapshot/{content_hash(b'')}", b"") is True
    assert (blob_store.get(f"snapshot/{content_hash(b'')}"), blob_store.exists(f"snapshot/{content_hash(b'')}")) == (
        b"",
        True,
    )


def test_binary_content_round_trips(blob_store):
    data = bytes(range(256)) * 4 + os.urandom(1 << 20)
    blob_store.put(f"snapshot/{content_hash(data)}", data)
    assert blob_store.get(f"snapshot/{content_hash(data)}") == data


def test_bytearray_and_memoryview_are_accepted(blob_store):
    blob_store.put("a/bytearray", bytearray(b"one"))
    blob_store.put("a/memoryview", memoryview(b"two"))
    assert (blob_store.get("a/bytearray"), blob_store.get("a/memoryview")) == (b"one", b"two")


def test_text_is_refused(blob_store):
    with pytest.raises(TypeError) as error:
        blob_store.put(KEY, "text")
    assert str(error.value) == "blob data is bytes, not str"
    assert blob_store.exists(KEY) is False


def test_keys_lists_every_key_once(blob_store):
    keys = {KEY, KEY + ".json", "snapshot/ab", "snapshot/a", "other/deeper/x1", "top", "notes/ünï😀"}
    for key in keys:
        blob_store.put(key, key.encode())
    listed = list(blob_store.keys())
    assert sorted(listed) == sorted(keys)


def test_keys_of_an_empty_store_is_empty(blob_store):
    assert list(blob_store.keys()) == []


def test_keys_is_a_stream(blob_store):
    assert isinstance(blob_store.keys(), Iterator)


@pytest.mark.parametrize(
    "prefix, expected",
    [
        ("", ["other/x", "snapshot/ab12", "snapshot/ab12.json", "snapshot/ab34", "snapshot/cd56", "snapshotx/ab"]),
        ("snapshot/", ["snapshot/ab12", "snapshot/ab12.json", "snapshot/ab34", "snapshot/cd56"]),
        ("snapshot", ["snapshot/ab12", "snapshot/ab12.json", "snapshot/ab34", "snapshot/cd56", "snapshotx/ab"]),
        ("snapshot/ab", ["snapshot/ab12", "snapshot/ab12.json", "snapshot/ab34"]),
        ("snapshot/ab12", ["snapshot/ab12", "snapshot/ab12.json"]),
        ("snapshot/ab12.json", ["snapshot/ab12.json"]),
        ("snapshot/ab12.json/", []),
        ("nothing/", []),
        (".hidden", []),
    ],
)
def test_keys_lists_only_those_starting_with_the_prefix(blob_store, prefix, expected):
    for key in ("other/x", "snapshot/ab12", "snapshot/ab12.json", "snapshot/ab34", "snapshot/cd56", "snapshotx/ab"):
        blob_store.put(key, b"x")
    assert sorted(blob_store.keys(prefix)) == expected


def test_blobs_persist_after_reopening(open_blob_store):
    with open_blob_store() as store:
        store.put(KEY, PAGE)
    reopened = open_blob_store()
    assert (reopened.get(KEY), list(reopened.keys())) == (PAGE, [KEY])


BAD_KEYS = [
    ("", "expected a non-empty string"),
    (None, "expected a non-empty string"),
    (b"snapshot/x", "expected a non-empty string"),
    ("/snapshot/x", "absolute key"),
    ("snapshot//x", "empty segment"),
    ("snapshot/x/", "empty segment"),
    ("../x", "segment '..' starts with '.'"),
    ("snapshot/../../etc/passwd", "segment '..' starts with '.'"),
    ("./x", "segment '.' starts with '.'"),
    ("snapshot/.x.tmp", "segment '.x.tmp' starts with '.'"),
    ("snapshot\\x", "segment 'snapshot\\\\x' has a backslash or control character"),
    ("snapshot/x\x00y", "segment 'x\\x00y' has a backslash or control character"),
    ("snapshot/x\ny", "segment 'x\\ny' has a backslash or control character"),
    ("snapshot/" + "x" * 201, "segment longer than 200 bytes"),
    ("/".join(["x" * 100] * 11), "longer than 1024 bytes"),
]


@pytest.mark.parametrize("key, problem", BAD_KEYS)
def test_bad_keys_are_refused_by_every_method(blob_store, key, problem):
    for use in (lambda: blob_store.put(key, b"x"), lambda: blob_store.get(key), lambda: blob_store.exists(key)):
        with pytest.raises(StoreError) as error:
            use()
        assert str(error.value) == f"bad blob key {key!r}: {problem}"
    assert list(blob_store.keys()) == []


@pytest.mark.parametrize(
    "prefix, problem",
    [
        ("/", "absolute key"),
        ("/snapshot", "absolute key"),
        ("../", "segment '..' starts with '.'"),
        ("snapshot//", "empty segment"),
        ("a/../b/", "segment '..' starts with '.'"),
    ],
)
def test_bad_prefixes_are_refused(blob_store, prefix, problem):
    with pytest.raises(StoreError) as error:
        blob_store.keys(prefix)
    assert str(error.value) == f"bad blob key prefix {prefix!r}: {problem}"


def test_a_segment_of_200_bytes_is_accepted(blob_store):
    key = "snapshot/" + "é" * 100
    assert blob_store.put(key, b"x") is True
    assert list(blob_store.keys()) == [key]
