"""doi.org through the proxy: the resolver's redirects and the Handle API, as the real ones answer."""

import json
from urllib.parse import quote

import pytest

from tests.sandbox.client import get

UNKNOWN = "10.9999/no-such-work"


@pytest.fixture(scope="module")
def record(mixed_dois):
    """A DOI whose suffix has letters, so that case matters to the tests that change it."""
    return next(r for r in mixed_dois if r["doi"].split("/", 1)[1].lower() != r["doi"].split("/", 1)[1].upper())


def test_http_doi_org_answers_301_to_its_https_twin(mixed_sandbox, record):
    response = get(mixed_sandbox.proxy, f"http://doi.org/{record['doi']}")
    assert response.status == 301
    assert response.headers["Location"] == f"https://doi.org/{record['doi']}"


def test_https_doi_org_answers_302_to_the_resource_url(mixed_sandbox, record):
    response = get(mixed_sandbox.proxy, f"https://doi.org/{record['doi']}")
    assert response.status == 302
    assert response.headers["Location"] == record["url"]


def test_every_doi_of_the_world_redirects_to_its_own_resource_url(mixed_sandbox, mixed_dois):
    answers = {r["doi"]: get(mixed_sandbox.proxy, f"https://doi.org/{r['doi']}") for r in mixed_dois[::10]}
    wrong = [
        (r["doi"], answers[r["doi"]].status, answers[r["doi"]].location)
        for r in mixed_dois[::10]
        if (answers[r["doi"]].status, answers[r["doi"]].location) != (302, r["url"])
    ]
    assert wrong == []


def test_dx_doi_org_resolves_like_doi_org(mixed_sandbox, record):
    response = get(mixed_sandbox.proxy, f"https://dx.doi.org/{record['doi']}")
    assert (response.status, response.headers["Location"]) == (302, record["url"])


def test_unknown_doi_is_404(mixed_sandbox):
    assert get(mixed_sandbox.proxy, f"https://doi.org/{UNKNOWN}").status == 404


def test_upper_case_doi_resolves_to_the_same_resource_url(mixed_sandbox, record):
    response = get(mixed_sandbox.proxy, f"https://doi.org/{record['doi'].upper()}")
    assert (response.status, response.headers["Location"]) == (302, record["url"])


def test_percent_encoded_doi_with_encoded_slash_resolves_to_the_same_resource_url(mixed_sandbox, record):
    prefix, suffix = record["doi"].split("/", 1)
    response = get(mixed_sandbox.proxy, f"https://doi.org/{prefix}%2F{quote(suffix, safe='')}")
    assert (response.status, response.headers["Location"]) == (302, record["url"])


def test_short_doi_resolves_to_the_resource_url_of_its_doi(mixed_sandbox, mixed_dois):
    record = next((r for r in mixed_dois if r.get("short")), None)
    if record is None:
        pytest.skip("this world has no shortDOIs")
    response = get(mixed_sandbox.proxy, f"https://doi.org/{record['short']}")
    assert (response.status, response.headers["Location"]) == (302, record["url"])


def test_handle_api_gives_response_code_1_and_the_url_value(mixed_sandbox, record):
    response = get(mixed_sandbox.proxy, f"https://doi.org/api/handles/{record['doi']}")
    assert response.status == 200
    assert response.headers["Content-Type"].startswith("application/json")
    answer = json.loads(response.body)
    assert answer["responseCode"] == 1
    urls = [v["data"]["value"] for v in answer["values"] if v["type"] == "URL"]
    assert urls == [record["url"]]


def test_handle_api_echoes_the_handle_as_asked_with_its_case_kept(mixed_sandbox, record):
    asked = record["doi"].upper()
    answer = json.loads(get(mixed_sandbox.proxy, f"https://doi.org/api/handles/{asked}").body)
    assert answer["handle"] == asked
    assert answer["handle"] != record["doi"].lower()


def test_handle_api_type_url_query_gives_only_the_url_value(mixed_sandbox, record):
    answer = json.loads(get(mixed_sandbox.proxy, f"https://doi.org/api/handles/{record['doi']}?type=URL").body)
    assert [(v["type"], v["data"]["value"]) for v in answer["values"]] == [("URL", record["url"])]


def test_handle_api_unknown_handle_is_404_with_response_code_100(mixed_sandbox):
    response = get(mixed_sandbox.proxy, f"https://doi.org/api/handles/{UNKNOWN}")
    assert response.status == 404
    assert json.loads(response.body) == {"responseCode": 100, "handle": UNKNOWN}


def test_handle_api_answers_a_short_doi_with_an_alias_to_its_doi(mixed_sandbox, mixed_dois):
    record = next((r for r in mixed_dois if r.get("short")), None)
    if record is None:
        pytest.skip("this world has no shortDOIs")
    response = get(mixed_sandbox.proxy, f"https://doi.org/api/handles/{record['short']}")
    values = json.loads(response.body)["values"]
    assert [(v["type"], v["data"]["value"]) for v in values if v["type"] != "HS_ADMIN"] == [("HS_ALIAS", record["doi"])]
