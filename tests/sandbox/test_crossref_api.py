"""api.crossref.org through the proxy: members, works, sampling, filters and the JSON envelope."""

import json
from collections import Counter
from urllib.parse import urlencode

import pytest

from tests.sandbox.client import get

API = "http://api.crossref.org"


def call(sandbox, path, **query):
    response = get(sandbox.proxy, f"{API}{path}" + (("?" + urlencode(query)) if query else ""))
    return response.status, json.loads(response.body)


@pytest.fixture(scope="module")
def member_dois(mixed_dois):
    """member id -> its DOIs (lower case), from dois.jsonl."""
    found = {}
    for record in mixed_dois:
        if record["ra"] == "crossref":
            found.setdefault(record["member"], []).append(record["doi"].lower())
    return found


@pytest.fixture(scope="module")
def world_members(mixed_world):
    return [str(m["id"]) for m in json.loads((mixed_world / "world.json").read_text())["members"]]


def test_members_paged_by_rows_and_offset_lists_every_member_exactly_once(mixed_sandbox, world_members):
    seen, offset = [], 0
    while True:
        status, answer = call(mixed_sandbox, "/members", rows=4, offset=offset)
        assert status == 200
        items = answer["message"]["items"]
        if not items:
            break
        seen += [str(item["id"]) for item in items]
        offset += 4
    assert Counter(seen) == Counter(world_members)
    assert all(n == 1 for n in Counter(seen).values())


def test_members_total_results_is_the_number_of_members(mixed_sandbox, world_members):
    status, answer = call(mixed_sandbox, "/members", rows=2)
    assert answer["message"]["total-results"] == len(world_members)


def test_member_total_dois_count_equals_its_dois_in_dois_jsonl(mixed_sandbox, member_dois):
    status, answer = call(mixed_sandbox, "/members", rows=1000)
    counts = {str(item["id"]): item["counts"]["total-dois"] for item in answer["message"]["items"]}
    assert counts == {member: len(dois) for member, dois in member_dois.items()}


def test_single_member_route_gives_its_counts(mixed_sandbox, member_dois):
    member, dois = next(iter(member_dois.items()))
    status, answer = call(mixed_sandbox, f"/members/{member}")
    assert (status, answer["message-type"]) == (200, "member")
    assert answer["message"]["counts"]["total-dois"] == len(dois)


