"""landing.core.registries.crossref: request URLs built exactly, and responses of the sandbox's Crossref API parsed."""

from datetime import datetime
from urllib.parse import parse_qs, urlsplit

import pytest

from landing.core.registries import crossref
from landing.core.registries.names import LONGEST
from tests.core.registries.conftest import call, dois_by_owner

API = "http://api.crossref.org"


def query(url):
    return urlsplit(url).query


@pytest.fixture(scope="module")
def member_dois(mixed_world):
    return dois_by_owner(mixed_world, "crossref")


def all_members(world):
    """Every member, paging with the cursor from `*` until parse_members gives no next cursor."""
    members, cursor, pages, first = [], "*", 0, None
    while cursor:
        payload = call(world, crossref.members_url(API, cursor=cursor))
        first = first or payload
        found, cursor, _ = crossref.parse_members(payload)
        members += found
        pages += 1
    return members, first["message"]["total-results"], pages


# URLs


def test_members_url_starts_with_the_star_cursor_and_the_largest_page():
    assert crossref.members_url(API) == f"{API}/members?rows=1000&cursor=*"


def test_members_url_pages_by_offset_when_asked():
    assert crossref.members_url(API, offset=2000) == f"{API}/members?rows=1000&offset=2000"


def test_members_url_carries_mailto_when_given():
    assert query(crossref.members_url(API, "me@example.org")) == "rows=1000&cursor=*&mailto=me%40example.org"


def test_members_url_carries_the_cursor_it_is_given():
    assert parse_qs(query(crossref.members_url(API, cursor="eyJvIjo5fQ=="))) == {
        "rows": ["1000"],
        "cursor": ["eyJvIjo5fQ=="],
    }


def test_sample_url_asks_for_a_member_sample_of_dois_only():
    assert crossref.sample_url(API, "98", 40) == f"{API}/works?sample=40&filter=member:98&select=DOI"


def test_sample_url_carries_mailto_when_given():
    assert (
        query(crossref.sample_url(API, "98", 40, "me@example.org"))
        == "sample=40&filter=member:98&select=DOI&mailto=me%40example.org"
    )


def test_sample_url_without_mailto_has_no_mailto():
    assert "mailto" not in query(crossref.sample_url(API, "98", 40, None))


def test_sample_url_caps_the_sample_at_the_apis_largest():
    assert parse_qs(query(crossref.sample_url(API, "98", 500)))["sample"] == ["100"]


# parsers on hand-made payloads


def test_parse_members_reads_id_name_total_and_prefixes():
    payload = {
        "message": {
            "items": [
                {
                    "id": 98,
                    "primary-name": "Hindawi",
                    "counts": {"total-dois": 12},
                    "prefixes": ["10.1155", "10.1155", " 10.4061 "],
                }
            ],
            "next-cursor": "abc",
            "total-results": 31000,
        }
    }
    assert crossref.parse_members(payload) == (
        [{"id": "98", "name": "Hindawi", "total": 12, "prefixes": ["10.1155", "10.4061"]}],
        "abc",
        31000,
    )


def test_parse_members_of_an_empty_page_gives_no_next_cursor():
    assert crossref.parse_members({"message": {"items": [], "next-cursor": "abc"}}) == ([], None, 0)


def test_parse_members_without_counts_gives_total_zero():
    assert crossref.parse_members({"message": {"items": [{"id": 7}]}}) == (
        [{"id": "7", "name": None, "total": 0, "prefixes": []}],
        None,
        0,
    )


def test_parse_members_keeps_a_name_with_its_white_space_collapsed_and_no_name_for_one_that_is_not_text():
    payload = {"message": {"items": [{"id": 1, "primary-name": " Wiley\t\n Blackwell "}, {"id": 2, "primary-name": 7}]}}
    assert [m["name"] for m in crossref.parse_members(payload)[0]] == ["Wiley Blackwell", None]


