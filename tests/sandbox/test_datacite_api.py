"""api.datacite.org through the proxy: JSON:API listings of clients, prefixes and DOIs."""

import json
from urllib.parse import urlencode

import pytest

from landing_dev.sandbox.http import Request
from landing_dev.sandbox.web import State, respond
from landing_dev.sandbox.world import World
from tests.sandbox.client import get

API = "http://api.datacite.org"


def call(sandbox, path, **query):
    response = get(sandbox.proxy, f"{API}{path}" + (("?" + urlencode(query)) if query else ""))
    return response.status, json.loads(response.body)


@pytest.fixture(scope="module")
def world_clients(mixed_world):
    return json.loads((mixed_world / "world.json").read_text())["clients"]


@pytest.fixture(scope="module")
def client_dois(mixed_dois):
    found = {}
    for record in mixed_dois:
        if record["ra"] == "datacite":
            found.setdefault(record["client"], []).append(record["doi"].lower())
    return found


@pytest.fixture(scope="module")
def prefix_dois(mixed_dois):
    found = {}
    for record in mixed_dois:
        if record["ra"] == "datacite":
            found.setdefault(record["doi"].split("/")[0].lower(), []).append(record["doi"].lower())
    return found


def page_through(sandbox, size, **query):
    """Every page of /dois for a filter; returns (DOIs in order, meta of the first page)."""
    seen, number, first_meta = [], 1, None
    while True:
        status, answer = call(sandbox, "/dois", **query, **{"page[size]": size, "page[number]": number})
        assert status == 200
        first_meta = first_meta or answer["meta"]
        seen += [item["attributes"]["doi"] for item in answer["data"]]
        if number >= answer["meta"]["totalPages"]:
            return seen, first_meta
        number += 1


def test_clients_listing_is_json_api_with_every_client(mixed_sandbox, world_clients):
    response = get(mixed_sandbox.proxy, f"{API}/clients")
    answer = json.loads(response.body)
    assert response.headers["Content-Type"].startswith("application/vnd.api+json")
    assert sorted(item["id"] for item in answer["data"]) == sorted(c["id"] for c in world_clients)
    assert {item["type"] for item in answer["data"]} == {"clients"}
    assert answer["meta"]["total"] == len(world_clients)


def test_prefixes_listing_is_json_api_with_every_client_prefix(mixed_sandbox, world_clients):
    status, answer = call(mixed_sandbox, "/prefixes")
    assert sorted(item["id"] for item in answer["data"]) == sorted(p for c in world_clients for p in c["prefixes"])
    assert {item["type"] for item in answer["data"]} == {"prefixes"}
    assert answer["meta"]["total"] == len(answer["data"])


def test_prefix_names_the_clients_that_own_it(mixed_sandbox, world_clients):
    client = world_clients[0]
    status, answer = call(mixed_sandbox, f"/prefixes/{client['prefixes'][0]}")
    assert status == 200
    assert client["id"] in [c["id"] for c in answer["data"]["relationships"]["clients"]["data"]]


def test_dois_by_client_id_page_through_exactly_the_clients_dois(mixed_sandbox, client_dois):
    client, dois = max(client_dois.items(), key=lambda kv: len(kv[1]))
    seen, meta = page_through(mixed_sandbox, 7, **{"client-id": client})
    assert len(seen) == len(set(seen))
    assert sorted(seen) == sorted(dois)


