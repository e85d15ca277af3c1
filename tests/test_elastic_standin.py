"""The Elasticsearch stand-in, driven through the real `elasticsearch` client."""

import pytest
from elasticsearch import ApiError, AuthenticationException, BadRequestError, Elasticsearch, NotFoundError, helpers

from tests.elastic_standin import StandIn

KEYWORDS = {
    "dynamic": False,
    "properties": {
        "doi": {"type": "keyword"},
        "fetched": {"type": "date"},
        "raw": {"type": "object", "enabled": False},
    },
}


@pytest.fixture
def standin():
    with StandIn() as running:
        yield running


@pytest.fixture
def es(standin):
    client = Elasticsearch(standin.url)
    yield client
    client.close()


def test_info_passes_the_product_check_and_the_client_asks_for_compatible_json(standin, es):
    assert es.info()["version"]["number"].startswith("8.")
    method, path, headers = standin.requests[-1]
    assert (method, path) == ("GET", "/")
    assert headers["accept"] == "application/vnd.elasticsearch+json; compatible-with=8"
    assert "x-elastic-client-meta" in headers


def test_index_lifecycle(standin, es):
    assert not es.indices.exists(index="records")
    assert es.indices.create(index="records", mappings=KEYWORDS)["acknowledged"]
    assert es.indices.exists(index="records")
    assert standin.indices["records"].mappings == KEYWORDS
    with pytest.raises(BadRequestError) as already:
        es.indices.create(index="records")
    assert already.value.error == "resource_already_exists_exception"
    with pytest.raises(BadRequestError) as invalid:
        es.indices.create(index="Records")
    assert invalid.value.error == "invalid_index_name_exception"
    es.indices.delete(index="records")
    assert not es.indices.exists(index="records")
    with pytest.raises(NotFoundError):
        es.indices.delete(index="records")
    assert es.indices.delete(index="records", ignore_unavailable=True)["acknowledged"]


def test_bulk_round_trip_realtime_get_and_near_real_time_search(standin, es):
    es.indices.create(index="records", mappings=KEYWORDS)
    docs = [
        {
            "_index": "records",
            "_id": f"10.1/{n}",
            "_source": {"doi": f"10.1/{n}", "fetched": "2024-05-01T10:00:00Z", "raw": {"any": ["thing"]}, "extra": n},
        }
        for n in range(3)
    ]
    assert helpers.bulk(es, docs) == (3, [])
    # GET is realtime (the id's "/" travels URL-encoded); search and count wait for a refresh.
    assert es.get(index="records", id="10.1/2")["_source"]["extra"] == 2
    assert es.count(index="records")["count"] == 0
    assert es.search(index="records")["hits"]["total"] == {"value": 0, "relation": "eq"}
    es.indices.refresh(index="records")
    assert es.count(index="records", query={"term": {"doi": "10.1/1"}})["count"] == 1
    assert es.search(index="records", size=2)["hits"]["total"]["value"] == 3
    # Writing again updates in place.
    (ok,) = list(helpers.streaming_bulk(es, docs[:1], refresh=True))
    assert ok == (
        True,
        {
            "index": {
                "_index": "records",
                "_id": "10.1/0",
                "_version": 2,
                "result": "updated",
                "_shards": {"total": 1, "successful": 1, "failed": 0},
                "_seq_no": 3,
                "_primary_term": 1,
                "status": 200,
                "forced_refresh": True,
            }
        },
    )
    with pytest.raises(NotFoundError):
        es.get(index="records", id="absent")
    with pytest.raises(NotFoundError) as missing:
        es.get(index="elsewhere", id="x")
    assert missing.value.error == "index_not_found_exception"
    assert es.count(index="elsewhere", ignore_unavailable=True)["count"] == 0


def test_bulk_auto_creates_a_missing_index(standin, es):
    helpers.bulk(es, [{"_index": "fresh", "_id": "a", "_source": {"x": 1}}], refresh="wait_for")
    assert standin.indices["fresh"].mappings == {}
    assert es.search(index="fresh")["hits"]["hits"][0]["_source"] == {"x": 1}