def test_parse_members_keeps_at_most_the_longest_name_there_is_room_for():
    payload = {"message": {"items": [{"id": 1, "primary-name": "P" * (LONGEST + 50)}]}}
    assert crossref.parse_members(payload)[0][0]["name"] == "P" * LONGEST


def test_parse_dois_skips_items_without_doi():
    assert crossref.parse_dois({"message": {"items": [{"DOI": "10.1/A"}, {"URL": "x"}]}}) == ["10.1/A"]


# parsers on the sandbox's answers


def test_paging_members_with_the_cursor_gives_total_results_members(world):
    members, total, _ = all_members(world)
    assert len(members) == total == len(world.members)


def test_paging_members_gives_each_member_once(world):
    members, _, _ = all_members(world)
    assert sorted(m["id"] for m in members) == sorted(world.members)


def test_paging_members_in_small_pages_follows_the_cursor_to_every_member(world, monkeypatch):
    monkeypatch.setattr(crossref, "MEMBER_ROWS", 2)
    members, total, pages = all_members(world)
    assert (sorted(m["id"] for m in members), pages) == (sorted(world.members), -(-total // 2) + 1)


def test_parsed_member_totals_are_their_dois_in_the_world(world, member_dois):
    members, _, _ = all_members(world)
    assert {m["id"]: m["total"] for m in members} == {k: len(v) for k, v in member_dois.items()}


def test_parsed_member_names_are_the_worlds(world):
    members, _, _ = all_members(world)
    assert {m["id"]: m["name"] for m in members} == {k: v["primary-name"] for k, v in world.members.items()}


def test_sample_dois_are_the_members_dois_in_the_world(world, member_dois):
    member = max(member_dois, key=lambda k: len(member_dois[k]))
    dois = crossref.parse_dois(call(world, crossref.sample_url(API, member, 20, "me@example.org")))
    assert (len(dois), set(dois) <= member_dois[member]) == (20, True)


def test_sample_larger_than_the_member_gives_all_its_dois(world, member_dois):
    member = min(member_dois, key=lambda k: len(member_dois[k]))
    dois = crossref.parse_dois(call(world, crossref.sample_url(API, member, 100)))
    assert sorted(dois) == sorted(member_dois[member])


def test_the_updates_url_asks_for_every_work_updated_in_the_window_by_cursor_selecting_what_a_delta_reads():
    url = crossref.updates_url(API, datetime(2030, 1, 2, 3), datetime(2030, 1, 2, 4, 0, 59), "me@example.org", "a+b")
    assert parse_qs(query(url)) == {
        "filter": ["from-update-date:2030-01-02T03:00:00,until-update-date:2030-01-02T04:00:59"],
        "select": ["DOI,resource,member,prefix"],
        "rows": ["1000"],
        "cursor": ["a+b"],
        "mailto": ["me@example.org"],
    }


def test_a_page_of_updated_works_gives_each_doi_with_its_resource_url_and_the_next_cursor():
    page = {
        "status": "ok",
        "message-type": "work-list",
        "message": {
            "total-results": 2,
            "items-per-page": 1000,
            "next-cursor": "next",
            "items": [
                {
                    "DOI": "10.1234/abc",
                    "member": "7",
                    "prefix": "10.1234",
                    "resource": {"primary": {"URL": "https://journal.example/article/abc"}},
                },
                {"DOI": "10.1234/def", "member": "7", "prefix": "10.1234"},
            ],
        },
    }
    assert crossref.parse_updates(page) == (
        [("10.1234/abc", "https://journal.example/article/abc"), ("10.1234/def", None)],
        "next",
        2,
    )


def test_the_empty_page_of_updated_works_ends_the_paging_though_it_has_a_cursor():
    page = {"status": "ok", "message": {"total-results": 2, "next-cursor": "again", "items": []}}
    assert crossref.parse_updates(page) == ([], None, 2)