def test_dois_by_client_id_meta_total_is_the_clients_doi_count(mixed_sandbox, client_dois):
    client, dois = max(client_dois.items(), key=lambda kv: len(kv[1]))
    status, answer = call(mixed_sandbox, "/dois", **{"client-id": client, "page[size]": 7})
    assert answer["meta"]["total"] == len(dois)
    assert answer["meta"]["totalPages"] == -(-len(dois) // 7)


def test_dois_by_prefix_page_through_exactly_the_prefixs_dois(mixed_sandbox, prefix_dois):
    prefix, dois = min(prefix_dois.items(), key=lambda kv: len(kv[1]))
    seen, meta = page_through(mixed_sandbox, 5, prefix=prefix)
    assert meta["total"] == len(dois)
    assert len(seen) == len(set(seen))
    assert sorted(seen) == sorted(dois)


def test_dois_next_link_leads_to_the_next_page(mixed_sandbox, client_dois):
    client, dois = max(client_dois.items(), key=lambda kv: len(kv[1]))
    status, first = call(mixed_sandbox, "/dois", **{"client-id": client, "page[size]": 3})
    second = json.loads(get(mixed_sandbox.proxy, first["links"]["next"]).body)
    assert second["meta"]["page"] == 2
    assert [d["id"] for d in second["data"]] == dois[3:6]


def test_random_true_gives_page_size_distinct_dois_of_the_filter(mixed_sandbox, client_dois):
    client, dois = max(client_dois.items(), key=lambda kv: len(kv[1]))
    status, answer = call(mixed_sandbox, "/dois", **{"client-id": client, "random": "true", "page[size]": 10})
    picked = [item["id"] for item in answer["data"]]
    assert len(picked) == 10
    assert len(set(picked)) == 10
    assert set(picked) <= set(dois)


def test_single_doi_gives_its_registered_url(mixed_sandbox, mixed_dois):
    record = next(r for r in mixed_dois if r["ra"] == "datacite")
    status, answer = call(mixed_sandbox, f"/dois/{record['doi']}")
    assert (status, answer["data"]["id"], answer["data"]["attributes"]["url"]) == (
        200,
        record["doi"].lower(),
        record["url"],
    )


def test_unknown_doi_is_404(mixed_sandbox):
    status, answer = call(mixed_sandbox, "/dois/10.9999/no-such-dataset")
    assert status == 404
    assert answer["errors"][0]["status"] == "404"


def test_crossref_doi_is_404_at_datacite(mixed_sandbox, mixed_dois):
    record = next(r for r in mixed_dois if r["ra"] == "crossref")
    assert call(mixed_sandbox, f"/dois/{record['doi']}")[0] == 404


def test_bad_page_size_is_400(mixed_sandbox):
    assert call(mixed_sandbox, "/dois", **{"page[size]": "many"})[0] == 400


def test_clients_listing_side_loads_each_clients_provider_once_with_its_world_name(mixed_sandbox, mixed_world):
    status, answer = call(mixed_sandbox, "/clients", include="provider")
    providers = {p["id"]: p["name"] for p in json.loads((mixed_world / "world.json").read_text())["providers"]}
    related = [c["relationships"]["provider"]["data"]["id"] for c in answer["data"]]
    assert (status, [p["id"] for p in answer["included"]]) == (200, list(dict.fromkeys(related)))
    assert {p["id"]: (p["type"], p["attributes"]["name"]) for p in answer["included"]} == {
        provider: ("providers", providers[provider]) for provider in related
    }


def test_clients_listing_side_loads_nothing_unless_asked(mixed_sandbox):
    assert "included" not in call(mixed_sandbox, "/clients")[1]


def test_clients_next_link_leaves_out_include_as_the_real_api_does(mixed_sandbox):
    _, answer = call(mixed_sandbox, "/clients", include="provider", **{"page[size]": 1})
    following = get(mixed_sandbox.proxy, answer["links"]["next"])
    assert ("include" in answer["links"]["next"], "included" in json.loads(following.body)) == (False, False)


def test_one_client_side_loads_its_provider_when_asked(mixed_sandbox, world_clients):
    client = world_clients[0]
    status, answer = call(mixed_sandbox, f"/clients/{client['id']}", include="provider")
    assert (status, [p["id"] for p in answer["included"]]) == (200, [client["id"].split(".")[0]])


def test_a_provider_the_world_does_not_name_is_named_by_its_symbol(tmp_path):
    (tmp_path / "world.json").write_text(
        json.dumps({"format": "landing-sandbox/1", "clients": [{"id": "exrepo.data", "name": "Example Data"}]})
    )
    (tmp_path / "dois.jsonl").write_text("")
    (tmp_path / "routes.jsonl").write_text("")
    world = World(tmp_path)
    try:
        reply = respond(world, Request("GET", f"{API}/clients?include=provider"), State(seed=1))
    finally:
        world.close()
    assert json.loads(reply.body)["included"][0]["attributes"]["name"] == "EXREPO"
