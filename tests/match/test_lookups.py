"""landing.match.lookups: the matcher's network questions, asked through a real Scrapy engine, cached per crawl."""

import json
import socket
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

import landing.settings
from tests.local_http import serving

ROOT = Path(__file__).resolve().parents[2]
RETRY_TIMES = landing.settings.RETRY_TIMES

# Each scenario asks its questions of a fresh Lookups whose resolver is http://127.0.0.1:<port>/<scenario> (its Handle
# API under /<scenario>/api/handles/) and whose Crossref API is /<scenario>/api: the paths the server was asked tell
# which scenario asked them. Scenarios run one after the other, in one real crawl, in a subprocess (Scrapy installs
# its reactor once per process); a data: request hands the engine to them as the matcher's own callback gets it.
CRAWL = """
import asyncio, json, sys
import scrapy
from scrapy.crawler import AsyncCrawlerProcess
import landing.settings as project
from landing.core.results import LookupFailed
from landing.match.lookups import Lookups

BASE, CLOSED = sys.argv[1], sys.argv[2]


async def answered(ask):
    # What a lookup answered, or "failed" when it raised LookupFailed.
    try:
        return await ask
    except LookupFailed:
        return "failed"


def fetched(got):
    return {"url": got.url, "final_url": got.final_url, "status": got.status, "hops": got.hops, "error": got.error,
            "body": got.body.decode() if got.body is not None else None}


async def exists(make):
    lookups = make("exists")
    return [await lookups.exists("10.1234/Exists"), await lookups.exists("10.1234/EXISTS")]


async def missing(make):
    return await make("missing").exists("10.1234/nothing")


async def together(make):
    lookups = make("together")
    return await asyncio.gather(*(lookups.exists("10.1234/exists") for _ in range(3)))


async def alias(make):
    lookups = make("alias")
    return [await lookups.alias("10/abcd"), await lookups.alias("10/zzzz")]


async def pii(make):
    lookups = make("pii")
    variants = ["S0000000000000001", "S0000000000000002", "S0000000000000003"]
    return [await lookups.pii(variants), await lookups.pii(variants)]


async def unknown_pii(make):
    return await make("unknown_pii").pii(["S0000000000000009"])


async def mailto(make):
    return await make("mailto", "me@example.org").pii(["S0000000000000002"])


async def resolve(make):
    lookups = make("resolve")
    first, requests = await lookups.resolve("10.1234/moved")
    again, again_requests = await lookups.resolve("10.1234/moved")
    return [[fetched(first), requests], [fetched(again), again_requests]]


async def fetch(make):
    lookups = make("fetch")
    page = BASE + "/fetch/landing/a"
    return [fetched(await lookups.fetch(page)), fetched(await lookups.fetch(page))]


async def failing(make):
    lookups = make("failing")
    return [await answered(lookups.exists("10.1234/exists")), await answered(lookups.exists("10.1234/exists"))]


async def garbled(make):
    lookups = make("garbled")
    return [await answered(lookups.exists("10.1234/exists")), await answered(lookups.pii(["S0000000000000003"]))]


async def robots(make):
    return fetched(await make("robots").fetch(BASE + "/robots/page"))


async def closed(make):
    lookups = Lookups(make.engine, CLOSED, CLOSED + "/api", CLOSED + "/datacite")
    return [await answered(lookups.exists("10.1234/exists")), fetched(await lookups.fetch(CLOSED + "/page"))]


async def titles(make):
    lookups = make("titles")
    return [await lookups.titles("10.1234/Crossref"), await lookups.titles("10.1234/datacite"),
            await lookups.titles("10.1234/neither"), await lookups.titles("10.1234/CROSSREF")]


async def failing_titles(make):
    return await answered(make("failing_titles").titles("10.1234/crossref"))


SCENARIOS = [exists, missing, together, alias, pii, unknown_pii, mailto, resolve, fetch, failing, garbled, robots,
             closed, titles, failing_titles]


class Probe(scrapy.Spider):
    name = "probe"

    async def start(self):
        yield scrapy.Request("data:,", callback=self.run, dont_filter=True)

    async def run(self, response):
        engine = self.crawler.engine

        def make(name, mailto=None):
            return Lookups(engine, BASE + "/" + name, BASE + "/" + name + "/api", BASE + "/" + name + "/datacite",
                           mailto)
        make.engine = engine
        for scenario in SCENARIOS:
            print(json.dumps({scenario.__name__: await scenario(make)}), flush=True)
        return
        yield


settings = {name: getattr(project, name) for name in dir(project) if name.isupper()}
# The guard would refuse 127.0.0.1, and AutoThrottle would space the requests to it by a second.
settings.update(ITEM_PIPELINES={}, LOG_LEVEL="WARNING", TELNETCONSOLE_ENABLED=False, LANDING_ADDRESS_GUARD=False,
                AUTOTHROTTLE_ENABLED=False, LANDING_PROGRESS_INTERVAL=0)
process = AsyncCrawlerProcess(settings)
crawler = process.create_crawler(Probe)
process.crawl(crawler)
process.start()
print(json.dumps({"stats": {k: v for k, v in crawler.stats.get_stats().items() if k.startswith("landing/")}}))
"""

