"""landing.core.registries.datacite: request URLs built exactly, and responses of the sandbox's DataCite API parsed."""

from datetime import datetime
from urllib.parse import parse_qs, urlsplit

import pytest

from landing.core.registries import datacite
from landing.core.registries.names import Names
from tests.core.registries.conftest import call, dois_by_owner

API = "http://api.datacite.org"


def params(url):
    return parse_qs(urlsplit(url).query)


@pytest.fixture(scope="module")
def client_dois(mixed_world):
    return dois_by_owner(mixed_world, "datacite")


def all_clients(world):
    """Every client id, following links.next from the first page; and how many pages that took."""
    clients, url, pages = [], datacite.clients_url(API), 0
    while url:
        found, url = datacite.parse_clients(call(world, url))
        clients += found
        pages += 1
    return clients, pages


# URLs


def test_clients_url_asks_for_the_largest_page_with_providers_included():
    assert datacite.clients_url(API) == f"{API}/clients?page%5Bsize%5D=1000&page%5Bnumber%5D=1&include=provider"


def test_clients_url_asks_for_the_page_given():
    assert params(datacite.clients_url(API, 3)) == {
        "page[size]": ["1000"],
        "page[number]": ["3"],
        "include": ["provider"],
    }


def test_count_url_asks_for_one_doi_of_the_client():
    assert datacite.count_url(API, "cern.zenodo") == f"{API}/dois?client-id=cern.zenodo&page%5Bsize%5D=1"


def test_sample_url_asks_for_a_random_page_of_the_client():
    assert (
        datacite.sample_url(API, "cern.zenodo", 40) == f"{API}/dois?client-id=cern.zenodo&random=true&page%5Bsize%5D=40"
    )


def test_sample_url_caps_the_page_at_the_apis_largest():
    assert params(datacite.sample_url(API, "cern.zenodo", 5000))["page[size]"] == ["1000"]


# parsers on hand-made payloads


def test_parse_clients_reads_ids_and_the_next_link_asking_again_for_the_providers_it_leaves_out():
    payload = {"data": [{"id": "a.b"}, {"id": "c.d"}], "links": {"next": f"{API}/clients?page%5Bnumber%5D=2"}}
    assert datacite.parse_clients(payload) == (["a.b", "c.d"], f"{API}/clients?page%5Bnumber%5D=2&include=provider")


def test_parse_clients_keeps_a_next_link_that_includes_providers_as_it_is():
    following = f"{API}/clients?include=provider&page%5Bnumber%5D=2"
    assert datacite.parse_clients({"data": [{"id": "a.b"}], "links": {"next": following}})[1] == following


# A clients page as the API documents it (openapi.yaml of datacite/lupo: Client, Provider, `include=provider`):
# each client's provider in `relationships`, the providers once each in `included`.
PAGE = {
    "data": [
        {
            "id": "cern.zenodo",
            "type": "clients",
            "attributes": {"name": "Zenodo", "symbol": "CERN.ZENODO", "clientType": "repository"},
            "relationships": {
                "provider": {"data": {"id": "cern", "type": "providers"}},
                "prefixes": {"data": [{"id": "10.5281", "type": "prefixes"}]},
            },
        },
        {
            "id": "cern.inspire",
            "type": "clients",
            "attributes": {"name": "  INSPIRE\nHEP ", "symbol": "CERN.INSPIRE"},
            "relationships": {"provider": {"data": {"id": "cern", "type": "providers"}}},
        },
        {
            "id": "gesis.dbk",
            "type": "clients",
            "attributes": {"name": "Datenbestandskatalog", "symbol": "GESIS.DBK"},
            "relationships": {"provider": {"data": {"id": "gesis", "type": "providers"}}},
        },
        {"id": "x.none", "type": "clients", "attributes": {"name": None}, "relationships": {}},
    ],
    "included": [
        {
            "id": "cern",
            "type": "providers",
            "attributes": {"name": "European Organization for Nuclear Research", "symbol": "CERN"},
        },
        {"id": "gesis", "type": "providers", "attributes": {"displayName": "GESIS", "symbol": "GESIS"}},
        {"id": "cern", "type": "repositories", "attributes": {"name": "not a provider"}},
    ],
}


def test_client_names_read_each_clients_name_and_its_included_providers_id_and_name():
    assert datacite.client_names(PAGE) == {
        "cern.zenodo": Names("Zenodo", "cern", "European Organization for Nuclear Research"),
        "cern.inspire": Names("INSPIRE HEP", "cern", "European Organization for Nuclear Research"),
        "gesis.dbk": Names("Datenbestandskatalog", "gesis", "GESIS"),
        "x.none": Names(None, None, None),
    }


def test_client_names_of_a_page_without_included_providers_keep_the_provider_id_only():
    assert datacite.client_names({"data": PAGE["data"][:1]}) == {"cern.zenodo": Names("Zenodo", "cern", None)}


