"""A shared run (Redis frontier) under the default settings (driver `auto`, Chromium) through what Redis does to it:
a restart, a FLUSHALL, its frontier keys lost (an eviction, an older RDB restored). Each run must still finish with
every sampled DOI visited. Each case is one crawl against a real redis-server and a sandbox world; the outage comes
once a third of the plan is visited, while DOIs wait in the frontier.
"""

import os
import subprocess
import time

import pytest

from landing_dev.sandbox.generator import generate
from landing_dev.sandbox.server import RunningSandbox
from tests import forked
from tests.redis_server import redis_process
from tests.sampler.crawling import PLANNED, PROJECT, Stores, at_once, count

CHROMIUM = "/usr/bin/chromium"
VISITS = "SELECT COUNT(*) FROM docs WHERE kind = 'visit'"

pytestmark = pytest.mark.skipif(not os.access(CHROMIUM, os.X_OK), reason=f"no Chromium at {CHROMIUM} (driver auto)")


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    directory = tmp_path_factory.mktemp("outage-world")
    # One DOI in fifteen computes its landing page's address in a script: under `auto` Chromium visits those.
    generate(directory, 600, seed=29, only=["direct"] * 14 + ["js-computed"])
    sandbox = RunningSandbox(directory)
    yield sandbox
    sandbox.close()


def _shared_run(world, tmp_path_factory, outage, workers=1):
    """A crawl with `workers` workers sharing a Redis frontier, default settings; `outage(redis_server)` once a third
    of the plan is visited. The crawl, to run, returns (stores, [(returncode, log)] per worker)."""
    stores, redis_dir = Stores(tmp_path_factory.mktemp("outage-crawl")), tmp_path_factory.mktemp("redis")
    return lambda: _run(world, stores, redis_dir, outage, workers)


def _run(world, stores, redis_dir, outage, workers):
    db, logs = stores.root / "landing.db", []
    with redis_process(redis_dir, persist=True) as server:
        command = stores.crawl_command(world.proxy, "-s", f"LANDING_FRONTIER_REDIS={server.url}")
        command += ["-s", "LANDING_SAMPLE_MIN=20", "-s", "LANDING_SAMPLE_MAX=20"]
        # A small frontier keeps the leader sampling through the run, fewer requests at once than it holds keep
        # DOIs waiting in it, and a short lease has the leader renew its lead every 2 s: the outage comes while all
        # three go on. All else is the defaults, the driver `auto` with them.
        command += ["-s", f"LANDING_WORKERS={workers}", "-s", "LANDING_FRONTIER=40", "-s", "CONCURRENT_REQUESTS=8"]
        command += ["-s", "LANDING_LEASE_SECONDS=6"]
        processes = []
        try:
            for n in range(workers):
                log = stores.root / f"worker-{n}.log"
                processes.append(
                    (
                        forked.popen(
                            command, cwd=PROJECT, env=stores.env, stdout=subprocess.DEVNULL, stderr=open(log, "w")
                        ),
                        log,
                    )
                )
            leader = processes[0][0]
            deadline = time.monotonic() + 240
            while not (count(db, PLANNED) and count(db, VISITS) >= count(db, PLANNED) / 3):
                assert leader.poll() is None, (stores.root / "worker-0.log").read_text()[-3000:]
                assert time.monotonic() < deadline, "the crawl did not visit a third of its plan"
                time.sleep(0.1)
            outage(server)
            for process, log in processes:
                process.wait(300)
                logs.append((process.returncode, log.read_text()))
        finally:
            for process, _ in processes:
                if process.poll() is None:
                    process.kill()
    return stores, logs


def _while_queued(server, outage) -> None:
    """outage(pipeline) in a transaction that runs only while DOIs wait in the frontier (queued, not leased): it
    surely loses some."""
    import redis

    deadline = time.monotonic() + 60
    with redis.Redis.from_url(server.url) as client:
        while time.monotonic() < deadline:
            pending = [k for k in client.scan_iter(match="*:run=*", _type="zset") if not k.endswith(b":leased")]
            with client.pipeline() as pipe:
                try:
                    if pending and pipe.watch(*pending) and pipe.zcard(pending[0]):
                        pipe.multi()
                        outage(pipe)
                        pipe.execute()
                        return
                except redis.WatchError:  # a worker leased or the leader queued meanwhile: look again
                    continue
            time.sleep(0.01)
    pytest.fail("no DOI waited in the shared frontier")