JSON = {"Content-Type": "application/json"}
HTML = {"Content-Type": "text/html; charset=utf-8"}
# The Handle API's records by handle (lower case): a DOI, and a shortDOI whose HS_ALIAS names its DOI.
HANDLES = {
    "10.1234/exists": [{"index": 1, "type": "URL", "data": {"format": "string", "value": "https://pub.example/a"}}],
    "10/abcd": [{"index": 1, "type": "HS_ALIAS", "data": {"format": "string", "value": "10.1234/Aliased"}}],
}
# Crossref's works by alternative-id (a PII's written forms).
WORKS = {"S0000000000000002": ["10.1016/B", "10.1016/a"], "S0000000000000003": ["10.1016/c"]}


def answer(asked):
    url = urlsplit(asked)
    path = unquote(url.path)
    if path == "/robots.txt":
        return 200, {"Content-Type": "text/plain"}, b"User-agent: *\nDisallow: /robots/\n"
    if path.startswith("/failing"):
        return 500, JSON, b"{}"
    if path.startswith("/garbled/"):  # a 200 that is no API's answer: a captive portal, an error page
        return 200, HTML, b"<html>Service unavailable</html>"
    if "/api/handles/" in path:
        handle = path.split("/api/handles/", 1)[1]
        values = HANDLES.get(handle.lower())
        if values is None:  # as the real Handle API answers an unregistered handle
            return 404, JSON, json.dumps({"responseCode": 100, "handle": handle}).encode()
        return 200, JSON, json.dumps({"responseCode": 1, "handle": handle, "values": values}).encode()
    if path.endswith("/api/works/10.1234/Crossref"):  # as Crossref's /works/{doi} answers, titles as lists
        work = {
            "DOI": "10.1234/crossref",
            "title": ["Main title"],
            "original-title": ["Titre original", 7],
            "subtitle": ["A subtitle"],
        }
        return 200, JSON, json.dumps({"status": "ok", "message-type": "work", "message": work}).encode()
    if "/api/works/" in path:
        return 404, {"Content-Type": "text/plain"}, b"Resource not found."
    if path.endswith("/datacite/dois/10.1234/datacite"):
        titles = [{"title": "A dataset", "lang": "en"}, {"title": "its subtitle", "titleType": "Subtitle"}]
        return 200, JSON, json.dumps({"data": {"id": "10.1234/datacite", "attributes": {"titles": titles}}}).encode()
    if "/datacite/dois/" in path:
        return (
            404,
            JSON,
            json.dumps(
                {"errors": [{"status": "404", "title": "The resource you are looking for doesn't exist."}]}
            ).encode(),
        )
    if path.endswith("/api/works"):
        variant = parse_qs(url.query)["filter"][0].removeprefix("alternative-id:")
        items = [{"DOI": doi} for doi in WORKS.get(variant, [])]
        return 200, JSON, json.dumps({"status": "ok", "message": {"items": items}}).encode()
    if path == "/resolve/10.1234/moved":
        return 302, {"Location": "/resolve/landing/moved"}, b""
    if "/landing/" in path:
        return 200, {**HTML, "Set-Cookie": "session=1; Path=/"}, b"<html><title>landing</title></html>"
    return 404, HTML, b"<html>not here</html>"


