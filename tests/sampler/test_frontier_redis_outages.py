"""The shared Redis frontier against a real redis-server, where Redis is not what the crawl would wish: a restart,
keys lost, a setting that loses them, someone else's payload; and where one Redis holds the frontiers of several
stores or runs."""

import json
import os
import pickle
import socket
import threading

import pytest

from tests.redis_server import redis_process
from tests.sampler.test_frontier_redis import shared, worker


@pytest.fixture
def redis_url(redis_server):
    """The server's URL, emptied before each test."""
    import redis

    with redis.Redis.from_url(redis_server) as client:
        client.flushall()
    return redis_server


def test_a_scheduler_opens_beside_the_browser_rules_of_the_default_driver(redis_url):
    scheduler = worker(redis_url, LANDING_DRIVER="auto")  # its BrowserRules are the crawl's, never in its settings
    scheduler.enqueue_request(shared("https://doi.org/10.1/a"))
    assert scheduler.next_request().url == "https://doi.org/10.1/a"


def test_a_queued_request_is_stored_as_json(redis_url):
    scheduler = worker(redis_url)
    scheduler.enqueue_request(shared("https://doi.org/10.1/a", pid={"pid/doi": "10.1/a"}, visit=("run", 0, 3)))
    [payload] = scheduler.server.hvals(scheduler.queue.keys["data"])
    stored = json.loads(payload)
    assert (stored["url"], stored["callback"], stored["meta"]["visit"]) == (
        "https://doi.org/10.1/a",
        "parse_page",
        ["run", 0, 3],
    )


def test_a_pickle_written_into_the_queue_is_buried_and_never_run(redis_url, tmp_path):
    class Exploit:
        def __reduce__(self):
            return os.mkdir, (str(tmp_path / "ran"),)

    scheduler = worker(redis_url)
    keys, planted = scheduler.queue.keys, pickle.dumps({"url": "https://doi.org/10.1/a", "meta": Exploit()})
    scheduler.server.hset(keys["data"], "000000000000001", planted)
    scheduler.server.zadd(keys["pending"], {"000000000000001": 0})
    assert scheduler.next_request() is None
    assert not (tmp_path / "ran").exists()
    assert scheduler.server.hget(keys["dead"], "000000000000001") == planted


def test_workers_of_two_stores_on_one_redis_database_never_share_requests(redis_url):
    first = worker(redis_url, LANDING_DOCS="sqlite:///one/landing.db")
    other = worker(redis_url, LANDING_DOCS="sqlite:///two/landing.db")
    first.enqueue_request(shared("https://doi.org/10.1/a"))
    assert other.next_request() is None
    assert not other.has_pending_requests()
    assert first.next_request().url == "https://doi.org/10.1/a"


def test_two_runs_of_one_store_never_share_requests(redis_url):
    first, later = worker(redis_url, run="2026-11-24T00:00:00Z"), worker(redis_url, run="2026-11-25T00:00:00Z")
    first.enqueue_request(shared("https://doi.org/10.1/a"))
    assert later.next_request() is None
    assert first.next_request().url == "https://doi.org/10.1/a"


def test_a_call_made_while_redis_restarts_waits_for_it(tmp_path):
    with redis_process(tmp_path, persist=True) as server:
        scheduler = worker(server.url)
        scheduler.enqueue_request(shared("https://doi.org/10.1/a"))
        server.stop()
        # The port answers one connection and drops it, as a server going down does; only then does Redis start again,
        # so the call below surely fails once before Redis is back.
        listener = socket.create_server(("127.0.0.1", server.port))

        def restart():
            connection, _ = listener.accept()
            connection.close()
            listener.close()
            server.start()

        restarting = threading.Thread(target=restart)
        restarting.start()
        try:
            request = scheduler.next_request()
        finally:
            restarting.join(30)
        assert request.url == "https://doi.org/10.1/a"
        assert scheduler.queue.lengths() == (0, 1)


def test_a_redis_that_may_evict_or_forget_keys_is_named_in_a_warning(redis_url, caplog):
    import redis

    with redis.Redis.from_url(redis_url) as client:
        before = client.config_get("maxmemory-policy")["maxmemory-policy"]
        client.config_set("maxmemory-policy", "allkeys-lru")
        try:
            worker(redis_url)
        finally:
            client.config_set("maxmemory-policy", before)
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert any("maxmemory-policy allkeys-lru" in w for w in warnings), warnings
    assert any("keeps nothing on disk" in w for w in warnings), warnings  # the test server runs without persistence


def test_a_redis_set_to_keep_its_keys_gets_no_warning(tmp_path, caplog):
    with redis_process(tmp_path, persist=True) as server:
        worker(server.url)
    assert not [r for r in caplog.records if r.levelname == "WARNING"]


def test_a_push_whose_scripts_vanish_before_it_runs_loads_them_and_goes_through(redis_url, monkeypatch):
    import redis

    scheduler = worker(redis_url)
    load_scripts, restarted = redis.client.Pipeline.load_scripts, []

    def and_restart(pipe):  # what a restart between the pipeline's check of its scripts and their run does
        load_scripts(pipe)
        if not restarted:
            restarted.append(True)
            scheduler.server.script_flush()

    monkeypatch.setattr(redis.client.Pipeline, "load_scripts", and_restart)
    assert scheduler.share([shared("https://doi.org/10.1/a", landing_shared="run/0/0")]) == 1
    assert restarted and scheduler.queue.lengths() == (1, 0)
