"""Store fixtures parametrized over every backend, so that each contract test runs against each of them.

A backend is a factory: a context manager taking pytest's tmp_path and yielding `open(**options)`, which
opens a store on the same data each time it is called (so a test can close and reopen).

Elasticsearch runs through the real client against tests/elastic_standin.py, and also against a real
cluster when LANDING_TEST_ELASTICSEARCH_URL is set (with LANDING_TEST_ELASTICSEARCH_API_KEY if it needs one).
"""

import hashlib
import os
from contextlib import contextmanager

import pytest

from landing.stores import open_blobs, open_docs
from tests import elastic, s3server

ELASTIC_URL = os.environ.get("LANDING_TEST_ELASTICSEARCH_URL")
ELASTIC_API_KEY = os.environ.get("LANDING_TEST_ELASTICSEARCH_API_KEY")


@contextmanager
def sqlite_docs(tmp_path):
    url = f"sqlite:///{tmp_path}/docs/landing.db"
    yield lambda **options: open_docs(url, **options)


@contextmanager
def file_blobs(tmp_path):
    url = f"file://{tmp_path}/blobs"
    yield lambda **options: open_blobs(url, **options)


@contextmanager
def s3_blobs(tmp_path):
    # moto's S3 server in its own process, reached over HTTP by real boto3; a fresh prefix per test.
    old = {k: os.environ.get(k) for k in s3server.environment()}
    os.environ.update(s3server.environment())
    try:
        url = f"s3://{s3server.bucket('landing-tests')}/{tmp_path.name}"
        yield lambda **options: open_blobs(url, **options)
    finally:
        for key, value in old.items():
            os.environ.pop(key, None) if value is None else os.environ.__setitem__(key, value)


def _elastic_docs(url, api_key=None):
    @contextmanager
    def factory(tmp_path):
        # Indices of their own per test; a short backoff keeps the retry tests fast.
        prefix = "t" + hashlib.sha256(str(tmp_path).encode()).hexdigest()[:12]
        try:
            yield lambda **options: open_docs(url, index_prefix=prefix, api_key=api_key, backoff=0.01, **options)
        finally:
            elastic.delete_indices(url, prefix, api_key)

    return factory


@contextmanager
def elastic_standin_docs(tmp_path):
    with _elastic_docs(elastic.standin().url)(tmp_path) as opener:
        yield opener


DOC_STORES = {"sqlite": sqlite_docs, "elastic-standin": elastic_standin_docs}
if ELASTIC_URL:
    DOC_STORES["elastic-real"] = _elastic_docs(ELASTIC_URL, ELASTIC_API_KEY)
BLOB_STORES = {"files": file_blobs, "s3-moto": s3_blobs}


def _opener(factory, tmp_path):
    # Yields an opener that closes, at teardown, every store a test opened and left open.
    opened = []
    with factory(tmp_path) as open_store:

        def opener(**options):
            store = open_store(**options)
            opened.append(store)
            return store

        yield opener
        for store in opened:
            store.close()


@pytest.fixture(params=sorted(DOC_STORES))
def open_doc_store(request, tmp_path):
    """Opens document stores of one backend, all on the same data."""
    yield from _opener(DOC_STORES[request.param], tmp_path)


@pytest.fixture
def doc_store(open_doc_store):
    """A document store with small batches and scan chunks, so tests cross their boundaries."""
    return open_doc_store(batch_docs=4, batch_seconds=60, scan_chunk=3)


@pytest.fixture(params=sorted(BLOB_STORES))
def open_blob_store(request, tmp_path):
    """Opens blob stores of one backend, all on the same data."""
    yield from _opener(BLOB_STORES[request.param], tmp_path)


@pytest.fixture
def blob_store(open_blob_store):
    """A blob store with default options."""
    return open_blob_store()
