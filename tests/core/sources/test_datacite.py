"""landing.core.sources.datacite: request URLs built exactly, and responses of the sandbox's DataCite API parsed."""

from urllib.parse import parse_qs, urlsplit

import pytest

from landing.core.sources import datacite
from tests.core.sources.conftest import call, dois_by_owner

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


def test_clients_url_asks_for_the_largest_page():
    assert datacite.clients_url(API) == f"{API}/clients?page%5Bsize%5D=1000&page%5Bnumber%5D=1"


def test_clients_url_asks_for_the_page_given():
    assert params(datacite.clients_url(API, 3)) == {"page[size]": ["1000"], "page[number]": ["3"]}


def test_count_url_asks_for_one_doi_of_the_client():
    assert datacite.count_url(API, "cern.zenodo") == f"{API}/dois?client-id=cern.zenodo&page%5Bsize%5D=1"


def test_sample_url_asks_for_a_random_page_of_the_client():
    assert (
        datacite.sample_url(API, "cern.zenodo", 40) == f"{API}/dois?client-id=cern.zenodo&random=true&page%5Bsize%5D=40"
    )


def test_sample_url_caps_the_page_at_the_apis_largest():
    assert params(datacite.sample_url(API, "cern.zenodo", 5000))["page[size]"] == ["1000"]


# parsers on hand-made payloads


def test_parse_clients_reads_ids_and_the_next_link():
    payload = {"data": [{"id": "a.b"}, {"id": "c.d"}], "links": {"next": f"{API}/clients?page%5Bnumber%5D=2"}}
    assert datacite.parse_clients(payload) == (["a.b", "c.d"], f"{API}/clients?page%5Bnumber%5D=2")


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
