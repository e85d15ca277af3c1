"""What only the Elasticsearch store does: mappings, retries, refusals, credentials, and options from settings.

Run through the real client against the stand-in (tests/elastic_standin.py).
"""

import base64
import hashlib
import logging
import socket

import pytest
from scrapy.settings import Settings

from landing import settings as project_settings
from landing.config import of_settings
from landing.stores import StoreError, docs_from, open_docs
from landing.stores.elastic import ID_FIELD, elastic_options
from tests import elastic


@pytest.fixture
def server():
    yield elastic.standin()


@pytest.fixture
def prefix(server, request):
    name = "u" + hashlib.sha256(request.node.nodeid.encode()).hexdigest()[:12]
    yield name
    server.fail_next(0)
    server.reject_bulk_items(0)
    server.require_auth(None)
    server.down = False
    elastic.delete_indices(server.url, name)


def _open(server, prefix, **options):
    return open_docs(server.url, index_prefix=prefix, backoff=0.01, **options)


def test_each_kind_gets_its_own_index_with_typed_mappings(server, prefix):
    with _open(server, prefix) as docs:
        docs.put("analysis", "10.1/a http 2026-11-22", {"pid/doi": "10.1/a"})
    properties = server.indices[f"{prefix}-analysis"].mappings["properties"]
    assert server.indices[f"{prefix}-analysis"].mappings["dynamic"] is False
    assert (
        properties[ID_FIELD]["type"],
        properties["pid/doi"]["type"],
        properties["analysis/timestamp"]["type"],
        properties["snapshot/urls"],
        properties["analysis/meta-tags"],
        properties["snapshot/status"]["type"],
    ) == (
        "keyword",
        "keyword",
        "date",
        {"type": "object", "enabled": False},
        {"type": "object", "enabled": False},
        "integer",
    )


def test_a_snapshot_s_urls_and_hops_are_stored_not_indexed_so_indexes_of_either_form_take_both(server, prefix):
    with _open(server, prefix) as docs:
        docs.put("snapshot", "10.1/a http 2026-11-22", {"pid/doi": "10.1/a"})
    properties = server.indices[f"{prefix}-snapshot"].mappings["properties"]
    assert [properties["snapshot/urls"], properties["snapshot/hops"]] == [{"type": "object", "enabled": False}] * 2


def test_documents_with_keys_nobody_mapped_are_stored_whole(server, prefix):
    doc = {"pid/doi": "10.1/a", "extra": {"mixed": [1, "two", {"three": 3}, None]}}
    with _open(server, prefix) as docs:
        docs.put("pid", "10.1/a", doc)
        docs.flush()
        assert (docs.get("pid", "10.1/a"), list(docs.scan("pid"))) == (doc, [doc])


def test_rejected_bulk_items_are_retried_with_backoff_and_written(server, prefix):
    server.reject_bulk_items(3)
    with _open(server, prefix, retries=2) as docs:
        for k in range(5):
            docs.put("pid", f"10.1/{k}", {"pid/doi": f"10.1/{k}"})
        docs.flush()
        assert docs.count("pid") == 5
    bulks = [path for method, path, _ in server.requests if path.startswith("/_bulk")]
    assert len(bulks) >= 2


def test_a_cluster_answering_503_briefly_is_retried_by_the_client(server, prefix):
    with _open(server, prefix) as docs:
        docs.put("pid", "10.1/a", {"pid/doi": "10.1/a"})
        server.fail_next(2, status=503)
        docs.flush()
        assert docs.get("pid", "10.1/a") == {"pid/doi": "10.1/a"}


def test_items_still_rejected_after_the_retries_raise_and_stay_buffered(server, prefix):
    with _open(server, prefix, retries=1) as docs:
        docs.put("pid", "10.1/a", {"pid/doi": "10.1/a"})
        server.reject_bulk_items(10)
        with pytest.raises(StoreError) as error:
            docs.flush()
        assert str(error.value).startswith(
            f"Elasticsearch at {server.url} refused 1 of 1 documents; the first, '10.1/a' in {prefix}-pid: HTTP 429 "
        )
        assert docs.pending == 1
        server.reject_bulk_items(0)
        docs.flush()
        assert (docs.pending, docs.count("pid")) == (0, 1)


def test_a_cluster_that_stays_down_raises_and_keeps_the_documents(server, prefix):
    with _open(server, prefix, retries=1) as docs:
        docs.put("pid", "10.1/a", {"pid/doi": "10.1/a"})
        server.down = True
        with pytest.raises(StoreError, match=f"^cannot write 1 documents to Elasticsearch at {server.url}: HTTP 503"):
            docs.flush()
        server.down = False
        docs.flush()
        assert docs.count("pid") == 1