def test_sort_and_search_after_page_in_utf8_byte_order(es):
    es.indices.create(index="records", mappings=KEYWORDS)
    # Lucene orders keywords by UTF-8 bytes (= code points, = Python's str order), not by UTF-16 units
    # as Java's String.compareTo would: an emoji (a surrogate pair) then sorts after U+FF5E and U+FFFD.
    ids = [f"doc-{chr(c)}" for c in list(range(0x61, 0x61 + 20)) + [0xE9, 0x4E2D, 0xFF5E, 0x1F600, 0xFFFD]]
    helpers.bulk(es, ({"_index": "records", "_id": i, "_source": {"doi": i}} for i in ids), refresh=True)
    with pytest.raises(BadRequestError) as by_id:
        es.search(index="records", sort=["_id"])
    assert "Fielddata access on the _id field is disallowed" in str(by_id.value.body)
    seen, after = [], None
    while True:
        page = es.search(index="records", size=10, sort=[{"doi": "asc"}], search_after=after, track_total_hits=False)[
            "hits"
        ]
        assert "total" not in page
        if not page["hits"]:
            break
        seen += [hit["_id"] for hit in page["hits"]]
        after = page["hits"][-1]["sort"]
    assert seen == sorted(ids, key=lambda i: i.encode("utf-8")) != sorted(ids, key=lambda i: i.encode("utf-16-be"))
    newest = es.search(index="records", size=1, sort=[{"doi": {"order": "desc"}}])["hits"]["hits"][0]
    assert newest["_id"] == "doc-\U0001f600"


def test_client_retries_injected_503s(standin):
    standin.fail_next(2, status=503)
    with Elasticsearch(standin.url, max_retries=2, retry_on_status=(503,)) as es:
        assert es.info()["tagline"] == "You Know, for Search"
    assert len(standin.requests) == 3


def test_streaming_bulk_retries_rejected_items(standin, es):
    standin.reject_bulk_items(2)
    docs = [{"_index": "records", "_id": str(n), "_source": {"n": n}} for n in range(3)]
    # Per-item retries only happen with raise_on_error=False (elastic/elasticsearch-py#864): by
    # default the chunk's first failed item raises BulkIndexError before the retry loop sees it.
    results = list(helpers.streaming_bulk(es, docs, max_retries=2, initial_backoff=0, raise_on_error=False))
    assert all(ok for ok, _ in results) and len(results) == 3
    assert len(standin.indices["records"].docs) == 3
    assert [m for m, p, _ in standin.requests if p.startswith("/_bulk")] == ["PUT", "PUT"]
    standin.reject_bulk_items(1)
    with pytest.raises(helpers.BulkIndexError) as raised:
        list(helpers.streaming_bulk(es, docs, max_retries=2, initial_backoff=0))
    assert raised.value.errors[0]["index"]["status"] == 429


def test_a_keyword_field_given_an_object_fails_that_item_only(es):
    es.indices.create(index="records", mappings=KEYWORDS)
    docs = [
        {"_index": "records", "_id": "good", "_source": {"doi": "10.1/x"}},
        {"_index": "records", "_id": "bad", "_source": {"doi": {"nested": "no"}}},
    ]
    with pytest.raises(helpers.BulkIndexError) as failed:
        helpers.bulk(es, docs)
    (error,) = failed.value.errors
    assert error["index"]["status"] == 400
    assert error["index"]["error"]["type"] == "document_parsing_exception"
    assert "failed to parse field [doi] of type [keyword]" in error["index"]["error"]["reason"]
    assert es.get(index="records", id="good")["found"]


def test_authentication(standin):
    standin.require_auth("ApiKey c2VjcmV0")
    with Elasticsearch(standin.url) as anonymous:
        with pytest.raises(AuthenticationException) as refused:
            anonymous.info()
    assert refused.value.error == "security_exception"
    with Elasticsearch(standin.url, api_key="c2VjcmV0") as keyed:
        assert keyed.info()["cluster_name"] == "landing-standin"
    assert standin.requests[-1][2]["authorization"] == "ApiKey c2VjcmV0"


def test_exhausted_retries_surface_the_last_error_and_other_media_versions_are_refused(standin, es):
    # The client's default: 3 retries, at once (a lone node is reused even while "dead"), on 429/502/503/504.
    standin.fail_next(4, status=503)
    with pytest.raises(ApiError) as unavailable:
        es.info()
    assert (unavailable.value.status_code, unavailable.value.error) == (503, "cluster_block_exception")
    assert len(standin.requests) == 4
    with pytest.raises(BadRequestError) as refused:
        es.perform_request("GET", "/", headers={"accept": "application/vnd.elasticsearch+json; compatible-with=9"})
    assert refused.value.error == "media_type_header_exception"
