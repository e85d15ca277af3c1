"""The registry watcher (landing.sampler.delta_watch) through the spider's callbacks on hand-made answers, shaped as
the registries document them and as the sandbox's registries answer them, with the continuous run's records in a real
SQLite store."""

import asyncio
import json
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlsplit

import pytest
from scrapy.http import Request, TextResponse
from scrapy.utils.test import get_crawler

from landing import settings as project_settings
from landing.core.continuous.freshness import Prefix, prefix_doc
from landing.core.sampling import runs
from landing.sampler.continuous_ledger import ContinuousLedger
from landing.sampler.doi_sampler import DoiSamplerSpider
from landing.sampler.ledger import Ledger
from landing.sampler.pipelines import Docs
from landing.sampler.run import ALONE, OpenRun
from landing_dev.sandbox.evolving import Evolution
from landing_dev.sandbox.http import Request as SandboxRequest
from landing_dev.sandbox.web import State, respond
from landing_dev.sandbox.world import World

PROJECT = {name: getattr(project_settings, name) for name in dir(project_settings) if name.isupper()}
NOW = datetime(2030, 1, 2, 4, tzinfo=UTC)
LAST = {"crossref": "2030-01-02T03:00:00Z", "datacite": "2030-01-02T03:00:00Z"}


@pytest.fixture
def spider(tmp_path):
    settings = {
        **PROJECT,
        "LANDING_CONTINUOUS": True,
        "LANDING_DOCS": f"sqlite:///{tmp_path / 'landing.db'}",
        "LANDING_MAILTO": "me@example.org",
    }
    crawler = get_crawler(settings_dict=settings)
    crawler.spider = DoiSamplerSpider.from_crawler(crawler)
    crawler.stats.open_spider()
    planner, docs = crawler.spider.planner, Docs.of(crawler)
    records = ContinuousLedger(Ledger(docs.store, runs.CONTINUOUS, ["crossref", "datacite"], 2, 4))
    planner.run = OpenRun(
        id=runs.CONTINUOUS,
        resumed=False,
        docs=docs,
        ledger=records.ledger,
        records=records,
        frontier=planner.frontier,
        samples=planner.samples,
        visitor=crawler.spider.visitor,
        lead=ALONE,
        shared=False,
        crawler=crawler,
        logger=crawler.spider.logger,
    )
    sampled = datetime(2030, 1, 1, tzinfo=UTC)
    for ra, name in (("crossref", "10.1234"), ("datacite", "10.5061")):
        doc = prefix_doc(Prefix(ra, "7", name, 500, sampled), "2030-01-01T00:00:00Z")
        docs.store.put("prefix", f"{ra} {name}", {**doc, "prefix/resources": {"old.example": 20}})
    docs.store.flush()
    yield crawler.spider
    docs.store.close()
    docs.worker.shutdown()


def _answer(request: Request, payload: dict) -> TextResponse:
    return TextResponse(request.url, body=json.dumps(payload).encode(), encoding="utf-8", request=request)


def _parsed(spider, response) -> list:
    async def collect():
        return [request async for request in spider.parse_delta(response)]

    return asyncio.run(collect())


def _crossref_page(cursor, *items):
    return {
        "status": "ok",
        "message-type": "work-list",
        "message": {"total-results": 2, "items-per-page": 1000, "next-cursor": cursor, "items": list(items)},
    }


def _work(doi, url):
    return {"DOI": doi, "member": "7", "prefix": doi.split("/")[0], "resource": {"primary": {"URL": url}}}


def test_a_look_pages_each_registry_by_cursor_and_keeps_the_dois_that_moved_for_a_visit(spider):
    watch, records = spider.planner.deltas, spider.planner.run.records
    first = list(watch.requests(spider.planner.run, {"continuous/delta": LAST}, NOW))
    assert [parse_qs(urlsplit(r.url).query)["filter" if "filter" in r.url else "query"] for r in first] == [
        ["from-update-date:2030-01-02T02:00:00,until-update-date:2030-01-02T04:00:00"],
        ["updated:[2030-01-02T02\\:00\\:00Z TO 2030-01-02T04\\:00\\:00Z]"],
    ]
    crossref, datacite = first
    page = _crossref_page(
        "c1", _work("10.1234/a", "https://new.example/a"), _work("10.1234/b", "https://old.example/b")
    )
    (following,) = _parsed(spider, _answer(crossref, page))
    assert parse_qs(urlsplit(following.url).query)["cursor"] == ["c1"]
    assert _parsed(spider, _answer(following, _crossref_page("c2"))) == []  # the empty page ends Crossref's paging
    assert not watch.over.is_set()
    dois = {
        "data": [{"id": "10.5061/x", "type": "dois", "attributes": {"url": "https://old.example/x"}}],
        "meta": {"total": 1},
        "links": {},
    }
    assert _parsed(spider, _answer(datacite, dois)) == []
    assert watch.over.is_set()
    state = asyncio.run(watch.settle({"continuous/delta": LAST}))
    assert state["continuous/delta"] == {"crossref": "2030-01-02T04:00:00Z", "datacite": "2030-01-02T04:00:00Z"}
    assert [state[f"continuous/delta-{k}"] for k in ("dois", "changes", "signalled")] == [3, 1, 1]
    moved, still = (records.docs.get("prefix", key) for key in ("crossref 10.1234", "datacite 10.5061"))
    assert (moved["prefix/registry-dois"], moved["prefix/signals"]) == (["10.1234/a"], ["registry-changed"])
    assert (still.get("prefix/registry-dois"), still["prefix/resources"]) == (None, {"old.example": 21})
    stats = spider.crawler.stats
    assert [stats.get_value(f"landing/delta/{k}") for k in ("requests", "dois", "changes", "signalled")] == [3, 3, 1, 1]