def _restart(server):
    server.stop()
    server.start()  # within a second here: it reloads what it had acknowledged (appendfsync always)


def _flush(server):
    _while_queued(server, lambda pipe: pipe.flushall())


def _lose_frontier_keys(server):
    import redis

    def delete(pipe):
        with redis.Redis.from_url(server.url) as client:
            pipe.delete(*client.scan_iter(match="*:run=*"))

    _while_queued(server, delete)


def _every_sampled_doi_visited(stores):
    [run] = stores.export("run")
    sampled = sorted(doi for sample in stores.export("sample") for doi in sample["sample/dois"] or [])
    visited = sorted(visit["pid/doi"] for visit in stores.export("visit"))
    return run["run/state"], len(sampled), visited == sampled


def _ok(logs):
    for returncode, log in logs:
        assert returncode == 0, log[-3000:]
        assert "'finish_reason': 'finished'" in log, log[-3000:]


@pytest.fixture(scope="module")
def runs(world, request, tmp_path_factory):
    """The outages this session's tests use, each its own crawl and redis-server, run at once
    (tests.sampler.crawling.at_once)."""
    prepared = {
        "restarted": lambda: _shared_run(world, tmp_path_factory, _restart, workers=2),
        "flushed": lambda: _shared_run(world, tmp_path_factory, _flush),
        "keys_lost": lambda: _shared_run(world, tmp_path_factory, _lose_frontier_keys),
    }
    with at_once(request, prepared) as started:
        yield started


@pytest.fixture(scope="module")
def restarted(runs):
    return runs["restarted"].result()


@pytest.fixture(scope="module")
def flushed(runs):
    return runs["flushed"].result()


@pytest.fixture(scope="module")
def keys_lost(runs):
    return runs["keys_lost"].result()


LEADS, FOLLOWS, LOST = "Leading the run", "Following the worker that leads the run", "Another worker took the lead"


def _first_role(log: str) -> str | None:
    """'leader' or 'follower': what a worker's log says it was first."""
    leads, follows = log.find(LEADS), log.find(FOLLOWS)
    if leads >= 0 and (follows < 0 or leads < follows):
        return "leader"
    return "follower" if follows >= 0 else None


def test_two_workers_whose_redis_restarts_both_exit_0_and_neither_says_redis_was_unreachable(restarted):
    _, logs = restarted
    _ok(logs)
    roles = {_first_role(log): log for _, log in logs}
    assert sorted(roles, key=str) == ["follower", "leader"]
    # The follower leads only where the leader says it lost the lead: a loop starved past LANDING_LEASE_SECONDS on a
    # loaded machine (the lease's contract, as a dead leader's), never because the restart cost it the lead.
    assert (LEADS in roles["follower"]) == (LOST in roles["leader"]), roles["leader"][-3000:]
    assert not any("Cannot reach the shared frontier" in log or "Traceback" in log for _, log in logs)
    assert any("'landing/browser/sent'" in log for _, log in logs)  # the default driver, Chromium included


def test_a_run_whose_redis_restarts_finishes_with_every_sampled_doi_visited(restarted):
    state, sampled, all_visited = _every_sampled_doi_visited(restarted[0])
    assert (state, all_visited) == ("finished", True)
    assert sampled > 150


def test_a_run_whose_redis_is_flushed_keeps_its_leader_and_finishes_with_every_sampled_doi_visited(flushed):
    stores, logs = flushed
    _ok(logs)
    assert "Another worker took the lead" not in logs[0][1]
    assert "queueing them again" in logs[0][1]  # the DOIs that waited in the frontier were lost with it
    state, sampled, all_visited = _every_sampled_doi_visited(stores)
    assert (state, all_visited) == ("finished", True)
    assert sampled > 150


def test_a_run_whose_frontier_keys_are_lost_queues_the_unvisited_again_and_finishes_with_every_doi_visited(keys_lost):
    stores, logs = keys_lost
    _ok(logs)
    assert "queueing them again" in logs[0][1]
    state, sampled, all_visited = _every_sampled_doi_visited(stores)
    assert (state, all_visited) == ("finished", True)
    assert sampled > 150
