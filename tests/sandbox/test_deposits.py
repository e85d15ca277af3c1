"""The registries' delta queries: the DOIs whose update date falls in a window, as the world stands at its clock."""

import json
from datetime import timedelta
from urllib.parse import quote

import pytest

from landing_dev.sandbox import deposits
from landing_dev.sandbox.evolving import Evolution
from landing_dev.sandbox.http import Request
from landing_dev.sandbox.server import RunningSandbox
from landing_dev.sandbox.timeline import moment
from landing_dev.sandbox.web import State, respond
from landing_dev.sandbox.world import World
from tests.sandbox.client import get

START = moment("2030-01-01T00:00:00Z")
SITES = {"a": "https://a.example/", "b": "https://b.example/", "d": "https://repo.example/"}


def _day(days: float) -> str:
    return (START + timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.fixture(scope="module")
def directory(tmp_path_factory):
    """Three Crossref DOIs on a site that moves with the registry at day 2, two on one that moves silently at day 3,
    three DataCite DOIs on a repository that moves with the registry at day 4; no background updates."""
    directory = tmp_path_factory.mktemp("deposits")
    world = {
        "format": "landing-sandbox/1",
        "members": [{"id": "7", "primary-name": "Seven", "prefixes": ["10.1234"]}],
        "clients": [{"id": "x.y", "prefixes": ["10.5061"]}],
    }
    (directory / "world.json").write_text(json.dumps(world))
    dois = [{"doi": f"10.1234/a{n}", "ra": "crossref", "member": "7", "url": f"{SITES['a']}{n}"} for n in range(3)]
    dois += [{"doi": f"10.1234/b{n}", "ra": "crossref", "member": "7", "url": f"{SITES['b']}{n}"} for n in range(2)]
    dois += [{"doi": f"10.5061/d{n}", "ra": "datacite", "client": "x.y", "url": f"{SITES['d']}{n}"} for n in range(3)]
    (directory / "dois.jsonl").write_text("".join(json.dumps(d) + "\n" for d in dois))
    routes = [{"url": f"{SITES['b']}{n}", "body": "<html>b</html>"} for n in range(2)]
    (directory / "routes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in routes))
    events = [
        {"at": _day(0), "kind": "background-updates", "rate": 0, "seed": 1, "days": 10},
        {"at": _day(2), "kind": "move", "host": "a.example", "to": "a.platform0.example", "registry": True},
        {"at": _day(3), "kind": "move", "host": "b.example", "to": "b.platform1.example", "registry": False},
        {"at": _day(4), "kind": "move", "host": "repo.example", "to": "repo.platform2.example", "registry": True},
    ]
    (directory / "timeline.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    return directory


@pytest.fixture
def ask(directory):
    """ask(days, url): the JSON the sandbox answers at that simulated day, and the status."""
    world = World(directory)

    def at(days, url):
        world.now = lambda: (START + timedelta(days=days)).timestamp()
        reply = respond(world, Request("GET", url, {}), State(0, evolution=Evolution(world)))
        return reply.status, json.loads(reply.body) if reply.body.startswith((b"{", b"[")) else reply

    yield at
    world.close()


def _works(frm, until, more=""):
    return f"https://api.crossref.org/works?filter=from-update-date:{frm},until-update-date:{until}{more}"


def test_a_date_covers_every_instant_of_its_precision():
    assert deposits.period("2030-01-02") == (
        moment("2030-01-02T00:00:00Z").timestamp(),
        moment("2030-01-03T00:00:00Z").timestamp(),
    )
    assert deposits.period("2030-01-02T03:04")[1] - deposits.period("2030-01-02T03:04")[0] == 60
    assert deposits.period("2030")[1] == moment("2031-01-01T00:00:00Z").timestamp()


def test_a_lucene_range_excludes_a_curly_bound_and_leaves_a_star_open():
    day = deposits.period("2030-01-02")
    assert deposits.lucene_range("updated:[2030-01-02 TO 2030-01-02]") == day
    assert deposits.lucene_range("updated:{2030-01-02 TO 2030-01-03}") == (day[1], day[1])
    assert deposits.lucene_range(r"updated:[2030-01-02T00\:00\:00Z TO *]") == (day[0], float("inf"))


def test_a_registry_visible_move_is_in_the_window_with_its_new_url_only_from_its_time(ask):
    before = ask(1.9, _works("2030-01-02", "2030-01-03T12"))[1]["message"]
    after = ask(2.1, _works("2030-01-02", "2030-01-03T12", "&select=DOI,resource,deposited"))[1]["message"]
    assert before["total-results"] == 0
    assert [item["DOI"] for item in after["items"]] == ["10.1234/a0", "10.1234/a1", "10.1234/a2"]
    assert after["items"][0] == {
        "DOI": "10.1234/a0",
        "resource": {"primary": {"URL": "https://a.platform0.example/0"}},
        "deposited": {
            "date-parts": [[2030, 1, 3]],
            "date-time": _day(2),
            "timestamp": int(moment(_day(2)).timestamp()) * 1000,
        },
    }


def test_both_bounds_are_inclusive_to_the_second(ask):
    moved = _day(2)[:-1]
    earlier = (START + timedelta(days=2, seconds=-1)).strftime("%Y-%m-%dT%H:%M:%S")
    total = [
        ask(5, _works(frm, until))[1]["message"]["total-results"]
        for frm, until in ((moved, moved), (earlier, earlier), (earlier, moved))
    ]
    assert total == [3, 0, 3]


def test_a_cursor_pages_through_a_window_of_more_than_one_page_then_answers_no_items(ask):
    seen, cursor, pages = [], "*", []
    while True:
        message = ask(9, _works("2030", "2030", f"&rows=2&cursor={quote(cursor)}"))[1]["message"]
        pages.append(len(message["items"]))
        if not message["items"]:
            break
        seen += [item["DOI"] for item in message["items"]]
        cursor = message["next-cursor"]
    assert pages == [2, 1, 0]
    assert seen == ["10.1234/a0", "10.1234/a1", "10.1234/a2"]


def test_a_doi_updated_again_later_leaves_the_earlier_window(ask):
    first_deposits = [ask(day, _works("2029", "2029", ",member:7"))[1]["message"]["total-results"] for day in (1, 5)]
    assert first_deposits == [5, 2]


def test_a_bad_date_is_a_validation_failure_as_the_api_answers_it(ask):
    status, answer = ask(5, _works("2030-13", "2030"))
    assert (status, answer["status"], answer["message"][0]["type"]) == (400, "failed", "date-not-valid")
    status, answer = ask(5, "https://api.datacite.org/dois?query=" + quote("updated:[soon TO *]"))
    assert (status, answer["errors"][0]["status"]) == (400, "400")


def test_datacite_pages_a_window_by_cursor_with_only_the_fields_asked_for(ask):
    query = quote(r"updated:[2030-01-05T00\:00\:00Z TO 2030-01-05T00\:00\:00Z]")
    url = f"https://api.datacite.org/dois?query={query}&fields[dois]=url,updated&page[size]=2&page[cursor]=1"
    first = ask(4.5, url)[1]
    second = ask(4.5, first["links"]["next"])[1]
    assert first["meta"]["total"] == 3 and "next" not in second["links"]
    assert [d["id"] for d in first["data"] + second["data"]] == ["10.5061/d0", "10.5061/d1", "10.5061/d2"]
    assert first["data"][0]["attributes"] == {"url": "https://repo.platform2.example/0", "updated": _day(4)}
    assert ask(3.9, url)[1]["data"] == []


def test_a_doi_answered_by_the_apis_carries_its_update_date(ask):
    (work,) = ask(5, "https://api.crossref.org/works?filter=doi:10.1234/a1")[1]["message"]["items"]
    doi = ask(5, "https://api.datacite.org/dois/10.5061/d1")[1]["data"]
    assert (work["indexed"]["date-time"], doi["attributes"]["updated"]) == (_day(2), _day(4))


def test_a_registry_silent_move_is_never_in_a_window_and_the_resolver_keeps_its_old_url(ask):
    message = ask(9, _works("2030-01-01T00:00:01", "2030-01-10"))[1]["message"]
    assert {item["DOI"] for item in message["items"]} == {"10.1234/a0", "10.1234/a1", "10.1234/a2"}
    assert ask(9, "https://doi.org/10.1234/b0")[1].headers[0] == ("Location", "https://b.example/0")
    assert ask(9, "https://doi.org/10.1234/a0")[1].headers[0] == ("Location", "https://a.platform0.example/0")


def test_served_a_silent_moves_old_site_redirects_to_the_new_one(directory):
    sandbox = RunningSandbox(directory, now=lambda: START + timedelta(days=5))
    try:
        resolved = get(sandbox.proxy, "https://doi.org/10.1234/b1")
        old = get(sandbox.proxy, resolved.location)
        new = get(sandbox.proxy, old.location)
    finally:
        sandbox.close()
    assert (resolved.location, old.status, old.location) == (SITES["b"] + "1", 301, "https://b.platform1.example/1")
    assert (new.status, new.body) == (200, b"<html>b</html>")


def test_background_updates_come_at_the_rate_asked_and_the_same_for_a_seed():
    drawn = [deposits.background(f"10.1/{n}", 3, 0.01, 0, 30 * 86400) for n in range(2000)]
    assert 500 < sum(map(len, drawn)) < 700  # 2,000 DOIs, 1% a day, 30 days: 600
    assert drawn[:50] == [deposits.background(f"10.1/{n}", 3, 0.01, 0, 30 * 86400) for n in range(50)]


def test_a_background_update_puts_a_doi_in_the_window_of_its_time_with_its_url_unchanged(directory, tmp_path):
    for name in ("world.json", "dois.jsonl", "routes.jsonl"):
        (tmp_path / name).write_bytes((directory / name).read_bytes())
    event = {"at": _day(0), "kind": "background-updates", "rate": 2, "seed": 4, "days": 10}
    (tmp_path / "timeline.jsonl").write_text(json.dumps(event) + "\n")
    world = World(tmp_path)
    day = deposits.period("2030-01-04")
    world.now = lambda: day[1]  # the window's end: a DOI updated in it has not been updated since
    try:
        found, total = deposits.window(world, "crossref", *day)
    finally:
        world.close()
    dois = [f"10.1234/{site}{n}" for site, count in (("a", 3), ("b", 2)) for n in range(count)]
    drawn = {doi: deposits.background(doi, 4, 2, START.timestamp(), START.timestamp() + 10 * 86400) for doi in dois}
    assert {r["doi"] for r in found} == {
        doi for doi, times in drawn.items() if any(day[0] <= t < day[1] for t in times)
    }
    assert total == len(found) > 0 and all(
        r["url"].startswith(("https://a.example/", "https://b.example/")) for r in found
    )


def test_a_cursor_misses_nothing_when_the_clock_moves_between_pages(ask):
    message = ask(1, _works("2029", "2030", "&rows=2&cursor=*"))[1]["message"]
    seen = [item["DOI"] for item in message["items"]]
    while message["items"]:  # the registry-visible move at day 2 re-dates a0..a2 after every first deposit
        message = ask(2.1, _works("2029", "2030", f"&rows=2&cursor={quote(message['next-cursor'])}"))[1]["message"]
        seen += [item["DOI"] for item in message["items"]]
    assert set(seen) == {"10.1234/a0", "10.1234/a1", "10.1234/a2", "10.1234/b0", "10.1234/b1"}
    assert (seen.count("10.1234/b0"), seen.count("10.1234/b1")) == (1, 1)
