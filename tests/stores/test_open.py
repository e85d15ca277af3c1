"""open_docs and open_blobs: each accepted URL form, and the message for each mistake."""

from pathlib import Path

import boto3
import pytest

from landing.stores import StoreError, open_blobs, open_docs
from landing.stores.file_blobs import FileBlobStore
from landing.stores.sqlite import SqliteDocStore
from tests import s3server

DOC_FORMS = "use sqlite:///relative/path.db, sqlite:////absolute/path.db or http(s)://elasticsearch-host:9200"
BLOB_FORMS = "use file://relative/dir, file:///absolute/dir or s3://bucket/prefix"


def test_sqlite_with_three_slashes_is_a_path_relative_to_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with open_docs("sqlite:///data/landing.db") as store:
        assert (type(store), store.path) == (SqliteDocStore, Path("data/landing.db"))
    assert (tmp_path / "data" / "landing.db").is_file()


def test_sqlite_with_four_slashes_is_an_absolute_path_whose_folders_are_created(tmp_path):
    with open_docs(f"sqlite:///{tmp_path}/a/b/landing.db") as store:
        assert store.path == tmp_path / "a" / "b" / "landing.db"
    assert (tmp_path / "a" / "b" / "landing.db").is_file()


def test_surrounding_space_and_the_schemes_case_are_ignored(tmp_path):
    with open_docs(f"  SQLite:///{tmp_path}/landing.db\n") as store:
        assert store.path == tmp_path / "landing.db"


def test_open_docs_passes_options_to_the_store(tmp_path):
    with open_docs(f"sqlite:///{tmp_path}/landing.db", batch_docs=7, batch_seconds=0.5, scan_chunk=9) as store:
        assert (store.batch_docs, store.batch_seconds, store.scan_chunk) == (7, 0.5, 9)


def test_file_with_two_slashes_is_a_directory_relative_to_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    store = open_blobs("file://data/blobs")
    assert (type(store), store.root) == (FileBlobStore, Path("data/blobs"))
    assert (tmp_path / "data" / "blobs").is_dir()


def test_file_with_three_slashes_is_an_absolute_directory(tmp_path):
    store = open_blobs(f"file://{tmp_path}/a/blobs")
    assert store.root == tmp_path / "a" / "blobs"
    assert store.root.is_dir()


def test_open_blobs_passes_options_to_the_store(tmp_path):
    assert open_blobs(f"file://{tmp_path}", fsync=True).fsync is True


@pytest.mark.parametrize(
    "url, message",
    [
        ("", f"LANDING_DOCS='': not a URL; {DOC_FORMS}"),
        (None, f"LANDING_DOCS=None: not a URL; {DOC_FORMS}"),
        ("data/landing.db", f"LANDING_DOCS='data/landing.db': not a URL; {DOC_FORMS}"),
        ("sqlite:data/landing.db", f"LANDING_DOCS='sqlite:data/landing.db': not a URL; {DOC_FORMS}"),
        ("://data/landing.db", f"LANDING_DOCS='://data/landing.db': not a URL; {DOC_FORMS}"),
        (
            "sqlite://data/landing.db",
            (
                "LANDING_DOCS='sqlite://data/landing.db': three slashes before a relative path, "
                f"four before an absolute one; {DOC_FORMS}"
            ),
        ),
        ("sqlite:///", f"LANDING_DOCS='sqlite:///': no database file named; {DOC_FORMS}"),
        ("sqlite:///data/", f"LANDING_DOCS='sqlite:///data/': no database file named; {DOC_FORMS}"),
        (
            "sqlite:///data/landing.db?mode=ro",
            f"LANDING_DOCS='sqlite:///data/landing.db?mode=ro': options in the URL (? or #) are not supported; {DOC_FORMS}",
        ),
        ("http://", f"LANDING_DOCS='http://': no host named; {DOC_FORMS}"),
        ("http://:9200", f"LANDING_DOCS='http://:9200': no host named; {DOC_FORMS}"),
        (
            "https://es.example.org:port",
            f"LANDING_DOCS='https://es.example.org:port': the port is not a number; {DOC_FORMS}",
        ),
        ("https://user:secret@:9200", f"LANDING_DOCS='https://user:***@:9200': no host named; {DOC_FORMS}"),
        ("s3://bucket/prefix", f"LANDING_DOCS='s3://bucket/prefix': s3:// is not a document store; {DOC_FORMS}"),
        ("postgres://host/db", f"LANDING_DOCS='postgres://host/db': postgres:// is not a document store; {DOC_FORMS}"),
    ],
)
def test_open_docs_names_the_value_and_the_accepted_forms(url, message):
    with pytest.raises(StoreError) as error:
        open_docs(url)
    assert str(error.value) == message