def closed_port():
    """A port on 127.0.0.1 that nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def crawl():
    """{scenario: its answers, "stats": the crawl's landing/ stats}, and the paths the server was asked, in order."""
    with serving(answer) as (port, hits):
        arguments = [f"http://127.0.0.1:{port}", f"http://127.0.0.1:{closed_port()}"]
        done = subprocess.run(
            [sys.executable, "-c", CRAWL, *arguments], cwd=ROOT, capture_output=True, text=True, timeout=120
        )
        asked = list(hits)
    assert done.returncode == 0, done.stderr[-3000:]
    outcomes = {}
    for line in done.stdout.splitlines():
        outcomes.update(json.loads(line))
    return outcomes, asked


def asked_by(crawl, scenario):
    """The paths the server was asked by one scenario, in order."""
    return [path for path in crawl[1] if path.startswith(f"/{scenario}/")]


# exists / handle: the Handle API


def test_a_registered_doi_exists_at_the_cost_of_one_request(crawl):
    assert crawl[0]["exists"][0] == [True, 1]


def test_a_doi_asked_again_in_another_case_is_answered_from_the_cache_at_no_cost(crawl):
    assert crawl[0]["exists"][1] == [True, 0]


def test_a_doi_asked_twice_is_asked_of_the_handle_api_once_as_first_written(crawl):
    assert asked_by(crawl, "exists") == ["/exists/api/handles/10.1234/Exists"]


def test_an_unregistered_doi_does_not_exist(crawl):
    assert crawl[0]["missing"] == [False, 1]


def test_concurrent_askers_of_one_doi_share_one_request(crawl):
    assert (crawl[0]["together"], asked_by(crawl, "together")) == (
        [[True, 1], [True, 0], [True, 0]],
        ["/together/api/handles/10.1234/exists"],
    )


# alias: shortDOIs


def test_a_short_doi_stands_for_the_normalised_doi_of_its_alias(crawl):
    assert crawl[0]["alias"][0] == ["10.1234/aliased", 1]


def test_an_unregistered_short_doi_stands_for_nothing(crawl):
    assert crawl[0]["alias"][1] == [None, 1]


# pii: Crossref's alternative-id


def test_a_pii_finds_the_sorted_normalised_dois_of_its_first_form_crossref_knows(crawl):
    assert crawl[0]["pii"][0] == [["10.1016/a", "10.1016/b"], 2]


def test_a_pii_stops_at_its_first_form_that_finds_dois(crawl):
    assert [parse_qs(urlsplit(path).query)["filter"] for path in asked_by(crawl, "pii")] == [
        ["alternative-id:S0000000000000001"],
        ["alternative-id:S0000000000000002"],
    ]


def test_a_pii_asked_again_is_answered_from_the_cache_at_no_cost(crawl):
    assert crawl[0]["pii"][1] == [["10.1016/a", "10.1016/b"], 0]


def test_a_pii_crossref_does_not_know_finds_nothing(crawl):
    assert crawl[0]["unknown_pii"] == [[], 1]


def test_a_pii_query_names_the_mailto_when_one_is_given(crawl):
    assert asked_by(crawl, "mailto") == [
        "/mailto/api/works?filter=alternative-id:S0000000000000002&select=DOI&rows=5&mailto=me%40example.org"
    ]


# resolve and fetch: chains followed with Scrapy's middlewares


def test_resolving_a_doi_follows_its_redirects_to_the_landing_page(crawl):
    first, requests = crawl[0]["resolve"][0]
    assert ({k: first[k] for k in ("final_url", "status", "hops", "error")}, requests) == (
        {
            "final_url": first["url"].replace("/10.1234/moved", "/landing/moved"),
            "status": 200,
            "hops": 2,
            "error": None,
        },
        2,
    )


def test_a_resolution_keeps_where_it_led_but_never_the_pages_body(crawl):
    assert [answer[0]["body"] for answer in crawl[0]["resolve"]] == [None, None]


def test_a_doi_resolved_again_is_answered_from_the_cache_at_no_cost(crawl):
    (first, _), (again, requests) = crawl[0]["resolve"]
    assert (again, requests, asked_by(crawl, "resolve")) == (
        first,
        0,
        ["/resolve/10.1234/moved", "/resolve/landing/moved"],
    )


def test_a_fetch_is_never_cached(crawl):
    first, again = crawl[0]["fetch"]
    assert (first == again, first["body"], asked_by(crawl, "fetch")) == (
        True,
        "<html><title>landing</title></html>",
        ["/fetch/landing/a", "/fetch/landing/a"],
    )


def test_every_fetchs_cookie_jar_is_dropped_when_it_ends(crawl):
    assert crawl[0]["stats"]["landing/cookie_jars_left"] == 0


# failures


def test_a_handle_api_error_after_scrapys_retries_is_a_failed_lookup_not_an_unregistered_doi(crawl):
    assert crawl[0]["failing"][0] == "failed"


def test_a_failed_lookup_is_not_cached_so_the_next_asker_asks_again(crawl):
    assert (crawl[0]["failing"][1], asked_by(crawl, "failing")) == (
        "failed",
        ["/failing/api/handles/10.1234/exists"] * (2 * (1 + RETRY_TIMES)),
    )


def test_an_answer_that_is_not_json_is_a_failed_lookup(crawl):
    assert crawl[0]["garbled"] == ["failed", "failed"]


def test_a_page_robots_txt_disallows_is_a_robots_failure_never_requested(crawl):
    page = crawl[0]["robots"]
    assert (page["error"], page["final_url"], page["hops"], asked_by(crawl, "robots")) == ("robots", None, 0, [])


def test_an_unreachable_handle_api_is_a_failed_lookup(crawl):
    assert crawl[0]["closed"][0] == "failed"


def test_an_unreachable_page_is_a_connection_failure(crawl):
    page = crawl[0]["closed"][1]
    assert (page["error"], page["status"], page["body"]) == ("connection", None, None)


# titles: Crossref's record, else DataCite's


def test_a_crossref_doi_has_its_titles_and_original_titles_and_subtitles_in_one_request(crawl):
    assert crawl[0]["titles"][0] == [[["Main title", "Titre original"], ["A subtitle"]], 1]


def test_a_datacite_doi_is_asked_of_datacite_after_crossref_answers_404_its_subtitles_apart(crawl):
    assert crawl[0]["titles"][1] == [[["A dataset"], ["its subtitle"]], 2]


def test_a_doi_neither_registry_knows_has_no_registered_title(crawl):
    assert crawl[0]["titles"][2] == [None, 2]


def test_titles_asked_again_are_answered_from_the_cache_at_no_cost(crawl):
    assert (crawl[0]["titles"][3], len(asked_by(crawl, "titles"))) == (
        [[["Main title", "Titre original"], ["A subtitle"]], 0],
        5,
    )


def test_a_crossref_error_is_a_failed_title_lookup_not_a_missing_title(crawl):
    assert crawl[0]["failing_titles"] == "failed"
