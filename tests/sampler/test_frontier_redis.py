"""The shared Redis frontier against a real redis-server: leases, acks, reaping, heartbeats, and a worker killed -9.

Lease expiry is driven by the queue's `skew` (seconds added to Redis TIME) instead of sleeping, so every
test is deterministic.
"""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import scrapy
from scrapy.utils.test import get_crawler

from landing.sampler.frontier_redis import Scheduler, ack
from tests.crawl.project import PROJECT

REPO = Path(__file__).resolve().parents[2]
TTL = 60


@pytest.fixture
def redis_url(redis_server):
    """The server's URL, emptied before each test."""
    import redis

    with redis.Redis.from_url(redis_server) as client:
        client.flushall()
    return redis_server


class Sampler(scrapy.Spider):
    name = "sampler"

    def parse_page(self, response):
        pass


def worker(url, run="run", **settings):
    """A Scheduler opened as one crawler process would open it, serving `run`'s frontier."""
    crawler = get_crawler(
        Sampler,
        {
            **PROJECT,
            "SCHEDULER": "landing.sampler.frontier_redis.Scheduler",
            "LANDING_FRONTIER_REDIS": url,
            "LANDING_LEASE_SECONDS": TTL,
            **settings,
        },
    )
    scheduler = Scheduler.from_crawler(crawler)
    scheduler.open(Sampler.from_crawler(crawler))
    scheduler.join(run)
    return scheduler


def shared(url, priority=0, **meta):
    return scrapy.Request(
        url, callback=Sampler().parse_page, priority=priority, dont_filter=True, meta={"landing_shared": True, **meta}
    )


def drain(scheduler):
    """Every request the scheduler serves until it has none."""
    served = []
    while (request := scheduler.next_request()) is not None:
        served.append(request)
    return served


def test_equal_payloads_are_all_kept_and_pop_best_priority_first(redis_url):
    scheduler = worker(redis_url)
    for request in (
        shared("https://doi.org/10.1/a"),
        shared("https://doi.org/10.1/a"),
        shared("https://doi.org/10.1/b", priority=5),
        shared("https://doi.org/10.1/c", priority=-5),
    ):
        scheduler.enqueue_request(request)
    assert scheduler.queue.lengths() == (4, 0)
    assert [(r.url, r.priority) for r in drain(scheduler)] == [
        ("https://doi.org/10.1/b", 5),
        ("https://doi.org/10.1/a", 0),
        ("https://doi.org/10.1/a", 0),
        ("https://doi.org/10.1/c", -5),
    ]
    assert scheduler.queue.lengths() == (0, 4)


def test_share_queues_a_batch_once_per_key_and_counts_what_it_queued(redis_url):
    scheduler = worker(redis_url)
    assert scheduler.enqueue_request(shared("https://doi.org/10.1/a", landing_shared="run/1/0")) is True
    batch = [
        shared("https://doi.org/10.1/a", landing_shared="run/1/0"),  # queued already: dropped
        shared("https://doi.org/10.1/b", priority=3, landing_shared="run/1/1"),
        shared("https://doi.org/10.1/c", landing_shared="run/1/2"),
        shared("https://doi.org/10.1/c", landing_shared="run/1/2"),
    ]  # twice in the batch: once
    assert scheduler.share(batch) == 2
    stats = scheduler.crawler.stats
    queued, dropped = (stats.get_value(f"scheduler/enqueued/{k}") for k in ("redis", "redis_duplicate"))
    assert (queued, dropped) == (3, 2)
    assert [(r.url, r.meta["landing_lease"][0]) for r in drain(scheduler)] == [
        ("https://doi.org/10.1/b", "run/1/1"),
        ("https://doi.org/10.1/a", "run/1/0"),
        ("https://doi.org/10.1/c", "run/1/2"),
    ]


def test_popped_request_is_leased_and_comes_back_to_another_worker_after_expiry(redis_url):
    first, second = worker(redis_url), worker(redis_url)
    first.enqueue_request(shared("https://doi.org/10.1/a"))
    taken = first.next_request()
    assert taken.meta["landing_lease"][1] == first.queue.token
    assert second.next_request() is None
    assert second.has_pending_requests()
    assert second.queue.reap() == 0  # not expired yet
    second.queue.skew = TTL + 1
    assert second.queue.reap() == 1
    again = second.next_request()
    assert again.url == taken.url
    assert again.meta["landing_lease"] == (taken.meta["landing_lease"][0], second.queue.token)


def test_a_short_lease_is_reaped_half_a_lease_after_the_last_reap(redis_url):
    holder, reaper = worker(redis_url, LANDING_LEASE_SECONDS=4), worker(redis_url, LANDING_LEASE_SECONDS=4)
    start = time.monotonic()
    reaper.clock = lambda: start
    reaper.tick()  # a reap, with nothing to reap
    holder.enqueue_request(shared("https://doi.org/10.1/a"))
    holder.next_request()
    reaper.queue.skew = 4 + 1  # the holder died: its lease has expired
    reaper.clock = lambda: start + 2  # half a lease later, before Scheduler.reap_every
    reaper.tick()
    assert reaper.queue.lengths() == (1, 0)