def test_client_prefixes_read_each_clients_related_prefixes():
    payload = {
        "data": [
            {
                "id": "a.b",
                "relationships": {"prefixes": {"data": [{"id": "10.5061", "type": "prefixes"}, {"id": "10.80506"}]}},
            },
            {"id": "c.d"},
        ]
    }
    assert datacite.client_prefixes(payload) == {"a.b": ["10.5061", "10.80506"], "c.d": []}


def test_parse_clients_of_an_empty_page_gives_no_next_link():
    assert datacite.parse_clients({"data": [], "links": {"next": f"{API}/clients?page%5Bnumber%5D=2"}}) == ([], None)


def test_parse_total_without_meta_is_zero():
    assert datacite.parse_total({"data": []}) == 0


def test_parse_dois_falls_back_to_the_id_without_attributes():
    assert datacite.parse_dois({"data": [{"id": "10.5/x"}, {"id": "10.5/y", "attributes": {"doi": "10.5/Y"}}]}) == [
        "10.5/x",
        "10.5/Y",
    ]


# parsers on the sandbox's answers


def test_paging_clients_via_links_next_covers_every_client(world):
    clients, _ = all_clients(world)
    assert sorted(clients) == sorted(world.clients)


def test_paging_clients_in_pages_of_one_gives_every_client_its_world_name_and_provider(world, monkeypatch):
    monkeypatch.setattr(datacite, "PAGE_SIZE", 1)
    found, url = {}, datacite.clients_url(API)
    while url:
        page = call(world, url)
        found.update(datacite.client_names(page))
        url = datacite.parse_clients(page)[1]
    providers = {p["id"]: p["name"] for p in world.meta["providers"]}
    assert found == {
        c["id"]: Names(c["name"], c["id"].split(".")[0], providers[c["id"].split(".")[0]])
        for c in world.clients.values()
    }


def test_paging_clients_in_pages_of_one_follows_links_next_to_every_client(world, monkeypatch):
    monkeypatch.setattr(datacite, "PAGE_SIZE", 1)
    clients, pages = all_clients(world)
    assert (sorted(clients), pages) == (sorted(world.clients), len(world.clients))


def test_parse_total_is_the_clients_dois_in_the_world(world, client_dois):
    totals = {c: datacite.parse_total(call(world, datacite.count_url(API, c))) for c in world.clients}
    assert totals == {c: len(client_dois.get(c, ())) for c in world.clients}


def test_sample_dois_are_the_clients_dois_in_the_world(world, client_dois):
    client = max(client_dois, key=lambda c: len(client_dois[c]))
    dois = datacite.parse_dois(call(world, datacite.sample_url(API, client, 30)))
    assert (len(dois), set(dois) <= client_dois[client]) == (30, True)


def test_sample_larger_than_the_client_gives_all_its_dois(world, client_dois):
    client = min(client_dois, key=lambda c: len(client_dois[c]))
    dois = datacite.parse_dois(call(world, datacite.sample_url(API, client, 1000)))
    assert sorted(dois) == sorted(client_dois[client])


def test_the_updates_url_asks_for_the_dois_updated_in_the_window_with_their_url_a_thousand_a_page_by_cursor():
    url = datacite.updates_url("https://api.datacite.org", datetime(2030, 1, 2, 3), datetime(2030, 1, 2, 4))
    assert url.startswith("https://api.datacite.org/dois?")
    assert parse_qs(urlsplit(url).query) == {
        "query": ["updated:[2030-01-02T03\\:00\\:00Z TO 2030-01-02T04\\:00\\:00Z]"],
        "fields[dois]": ["url,updated"],
        "page[size]": ["1000"],
        "page[cursor]": ["1"],
    }
    assert "+" not in url  # a space is %20, as DataCite's own examples write it


def test_a_page_of_updated_dois_gives_each_doi_with_its_url_and_the_next_link():
    following = "https://api.datacite.org/dois?page%5Bcursor%5D=opaque&page%5Bsize%5D=1000"
    page = {
        "data": [
            {
                "id": "10.5061/abc",
                "type": "dois",
                "attributes": {"url": "https://repo.example/record/1", "updated": "2030-01-02T03:12:44Z"},
            },
            {"id": "10.5061/def", "type": "dois", "attributes": {"updated": "2030-01-02T03:13:00Z"}},
        ],
        "meta": {"total": 2},
        "links": {"next": following},
    }
    assert datacite.parse_updates(page) == (
        [("10.5061/abc", "https://repo.example/record/1"), ("10.5061/def", None)],
        following,
        2,
    )


def test_the_last_page_of_updated_dois_has_no_next_link_and_ends_the_paging():
    page = {
        "data": [{"id": "10.5061/abc", "attributes": {"url": "https://repo.example/1"}}],
        "meta": {"total": 1},
        "links": {"self": "https://api.datacite.org/dois"},
    }
    assert datacite.parse_updates(page) == ([("10.5061/abc", "https://repo.example/1")], None, 1)