def test_a_mapped_field_given_the_wrong_shape_is_refused_by_name(server, prefix):
    with _open(server, prefix) as docs:
        docs.put("pid", "10.1/a", {"pid/doi": {"not": "a string"}})
        with pytest.raises(StoreError) as error:
            docs.flush()
        assert "refused 1 of 1 documents; the first, '10.1/a'" in str(error.value)
        assert "pid/doi" in str(error.value)
        docs.abandon()


def test_the_id_field_is_reserved(server, prefix):
    with _open(server, prefix) as docs:
        docs.put("pid", "10.1/a", {ID_FIELD: "x"})
        with pytest.raises(StoreError, match="the key 'landing/id' is the Elasticsearch store's own"):
            docs.flush()
        docs.abandon()


def test_an_unreachable_cluster_is_named_at_open(server, prefix):
    server.down = True
    with pytest.raises(StoreError) as error:
        open_docs(server.url)
    assert str(error.value).startswith(
        f"LANDING_DOCS={server.url!r}: cannot use Elasticsearch at {server.url}: HTTP 503"
    )


def test_a_cluster_nobody_listens_for_is_refused_with_its_cause_and_no_retry_tracebacks(caplog):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}"  # closed again on exit: nothing listens there
    with caplog.at_level(logging.DEBUG), pytest.raises(StoreError) as error:
        open_docs(url)
    assert str(error.value) == f"LANDING_DOCS={url!r}: cannot use Elasticsearch at {url}: Connection refused"
    assert [r.getMessage() for r in caplog.records if r.name.startswith("elastic_transport")] == []


def test_the_api_key_is_sent_as_an_authorization_header(server, prefix):
    server.require_auth("ApiKey c2VjcmV0OmtleQ==")
    with _open(server, prefix, api_key="c2VjcmV0OmtleQ==") as docs:
        docs.put("pid", "10.1/a", {})
        assert docs.count("pid") == 1


def test_a_wrong_api_key_is_a_store_error_that_does_not_show_the_key(server, prefix):
    server.require_auth("ApiKey right")
    with pytest.raises(StoreError) as error:
        _open(server, prefix, api_key="wrong-key")
    assert "HTTP 401" in str(error.value) and "wrong-key" not in str(error.value)


def test_credentials_in_the_url_are_used_for_basic_auth_and_never_shown(server, prefix):
    server.require_auth("Basic " + base64.b64encode(b"elastic:s3cret").decode())
    url = server.url.replace("http://", "http://elastic:s3cret@")
    with open_docs(url, index_prefix=prefix) as docs:
        assert "s3cret" not in repr(docs) and docs.url == server.url
    server.require_auth("Basic nobody")
    with pytest.raises(StoreError) as error:
        open_docs(url, index_prefix=prefix)
    assert str(error.value).startswith(f"LANDING_DOCS='{server.url.replace('http://', 'http://elastic:***@')}': ")
    assert "s3cret" not in str(error.value)


@pytest.mark.parametrize("bad", ["", "Landing", "_x", "a/b", "a b", "a:b", "x" * 201])
def test_bad_index_prefixes_are_refused(server, prefix, bad):
    with pytest.raises(StoreError, match="bad index prefix"):
        open_docs(server.url, index_prefix=bad)


def test_options_come_from_settings_or_the_environment(monkeypatch):
    settings = Settings()
    settings.setmodule(project_settings)
    settings.setdict({"LANDING_DOCS_INDEX_PREFIX": "prod", "LANDING_DOCS_USERNAME": "crawler"})
    monkeypatch.setenv("LANDING_DOCS_PASSWORD", "from-env")
    assert elastic_options(of_settings(settings)) == {
        "index_prefix": "prod",
        "api_key": None,
        "username": "crawler",
        "password": "from-env",
        "ca_certs": None,
        "retries": 5,
    }


def test_docs_from_opens_the_configured_cluster_with_its_options(server, prefix):
    settings = Settings()
    settings.setmodule(project_settings)
    settings.setdict({"LANDING_DOCS": server.url, "LANDING_DOCS_INDEX_PREFIX": prefix, "TUNING_DOCS_BATCH_DOCS": 7})
    with docs_from(of_settings(settings)) as docs:
        assert (docs.index("pid"), docs.batch_docs, docs.batch_seconds) == (f"{prefix}-pid", 7, 2.0)
