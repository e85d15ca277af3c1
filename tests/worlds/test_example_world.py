"""The hand-written example world (tests/worlds/example, described in docs/sandbox.md) answers as written.

Pure: the router (landing_dev.sandbox.web.respond) is called directly, no server. The world is copied to a
temporary directory first, because loading a world builds its SQLite index beside it.
"""

import json
import shutil
from pathlib import Path

import pytest

from landing_dev.sandbox.analysis_truth import page_truth
from landing_dev.sandbox.http import Request
from landing_dev.sandbox.truth import BROWSER, COOKIES, HTTP, walk
from landing_dev.sandbox.web import State, respond
from landing_dev.sandbox.world import World

EXAMPLE = Path(__file__).parent / "example"
W = "https://www.harbour-lane.example"
S = "https://secure.harbour-lane.example"
D = "https://data.example-repo.example"


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    directory = tmp_path_factory.mktemp("example") / "example"
    shutil.copytree(EXAMPLE, directory, ignore=shutil.ignore_patterns(".index.*"))
    opened = World(directory)
    yield opened
    opened.close()


def get(world, url, state=None, cookie=None):
    headers = {"cookie": cookie} if cookie else {}
    return respond(world, Request("GET", url, headers), state or State(0))


def routes():
    with open(EXAMPLE / "routes.jsonl", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def test_world_declares_one_member_and_one_client(world):
    assert list(world.members) == ["4242"] and list(world.clients) == ["exrepo.data"]
    assert world.count("crossref", "4242") == 6
    assert world.count("datacite", "exrepo.data") == 2
    assert world.doi("10.99001/HLP.2024.001")["url"] == f"{W}/article/hlp.2024.001"  # case-insensitive


def test_every_plain_route_answers_with_its_status_location_and_body(world):
    checked = 0
    for route in routes():
        if "require_cookie" in route or "handler" in route or "fail_first" in route:
            continue  # covered by their own tests below
        reply = get(world, route["url"])
        assert reply.status == route.get("status", 200), route["url"]
        if "location" in route:
            assert reply.header("Location") == route["location"]
        elif "body" in route:
            assert reply.body == route["body"].encode("utf-8")
        elif "body_file" in route:
            assert reply.body == (EXAMPLE / route["body_file"]).read_bytes()
        else:
            assert f"<title>{route['page']['title']}</title>".encode() in reply.body
        if "content_type" in route:
            assert reply.header("Content-Type") == route["content_type"]
        checked += 1
    assert checked == 9


def test_literal_body_route_sends_its_headers_and_cookie(world):
    reply = get(world, f"{W}/article/hlp.2024.005")
    assert reply.header("Cache-Control") == "no-store"
    assert reply.header("Set-Cookie") == "visited=1; Path=/"
    assert reply.header("Content-Type") == "text/html; charset=utf-8"


def test_page_spec_renders_its_meta_tags_and_references(world):
    body = get(world, f"{W}/article/hlp.2024.001").body.decode()
    assert '<meta name="citation_doi" content="10.99001/hlp.2024.001">' in body
    assert '<meta name="dc.identifier" content="doi:10.99001/hlp.2024.001" scheme="doi">' in body
    assert '<link rel="canonical" href="https://www.harbour-lane.example/article/hlp.2024.001">' in body
    assert body.count("<li>") == 12
    assert "doi:10.99001/hlp.2024.001.supp" in body  # a `near` reference: same start, another work


def test_missing_route_is_the_sites_plain_404(world):
    assert get(world, f"{W}/article/hlp.2024.004").status == 404


def test_query_and_tracking_parameters_fall_back_to_the_route(world):
    assert get(world, f"{W}/article/hlp.2024.001?utm_source=x&utm_medium=y").status == 200
    assert get(world, f"{W}/article/hlp.2024.001?anything=else").status == 200
    assert get(world, f"{W}/article/hlp.2024.001/").status == 404  # the path must match


def test_cookie_wall_bounces_until_the_session_cookie_comes_back(world):
    wall = get(world, f"{S}/article/hlp.2024.003")
    assert wall.status == 302
    assert wall.header("Location") == f"{S}/action/getSharedSiteSession?redirect=%2Farticle%2Fhlp.2024.003&rc=0"
    assert wall.header("Set-Cookie") == "HLSESSION=s3ss10n; Path=/"
    bounce = get(world, wall.header("Location"))
    assert bounce.status == 302 and bounce.header("Location").endswith("rc=1")
    last = get(world, f"{S}/action/getSharedSiteSession?redirect=%2Farticle%2Fhlp.2024.003&rc=3")
    assert last.header("Location") == f"{S}/action/cookieAbsent"
    back = get(world, wall.header("Location"), cookie="HLSESSION=s3ss10n")
    assert back.header("Location") == f"{S}/article/hlp.2024.003"
    page = get(world, f"{S}/article/hlp.2024.003", cookie="HLSESSION=s3ss10n")
    assert page.status == 200 and b"Harbour seals and ferry noise" in page.body


def test_fail_first_fails_once_per_state_then_serves_the_page(world):
    state = State(0)
    first = get(world, f"{D}/record/8", state)
    assert first.status == 503 and first.header("Retry-After") == "1"
    second = get(world, f"{D}/record/8", state)
    assert second.status == 200 and second.delay_ms == 150
    assert get(world, f"{D}/record/8", State(0)).status == 503  # a new state (server) fails again


def test_resolver_and_apis_know_the_example_dois(world):
    assert (
        get(world, "http://doi.org/10.99001/hlp.2024.002").header("Location") == "https://doi.org/10.99001/hlp.2024.002"
    )
    assert (
        get(world, "https://doi.org/10.99001/hlp.2024.002").header("Location")
        == "http://www.harbour-lane.example/article/hlp.2024.002"
    )
    assert get(world, "https://doi.org/10/hlp1").header("Location") == f"{W}/article/hlp.2024.001"
    handle = json.loads(get(world, "https://doi.org/api/handles/10.99002/EXREPO.7?type=URL").body)
    assert handle["handle"] == "10.99002/EXREPO.7" and handle["values"][0]["data"]["value"] == f"{D}/record/7"
    works = json.loads(get(world, "https://api.crossref.org/works?filter=alternative-id:S2999-0001(24)00001-3").body)
    assert [w["DOI"] for w in works["message"]["items"]] == ["10.99001/hlp.2024.001"]
    member = json.loads(get(world, "https://api.crossref.org/members/4242").body)["message"]
    assert member["counts"]["total-dois"] == 6 and member["prefixes"] == ["10.99001"]
    dois = json.loads(get(world, "https://api.datacite.org/dois?client-id=exrepo.data").body)
    assert dois["meta"]["total"] == 2


# (resource URL's DOI) -> what each reference client ends with: (final_url, error) for http, cookies, browser.
EXPECTED = {
    "10.99001/hlp.2024.001": [(f"{W}/article/hlp.2024.001", None)] * 3,
    "10.99001/hlp.2024.002": [(f"{W}/article/hlp.2024.002", None)] * 3,
    "10.99001/hlp.2024.003": [
        (None, "cookie-required"),
        (f"{S}/article/hlp.2024.003", None),
        (f"{S}/article/hlp.2024.003", None),
    ],
    "10.99001/hlp.2024.004": [(None, "http-4xx")] * 3,
    "10.99001/hlp.2024.005": [(f"{W}/article/hlp.2024.005", None)] * 3,
    "10.99001/hlp.2024.006": [(None, "robots"), (None, "robots"), (f"{W}/private/hlp.2024.006", None)],
    "10.99002/exrepo.7": [(f"{D}/record/7", None)] * 3,
    "10.99002/exrepo.8": [(f"{D}/record/8", None)] * 3,
}


def test_truth_walks_end_where_the_world_was_designed_to(world):
    for doi, expected in EXPECTED.items():
        url = world.doi(doi)["url"]
        got = [(r["final_url"], r["error"]) for r in (walk(world, url, c) for c in (HTTP, COOKIES, BROWSER))]
        assert got == expected, doi


def test_truth_walk_details(world):
    cookie_wall = walk(world, f"{S}/article/hlp.2024.003", HTTP)
    assert [h["status"] for h in cookie_wall["urls"]] == [302, 302, 302, 302, 302, 200]
    assert cookie_wall["end_url"] == f"{S}/action/cookieAbsent"
    robots = walk(world, f"{W}/private/hlp.2024.006", HTTP)
    assert robots["urls"] == [] and robots["end_status"] is None
    refresh = walk(world, f"{D}/go/8", HTTP)
    assert [h["url"] for h in refresh["urls"]] == [f"{D}/go/8", f"{D}/record/8"]
    assert refresh["retried"] == [503]


def test_committed_truth_file_agrees_with_a_fresh_walk(world):
    """tests/worlds/example/truth.jsonl (written by `scrapy sandbox truth`) is up to date with the routes."""
    with open(EXAMPLE / "truth.jsonl") as lines:
        truth = {row["doi"]: row for row in map(json.loads, lines)}
    assert set(truth) == set(EXPECTED)
    for doi, row in truth.items():
        http = walk(world, row["resource_url"], HTTP)
        for field in ("final_url", "final_status", "end_url", "end_status", "error", "urls", "retried"):
            assert row[field] == http[field], (doi, field)
        assert row["cookie_error"] == walk(world, row["resource_url"], COOKIES)["error"]
        assert row["browser_final_url"] == walk(world, row["resource_url"], BROWSER)["final_url"]
    assert truth["10.99001/hlp.2024.006"]["robots_disallowed"] is True
    assert truth["10.99002/exrepo.8"]["delay_ms"] == 150
    assert truth["10.99002/exrepo.7"]["final_domain"] == "data.example-repo.example"


def test_page_specs_state_their_doi_as_designed(world):
    spec = {r["url"]: r.get("page") for r in routes()}
    first = page_truth("10.99001/hlp.2024.001", spec[f"{W}/article/hlp.2024.001"])
    assert (
        first["meta_tag_correctness"],
        first["doi_in_meta_tags"],
        first["doi_in_text"],
        first["doi_in_hyperlinks"],
    ) == ("ok", "doi-scheme", "https-doi", "https-doi")
    text_only = page_truth("10.99001/hlp.2024.002", spec[f"{W}/article/hlp.2024.002"])
    assert (text_only["meta_tag_correctness"], text_only["doi_in_text"], text_only["doi_in_hyperlinks"]) == (
        "missing",
        "non-url",
        None,
    )
    walled = page_truth("10.99001/hlp.2024.003", spec[f"{S}/article/hlp.2024.003"])
    assert (walled["meta_tag_correctness"], walled["doi_in_meta_tags"], walled["doi_in_text"]) == (
        "ok",
        "https-doi",
        None,
    )  # the link's label is "Permanent link": no DOI in the text