def test_of_two_workers_the_first_leases_half_of_a_small_run_and_the_second_joining_later_the_rest(redis_url):
    first = worker(redis_url, LANDING_WORKERS=2)
    first.share([shared(f"https://doi.org/10.1/{n}", landing_shared=f"run/1/{n}") for n in range(10)])
    taken = drain(first)
    second = worker(redis_url, LANDING_WORKERS=2)
    joined = drain(second)
    assert (len(taken), len(joined)) == (5, 5)
    assert {r.url for r in taken} | {r.url for r in joined} == {f"https://doi.org/10.1/{n}" for n in range(10)}


def test_a_worker_holding_its_share_leases_again_as_its_visits_are_acked_until_the_frontier_is_empty(redis_url):
    alone = worker(redis_url, LANDING_WORKERS=2)  # the other never came, or died
    alone.share([shared(f"https://doi.org/10.1/{n}", landing_shared=f"run/1/{n}") for n in range(10)])
    served = []
    while batch := drain(alone):
        served += batch
        assert alone.ack_many([r.meta["landing_lease"] for r in batch]) == len(batch)
    assert sorted(r.url for r in served) == sorted(f"https://doi.org/10.1/{n}" for n in range(10))
    assert alone.queue.lengths() == (0, 0)


def test_ack_removes_a_leased_request_for_good(redis_url):
    scheduler = worker(redis_url)
    scheduler.enqueue_request(shared("https://doi.org/10.1/a"))
    request = scheduler.next_request()
    assert ack(scheduler.crawler, request.meta) is True
    assert scheduler.queue.lengths() == (0, 0)
    assert scheduler.server.hlen(scheduler.queue.keys["data"]) == 0
    scheduler.queue.skew = TTL + 1
    assert scheduler.queue.reap() == 0
    assert scheduler.next_request() is None
    assert not scheduler.has_pending_requests()


def test_ack_with_a_stale_token_does_nothing(redis_url):
    first, second = worker(redis_url), worker(redis_url)
    first.enqueue_request(shared("https://doi.org/10.1/a"))
    late = first.next_request()
    second.queue.skew = TTL + 1
    assert second.queue.reap() == 1
    current = second.next_request()
    assert first.ack(late.meta) is False
    assert second.queue.lengths() == (0, 1)
    assert second.server.hlen(second.queue.keys["data"]) == 1
    assert second.ack(current.meta) is True
    assert second.queue.lengths() == (0, 0)


def test_heartbeat_keeps_a_held_lease_from_being_reaped(redis_url):
    holder, reaper = worker(redis_url), worker(redis_url)
    for name in "ab":
        holder.enqueue_request(shared(f"https://doi.org/10.1/{name}"))
    holder.next_request(), holder.next_request()  # both expire at T + TTL
    holder.queue.skew = TTL / 2  # T + TTL/2: the holder heartbeats, pushing both to T + 1.5 TTL
    holder.clock = lambda: time.monotonic() + TTL  # its heartbeat is due
    assert holder.next_request() is None
    reaper.queue.skew = TTL + 1  # after the first expiry, before the extended one
    assert reaper.queue.reap() == 0
    assert reaper.queue.lengths() == (0, 2)
    reaper.queue.skew = 1.5 * TTL + 1
    assert reaper.queue.reap() == 2


def test_a_held_lease_whose_keys_redis_lost_stays_held_until_acked(redis_url):
    holder = worker(redis_url)
    holder.enqueue_request(shared("https://doi.org/10.1/a"))
    request = holder.next_request()
    holder.server.delete(*holder.queue.keys.values())  # an eviction, a FLUSHALL, an older RDB restored
    holder.clock = lambda: time.monotonic() + TTL  # its heartbeat is due
    assert holder.next_request() is None
    assert holder.held == {request.meta["landing_lease"][0]}
    holder.ack(request.meta)
    assert holder.held == set()


def test_holds_names_the_keys_queued_or_leased_anywhere_and_those_this_worker_holds_after_a_flush(redis_url):
    leader, follower = worker(redis_url), worker(redis_url)
    for key in ("run/1/0", "run/1/1", "run/1/2"):
        leader.enqueue_request(shared(f"https://doi.org/10.1/{key[-1]}", landing_shared=key))
    follower.next_request()  # run/1/0, leased by the follower
    ack(follower.crawler, follower.next_request().meta)  # run/1/1, visited
    keys = ["run/1/0", "run/1/1", "run/1/2", "run/1/3"]
    assert leader.holds(keys) == {"run/1/0", "run/1/2"}
    mine = leader.next_request().meta["landing_lease"][0]  # run/1/2, leased by the leader
    leader.server.flushall()
    assert leader.holds(keys) == {mine}


