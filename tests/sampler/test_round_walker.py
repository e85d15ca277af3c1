"""The continuous planner's paced walk of its open rounds (landing.sampler.round_walker), with the spider's run in a
real SQLite store: registry visits past a full frontier, a walk left at a slice's end and taken up where it stopped."""

import asyncio
from datetime import UTC, datetime

from scrapy import Request

from landing.core.sampling import runs
from landing.sampler.round_walker import RoundWalker
from tests.sampler.test_delta_watch import spider  # noqa: F401 (the fixture)

PAST = datetime(2000, 1, 1, tzinfo=UTC)  # a slice already over: a walk that meets a full frontier stops at once


def _sample(order: int, reason: str, dois: list[str]) -> dict:
    return {
        "sample/run": runs.CONTINUOUS,
        "sample/order": order,
        "sample/ra": "crossref",
        "sample/owner": "7",
        "sample/total": 100,
        "sample/size": len(dois),
        "sample/prefixes": ["10.1234"],
        "sample/per-prefix": 0,
        "sample/dois": dois,
        "sample/timestamp": "2030-01-02T04:00:00Z",
        "sample/prefix": "10.1234",
        "sample/reason": reason,
    }


def _plan(run, *samples: dict) -> None:
    for sample in samples:
        run.docs.store.put("sample", runs.sample_id(run.id, sample["sample/order"]), sample)
    run.docs.store.flush()


def _stored_visit(run, rank: int) -> None:
    """The visit of rank `rank` of the registry sample (order 1, DOIs 10.1234/r<rank>), stored."""
    run.docs.store.put(
        "visit", runs.visit_id(run.id, 1, rank), runs.visit_doc(run.id, 1, rank, f"10.1234/r{rank}", "s")
    )
    run.docs.store.flush()


async def _rushed_registry(spider) -> tuple:  # noqa: F811
    """_plan_of_two_rounds, then a registry sample of two DOIs (order 1) rushed: (run, walker)."""
    run, walker = _plan_of_two_rounds(spider)
    _plan(run, _sample(1, "registry", ["10.1234/r0", "10.1234/r1"]))
    await _visited(walker.rush({"run/id": run.id, "run/owners": 2}, 0))
    return run, walker


async def _visited(steps) -> list[str]:
    """The DOIs whose visits an async generator of the walker handed over, in order."""
    return [item.meta["pid"]["pid/doi"] async for item in steps if isinstance(item, Request)]


def _plan_of_two_rounds(spider):  # noqa: F811
    """A run whose first round (a refresh of 3 DOIs) is planned, with a frontier of 2 DOIs."""
    run = spider.planner.run
    run.frontier.bound = 2
    _plan(run, _sample(0, "refresh", ["10.1234/a0", "10.1234/a1", "10.1234/a2"]))
    return run, RoundWalker(run, -1)


def test_a_walk_stops_where_the_frontier_is_full_at_the_slices_end_and_resumes_there(spider):  # noqa: F811
    asyncio.run(_stops_and_resumes(spider))


async def _stops_and_resumes(spider):  # noqa: F811
    run, walker = _plan_of_two_rounds(spider)
    assert await _visited(walker.steps({"run/id": run.id, "run/owners": 1}, PAST)) == ["10.1234/a0", "10.1234/a1"]
    assert not walker.done
    run.frontier.leave(2)
    assert await _visited(walker.steps({"run/id": run.id, "run/owners": 1}, PAST)) == ["10.1234/a2"]
    assert walker.done


def test_the_registries_moves_are_visited_past_a_full_frontier_and_never_walked_again(spider):  # noqa: F811
    asyncio.run(_rushed(spider))


async def _rushed(spider):  # noqa: F811
    run, walker = _plan_of_two_rounds(spider)
    first = {"run/id": run.id, "run/owners": 1}
    assert await _visited(walker.steps(first, PAST)) == ["10.1234/a0", "10.1234/a1"]
    _plan(
        run, _sample(1, "registry", ["10.1234/r0", "10.1234/r1"]), _sample(2, "refresh", ["10.1234/c0", "10.1234/c1"])
    )
    second = {"run/id": run.id, "run/owners": 3}
    assert await _visited(walker.rush(second, 0)) == ["10.1234/r0", "10.1234/r1"]
    assert (run.frontier.size, walker.pending) == (4, [(1, 0), (1, 1)])
    run.frontier.leave(4)
    assert await _visited(walker.steps(second, PAST)) == ["10.1234/a2", "10.1234/c0"]
    run.frontier.leave(2)
    assert await _visited(walker.steps(second, PAST)) == ["10.1234/c1"]
    assert walker.done


def test_an_export_waits_only_for_the_registry_visits_not_yet_stored(spider):  # noqa: F811
    asyncio.run(_settled(spider))


async def _settled(spider):  # noqa: F811
    run, walker = await _rushed_registry(spider)
    _stored_visit(run, 0)
    assert (await walker.settled(PAST), walker.pending) == (False, [(1, 1)])
    _stored_visit(run, 1)
    assert (await walker.settled(PAST), walker.pending) == (True, [])


def test_a_rushed_sample_visits_only_its_dois_without_a_visit_and_counts_the_others(spider):  # noqa: F811
    asyncio.run(_rushed_resumed(spider))


async def _rushed_resumed(spider):  # noqa: F811
    run, walker = _plan_of_two_rounds(spider)
    _plan(run, _sample(1, "registry", ["10.1234/r0", "10.1234/r1"]))
    _stored_visit(run, 0)
    assert await _visited(walker.rush({"run/id": run.id, "run/owners": 2}, 0)) == ["10.1234/r1"]
    assert (walker.pending, spider.crawler.stats.get_value("landing/run/visited_before")) == ([(1, 1)], 1)


def test_an_export_waits_for_no_registry_visit_whose_round_closed_and_was_dropped(spider):  # noqa: F811
    asyncio.run(_dropped(spider))


async def _dropped(spider):  # noqa: F811
    run, walker = await _rushed_registry(spider)
    run.docs.store.delete("sample", [runs.sample_id(run.id, 1)])  # its round closed, and retention dropped it
    run.docs.store.flush()
    assert (await walker.settled(PAST), walker.pending) == (True, [])
