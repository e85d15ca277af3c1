"""The probe crawl that asks landing.match.lookups its questions, and the server that answers them
(tests/match/test_lookups.py)."""

import json
import socket
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

ROOT = Path(__file__).resolve().parents[2]

# Each scenario asks its questions of a fresh Lookups whose resolver is http://127.0.0.1:<port>/<scenario> (its Handle
# API under /<scenario>/api/handles/) and whose Crossref API is /<scenario>/api: the paths the server was asked tell
# which scenario asked them. Scenarios run one after the other, in one real crawl, in a subprocess (Scrapy installs
# its reactor once per process); a data: request hands the engine to them as the matcher's own callback gets it.
CRAWL = """
import asyncio, json, sys
import scrapy
from scrapy.crawler import AsyncCrawlerProcess
import landing.settings as project
from landing.core.matching.results import LookupFailed
from landing.match.lookups import Lookups
from landing.match.answer_cache import SharedAnswers

BASE, CLOSED, REDIS, NAMESPACE, REDIS_DOWN = sys.argv[1:6]


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


async def shared(make):
    # Two lookups on one Redis, as two instances have: the second asks the network nothing.
    def ask(lookups):
        return [lookups.exists("10.1234/exists"), lookups.resolve("10.1234/moved"), lookups.titles("10.1234/Crossref"),
                lookups.pii(["S0000000000000002"])]

    answers = []
    for _ in range(2):
        lookups = make("shared", answers=SharedAnswers(REDIS, 3600, NAMESPACE))
        answers.append([[fetched(v) if hasattr(v, "final_url") else v, n] for v, n in [await a for a in ask(lookups)]])
        await lookups.answers.close()
    return answers


async def failing_shared(make):
    lookups = make("failing_shared", answers=SharedAnswers(REDIS, 3600, NAMESPACE + ":failing"))
    answers = [await answered(lookups.exists("10.1234/exists")), await answered(lookups.exists("10.1234/exists"))]
    await lookups.answers.close()
    return answers


async def redis_down(make):
    lookups = make("redis_down", answers=SharedAnswers(REDIS_DOWN, 3600, NAMESPACE))
    answers = [await answered(lookups.exists("10.1234/exists")), await answered(lookups.exists("10.1234/exists"))]
    await lookups.answers.close()
    return {"answers": answers, "stats": lookups.answers.stats}


async def bounded(make):
    lookups = make("bounded", entries=2)
    answers = [await lookups.exists(f"10.1234/n{n}") for n in (1, 2, 3, 1, 3)]
    return {"answers": answers, "held": len(lookups.answers.questions.layers[0])}


SCENARIOS = [exists, missing, together, alias, pii, unknown_pii, mailto, resolve, fetch, failing, garbled, robots,
             closed, titles, failing_titles, shared, failing_shared, redis_down, bounded]


class Probe(scrapy.Spider):
    name = "probe"

    async def start(self):
        yield scrapy.Request("data:,", callback=self.run, dont_filter=True)

    async def run(self, response):
        engine = self.crawler.engine

        def make(name, mailto=None, **kwargs):
            return Lookups(engine, BASE + "/" + name, BASE + "/" + name + "/api", BASE + "/" + name + "/datacite",
                           mailto, **kwargs)
        make.engine = engine
        for scenario in SCENARIOS:
            print(json.dumps({scenario.__name__: await scenario(make)}), flush=True)
        return
        yield


settings = {name: getattr(project, name) for name in dir(project) if name.isupper()}
# The guard would refuse 127.0.0.1, and AutoThrottle would space the requests to it by a second.
settings.update(ITEM_PIPELINES={}, LOG_LEVEL="WARNING", TELNETCONSOLE_ENABLED=False, LANDING_ADDRESS_GUARD=False,
                AUTOTHROTTLE_ENABLED=False, LANDING_PROGRESS_INTERVAL=0,
                # As the matcher's spiders, an input fails after RETRY_TIMES; their pauses (BACKOFF_MAX 2) halved.
                LANDING_OUTAGE_MAX=0, LANDING_BACKOFF_MAX=1)
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
    """(status, headers, body) the server answers a URL with, by the scenario its path names."""
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