def test_non_shared_requests_never_reach_redis_and_are_served_first(redis_url):
    scheduler = worker(redis_url)
    scheduler.enqueue_request(shared("https://doi.org/10.1/a", priority=100))
    hop = shared("https://publisher.example/a", landing_lease=("000000000000001", "someone"))
    api = scrapy.Request("https://api.crossref.org/members", priority=-100)
    robots = scrapy.Request("https://publisher.example/robots.txt", priority=-10, dont_filter=True)
    for request in (hop, api, robots):
        assert scheduler.enqueue_request(request) is True
    assert scheduler.queue.lengths() == (1, 0)
    assert [r.url for r in drain(scheduler)] == [
        "https://publisher.example/a",
        "https://publisher.example/robots.txt",
        "https://api.crossref.org/members",
        "https://doi.org/10.1/a",
    ]


def test_has_pending_requests_stays_true_while_another_worker_holds_a_lease(redis_url):
    holder, idle = worker(redis_url), worker(redis_url)
    holder.enqueue_request(shared("https://doi.org/10.1/a"))
    request = holder.next_request()
    assert idle.next_request() is None
    assert idle.has_pending_requests() is True
    holder.ack(request.meta)
    assert idle.has_pending_requests() is False


def test_close_puts_a_workers_held_leases_back_at_once(redis_url):
    leaving, staying = worker(redis_url), worker(redis_url)
    for name in "abc":
        leaving.enqueue_request(shared(f"https://doi.org/10.1/{name}"))
    done, *held = drain(leaving)
    leaving.ack(done.meta)
    leaving.close("shutdown")
    assert staying.queue.lengths() == (2, 0)
    assert sorted(r.url for r in drain(staying)) == sorted(r.url for r in held)


KILLED_WORKER = textwrap.dedent("""
    import sys, time
    import scrapy
    from scrapy.utils.test import get_crawler
    from landing.sampler.frontier_redis import Scheduler
    from tests.crawl.project import PROJECT

    class Sampler(scrapy.Spider):
        name = "sampler"

        def parse_page(self, response):
            pass

    crawler = get_crawler(Sampler, {**PROJECT, "LANDING_FRONTIER_REDIS": sys.argv[1], "LANDING_LEASE_SECONDS": 60})
    scheduler = Scheduler.from_crawler(crawler)
    scheduler.open(Sampler.from_crawler(crawler))
    scheduler.join("run")
    for _ in range(5):
        print(scheduler.next_request().url, flush=True)
    time.sleep(600)
""")


def test_a_worker_killed_with_sigkill_loses_nothing(redis_url):
    scheduler = worker(redis_url)
    urls = [f"https://doi.org/10.1/{n}" for n in range(8)]
    for url in urls:
        scheduler.enqueue_request(shared(url))
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen(
        [sys.executable, "-c", KILLED_WORKER, redis_url], stdout=subprocess.PIPE, text=True, cwd=REPO, env=env
    )
    try:
        taken = [process.stdout.readline().strip() for _ in range(5)]
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(10)
    assert taken == urls[:5]
    assert scheduler.queue.lengths() == (3, 5)
    scheduler.queue.skew = TTL + 1
    assert scheduler.queue.reap() == 5
    assert sorted(r.url for r in drain(scheduler)) == sorted(urls)


def test_inside_an_event_loop_heartbeats_run_on_their_own_timer(redis_url):
    import asyncio

    async def crawl():
        scheduler = worker(redis_url)
        scheduler.enqueue_request(shared("https://doi.org/10.1/a"))
        lease_id = scheduler.next_request().meta["landing_lease"][0]
        leased = scheduler.queue.keys["leased"]
        expiry = scheduler.server.zscore(leased, lease_id)
        scheduler.queue.skew = TTL / 2
        scheduler.clock = lambda: time.monotonic() + TTL  # a heartbeat is due; next_request is not called again
        deadline = time.monotonic() + 5
        while scheduler.server.zscore(leased, lease_id) < expiry + TTL / 4 and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        extended = scheduler.server.zscore(leased, lease_id)
        scheduler.close("finished")
        return expiry, extended, scheduler._timer.running

    expiry, extended, running = asyncio.run(crawl())
    assert extended >= expiry + TTL / 4
    assert running is False


class OtherCode(scrapy.Spider):
    name = "sampler"  # same queue, but without the callback the shared requests name


def test_a_request_this_code_cannot_rebuild_is_moved_to_dead_not_lost(redis_url):
    writer = worker(redis_url)
    writer.enqueue_request(shared("https://doi.org/10.1/a"))
    crawler = get_crawler(OtherCode, {**PROJECT, "LANDING_FRONTIER_REDIS": redis_url, "LANDING_LEASE_SECONDS": TTL})
    reader = Scheduler.from_crawler(crawler)
    reader.open(OtherCode.from_crawler(crawler))
    reader.join("run")
    assert reader.next_request() is None
    assert reader.queue.lengths() == (0, 0)
    assert list(reader.server.hkeys(reader.queue.keys["dead"])) == [b"000000000000001"]