def test_a_registry_whose_request_failed_keeps_its_window_for_the_next_look(spider):
    watch = spider.planner.deltas
    crossref, datacite = watch.requests(spider.planner.run, {"continuous/delta": LAST}, NOW)
    spider.planner.api.refused(crossref, "400 Bad Request")
    _parsed(spider, _answer(datacite, {"data": [], "meta": {"total": 0}, "links": {}}))
    assert watch.over.is_set()
    state = asyncio.run(watch.settle({"continuous/delta": LAST}))
    assert state["continuous/delta"] == {**LAST, "datacite": "2030-01-02T04:00:00Z"}


def test_a_first_look_asks_nothing_and_starts_each_registry_now(spider):
    watch = spider.planner.deltas
    assert list(watch.requests(spider.planner.run, {}, NOW)) == []
    assert watch.over.is_set()
    state = asyncio.run(watch.settle({}))
    assert state["continuous/delta"] == {"crossref": "2030-01-02T04:00:00Z", "datacite": "2030-01-02T04:00:00Z"}


def test_a_look_is_dated_when_it_began_so_that_hourly_looks_come_every_hourly_slice(spider):
    watch = spider.planner.deltas
    list(watch.requests(spider.planner.run, {}, NOW))
    assert asyncio.run(watch.settle({}))["continuous/delta-looked"] == "2030-01-02T04:00:00Z"


@pytest.fixture
def moving_world(tmp_path):
    """A world whose Crossref site a.example moves with the registry at day 2 and b.example silently at day 3."""
    world = {"format": "landing-sandbox/1", "members": [{"id": "7", "primary-name": "Seven", "prefixes": ["10.1234"]}]}
    (tmp_path / "world.json").write_text(json.dumps(world))
    dois = [
        {"doi": f"10.1234/{site}{n}", "ra": "crossref", "member": "7", "url": f"https://{site}.example/{n}"}
        for site, count in (("a", 3), ("b", 2))
        for n in range(count)
    ]
    (tmp_path / "dois.jsonl").write_text("".join(json.dumps(d) + "\n" for d in dois))
    (tmp_path / "routes.jsonl").write_text("")
    events = [
        {"at": "2030-01-01T00:00:00Z", "kind": "background-updates", "rate": 0, "seed": 1, "days": 10},
        {"at": "2030-01-03T00:00:00Z", "kind": "move", "host": "a.example", "to": "a2.example", "registry": True},
        {"at": "2030-01-04T00:00:00Z", "kind": "move", "host": "b.example", "to": "b2.example", "registry": False},
    ]
    (tmp_path / "timeline.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    found = World(tmp_path)
    yield found
    found.close()


def _look(spider, world, last: str, now: datetime) -> dict:
    """One look of the watcher at `now`, each of its requests answered by the sandbox's registries at that clock."""
    world.now = now.timestamp
    watch, state = spider.planner.deltas, {"continuous/delta": {"crossref": last, "datacite": last}}
    pending = list(watch.requests(spider.planner.run, state, now))
    while pending:
        request = pending.pop()
        reply = respond(world, SandboxRequest("GET", request.url, {}), State(0, evolution=Evolution(world)))
        response = TextResponse(request.url, status=reply.status, body=reply.body, request=request)
        pending += _parsed(spider, response)
    return asyncio.run(watch.settle(state))


def test_the_sandboxs_registry_shows_a_registry_visible_move_to_the_watcher_and_never_a_silent_one(
    spider, moving_world
):
    docs = spider.planner.run.records.docs
    sampled = prefix_doc(Prefix("crossref", "7", "10.1234", 5, NOW), "2030-01-01T00:00:00Z")
    docs.put("prefix", "crossref 10.1234", {**sampled, "prefix/resources": {"a.example": 3, "b.example": 2}})
    docs.flush()
    _look(spider, moving_world, "2030-01-02T23:00:00Z", datetime(2030, 1, 3, 1, tzinfo=UTC))
    moved = docs.get("prefix", "crossref 10.1234")
    assert (sorted(moved["prefix/registry-dois"]), moved["prefix/signals"]) == (
        ["10.1234/a0", "10.1234/a1", "10.1234/a2"],
        ["registry-changed"],
    )
    docs.put("prefix", "crossref 10.1234", {**moved, "prefix/registry-dois": [], "prefix/signals": []})
    docs.flush()
    state = _look(spider, moving_world, "2030-01-03T23:00:00Z", datetime(2030, 1, 4, 1, tzinfo=UTC))
    after = docs.get("prefix", "crossref 10.1234")
    assert (state["continuous/delta-dois"], after["prefix/registry-dois"], after["prefix/signals"]) == (0, [], [])