@pytest.mark.parametrize(
    "url, message",
    [
        ("", f"LANDING_BLOBS='': not a URL; {BLOB_FORMS}"),
        ("data/blobs", f"LANDING_BLOBS='data/blobs': not a URL; {BLOB_FORMS}"),
        ("file:data/blobs", f"LANDING_BLOBS='file:data/blobs': not a URL; {BLOB_FORMS}"),
        ("file://", f"LANDING_BLOBS='file://': no directory named; {BLOB_FORMS}"),
        (
            "file://data/blobs#x",
            (f"LANDING_BLOBS='file://data/blobs#x': options in the URL (? or #) are not supported; {BLOB_FORMS}"),
        ),
        ("s3:///prefix", f"LANDING_BLOBS='s3:///prefix': no bucket named; {BLOB_FORMS}"),
        (
            "sqlite:///data/landing.db",
            f"LANDING_BLOBS='sqlite:///data/landing.db': sqlite:// is not a blob store; {BLOB_FORMS}",
        ),
    ],
)
def test_open_blobs_names_the_value_and_the_accepted_forms(url, message):
    with pytest.raises(StoreError) as error:
        open_blobs(url)
    assert str(error.value) == message


def test_a_file_that_is_not_a_database_is_a_store_error(tmp_path):
    (tmp_path / "notes.txt").write_bytes(b"not a database, just text " * 100)
    url = f"sqlite:///{tmp_path}/notes.txt"
    with pytest.raises(StoreError) as error:
        open_docs(url)
    assert str(error.value) == f"LANDING_DOCS={url!r}: cannot open {tmp_path}/notes.txt: file is not a database"


def test_a_directory_named_as_the_database_is_a_store_error(tmp_path):
    url = f"sqlite:///{tmp_path}"
    with pytest.raises(StoreError) as error:
        open_docs(url)
    assert str(error.value) == f"LANDING_DOCS={url!r}: cannot open {tmp_path}: unable to open database file"


def test_a_database_under_a_file_is_a_store_error(tmp_path):
    (tmp_path / "file").write_text("x")
    url = f"sqlite:///{tmp_path}/file/landing.db"
    with pytest.raises(StoreError) as error:
        open_docs(url)
    assert (
        str(error.value) == f"LANDING_DOCS={url!r}: cannot open {tmp_path}/file/landing.db: "
        f"not a directory: {tmp_path}/file"
    )


def test_a_blob_directory_that_is_a_file_is_a_store_error(tmp_path):
    (tmp_path / "blobs").write_text("x")
    url = f"file://{tmp_path}/blobs"
    with pytest.raises(StoreError) as error:
        open_blobs(url)
    assert (
        str(error.value) == f"LANDING_BLOBS={url!r}: cannot use {tmp_path}/blobs as the blob directory: "
        f"not a directory: {tmp_path}/blobs"
    )


def test_open_blobs_names_a_bucket_s3_does_not_have(monkeypatch):
    s3server.use(monkeypatch)
    with pytest.raises(StoreError) as error:
        open_blobs("s3://no-such-bucket/x")
    assert str(error.value) == "LANDING_BLOBS='s3://no-such-bucket/x': cannot use bucket 'no-such-bucket': 404"


def test_open_blobs_keeps_keys_under_the_urls_prefix(monkeypatch):
    s3server.use(monkeypatch)
    bucket = s3server.bucket("landing-prefix-test")
    with open_blobs(f"s3://{bucket}/runs/one") as store:
        store.put("snapshot/ab12", b"x")
    listed = boto3.client("s3", endpoint_url=s3server.endpoint()).list_objects_v2(Bucket=bucket)["Contents"]
    assert [item["Key"] for item in listed] == ["runs/one/snapshot/ab12"]