def test_works_cursor_paging_gives_every_doi_of_a_member_once(mixed_sandbox, member_dois):
    member, dois = max(member_dois.items(), key=lambda kv: len(kv[1]))
    seen, cursor, pages = [], "*", 0
    while True:
        status, answer = call(mixed_sandbox, "/works", filter=f"member:{member}", rows=37, cursor=cursor)
        assert status == 200
        message = answer["message"]
        assert message["total-results"] == len(dois)
        if not message["items"]:
            break
        seen += [item["DOI"] for item in message["items"]]
        assert message["next-cursor"] != cursor
        cursor = message["next-cursor"]
        pages += 1
    assert pages == -(-len(dois) // 37)
    assert sorted(seen) == sorted(dois)


def test_member_works_route_pages_like_the_member_filter(mixed_sandbox, member_dois):
    member, dois = min(member_dois.items(), key=lambda kv: len(kv[1]))
    status, answer = call(mixed_sandbox, f"/members/{member}/works", rows=1000)
    assert sorted(item["DOI"] for item in answer["message"]["items"]) == sorted(dois)


def test_sample_with_member_filter_and_select_doi_gives_n_distinct_dois_of_that_member_only(mixed_sandbox, member_dois):
    member, dois = max(member_dois.items(), key=lambda kv: len(kv[1]))
    assert len(dois) > 40
    status, answer = call(mixed_sandbox, "/works", sample=40, filter=f"member:{member}", select="DOI")
    items = answer["message"]["items"]
    assert status == 200
    assert len(items) == 40
    assert all(set(item) == {"DOI"} for item in items)
    assert len({item["DOI"] for item in items}) == 40
    assert {item["DOI"] for item in items} <= set(dois)


def test_sample_of_101_is_a_400_validation_failure(mixed_sandbox):
    status, answer = call(mixed_sandbox, "/works", sample=101)
    assert status == 400
    assert (answer["status"], answer["message-type"]) == ("failed", "validation-failure")
    assert answer["message"][0]["type"] == "integer-not-valid"


def test_sample_larger_than_the_member_gives_all_its_dois(mixed_sandbox, member_dois):
    member, dois = min(member_dois.items(), key=lambda kv: len(kv[1]))
    assert len(dois) < 100
    status, answer = call(mixed_sandbox, "/works", sample=100, filter=f"member:{member}", select="DOI")
    assert sorted(item["DOI"] for item in answer["message"]["items"]) == sorted(dois)


@pytest.fixture(scope="module")
def pii_record(mixed_dois):
    return next(r for r in mixed_dois if r.get("pii"))


def _dashed(pii: str) -> str:
    """S0169534701023801 -> S0169-5347(01)02380-1, the form PIIs are printed in."""
    d = pii[1:]
    return f"{pii[0]}{d[0:4]}-{d[4:8]}({d[8:10]}){d[10:15]}-{d[15:]}"


def test_alternative_id_filter_finds_the_doi_of_a_pii(mixed_sandbox, pii_record):
    status, answer = call(mixed_sandbox, "/works", filter=f"alternative-id:{pii_record['pii']}")
    assert status == 200
    assert [item["DOI"] for item in answer["message"]["items"]] == [pii_record["doi"].lower()]
    assert answer["message"]["items"][0]["alternative-id"] == [pii_record["pii"]]


def test_alternative_id_filter_finds_the_doi_of_a_dashed_parenthesised_pii(mixed_sandbox, pii_record):
    dashed = _dashed(pii_record["pii"])
    assert "(" in dashed and "-" in dashed
    status, answer = call(mixed_sandbox, "/works", filter=f"alternative-id:{dashed}")
    assert [item["DOI"] for item in answer["message"]["items"]] == [pii_record["doi"].lower()]


def test_alternative_id_filter_with_unknown_pii_finds_nothing(mixed_sandbox):
    status, answer = call(mixed_sandbox, "/works", filter="alternative-id:S0000000000000000")
    assert (status, answer["message"]["total-results"], answer["message"]["items"]) == (200, 0, [])


def test_unknown_filter_is_a_400_validation_failure(mixed_sandbox):
    status, answer = call(mixed_sandbox, "/works", filter="has-orcid:true")
    assert status == 400
    assert (answer["status"], answer["message-type"]) == ("failed", "validation-failure")
    assert answer["message"][0]["type"] == "filter-not-available"


def test_rows_over_1000_is_a_400_validation_failure(mixed_sandbox):
    status, answer = call(mixed_sandbox, "/works", rows=1001)
    assert (status, answer["message-type"]) == (400, "validation-failure")


def test_works_envelope_has_status_message_type_and_message(mixed_sandbox):
    status, answer = call(mixed_sandbox, "/works", rows=2)
    assert status == 200
    assert (answer["status"], answer["message-type"]) == ("ok", "work-list")
    assert isinstance(answer["message"], dict)
    assert len(answer["message"]["items"]) == 2


def test_single_work_route_gives_its_resource_url(mixed_sandbox, pii_record):
    status, answer = call(mixed_sandbox, f"/works/{pii_record['doi']}")
    assert (status, answer["status"], answer["message-type"]) == (200, "ok", "work")
    assert answer["message"]["resource"]["primary"]["URL"] == pii_record["url"]


def test_unknown_work_is_404(mixed_sandbox):
    assert get(mixed_sandbox.proxy, f"{API}/works/10.9999/no-such-work").status == 404


def test_datacite_doi_is_not_a_crossref_work(mixed_sandbox, mixed_dois):
    datacite = next(r for r in mixed_dois if r["ra"] == "datacite")
    assert get(mixed_sandbox.proxy, f"{API}/works/{datacite['doi']}").status == 404


def test_api_answers_through_an_https_tunnel_too(mixed_sandbox, world_members):
    response = get(mixed_sandbox.proxy, "https://api.crossref.org/members?rows=1")
    assert response.status == 200
    assert json.loads(response.body)["message"]["total-results"] == len(world_members)
