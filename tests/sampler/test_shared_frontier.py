"""Two crawler processes sharing one Redis frontier (real redis-server), the leader killed -9 mid-run.

Worker A starts first and leads (lists, plans, samples); worker B joins and visits what A shares. Once a third of
the plan is visited A is killed: B takes the lead after LANDING_LEASE_SECONDS, gets A's leased DOIs back, resumes
the run from the store and finishes it. The proof is in the sandbox's request log and the store.
"""

import re
import signal
import subprocess
import time
from collections import Counter
from urllib.parse import unquote

import pytest

from landing_dev.sandbox.generator import generate
from landing_dev.sandbox.server import RunningSandbox
from tests import forked
from tests.redis_server import running_redis
from tests.sampler.crawling import PLANNED, PROJECT, RESOLVER, SAMPLE, Stores, count

LEASE = 3  # seconds: how long A's work and lead wait before B takes them
FRONTIER = 80  # per worker: the two share a frontier of 160 DOIs
SETTINGS = [
    "-s",
    "LANDING_SAMPLE_MIN=50",
    "-s",
    "LANDING_SAMPLE_MAX=50",
    "-s",
    f"LANDING_FRONTIER={FRONTIER}",
    "-s",
    "LANDING_DRIVER=http",
    "-s",
    "TELNETCONSOLE_ENABLED=False",
    "-s",
    "LANDING_PROGRESS_INTERVAL=1",
    "-s",
    "TUNING_DOCS_BATCH_SECONDS=0.5",
    "-s",
    f"LANDING_LEASE_SECONDS={LEASE}",
    "-s",
    "LANDING_WORKERS=2",
    # Not about pacing: without AutoThrottle the last DOIs of a host that answers 500 are not retried up to 30 s apart.
    "-s",
    "AUTOTHROTTLE_ENABLED=False",
]


def _wait(process, ready, timeout=240):
    deadline = time.monotonic() + timeout
    while not ready():
        assert process.poll() is None, "the worker ended before the point the test waits for"
        assert time.monotonic() < deadline, "the worker did not reach the point the test waits for"
        time.sleep(0.1)


@pytest.fixture(scope="module")
def leader_killed(tmp_path_factory):
    world = tmp_path_factory.mktemp("shared-world")
    # 412 sampled DOIs: the kill comes at a third of the plan as it grows, early in the run whatever the world's
    # size, and what follows it is still more than the shared frontier holds, for B alone.
    generate(world, 800, seed=17)
    requests = []
    sandbox = RunningSandbox(world, log=requests.append)
    stores = Stores(tmp_path_factory.mktemp("shared-crawl"))
    db = stores.root / "landing.db"
    with running_redis(tmp_path_factory.mktemp("redis")) as url:
        command = stores.crawl_command(sandbox.proxy, "-s", f"LANDING_FRONTIER_REDIS={url}", *SETTINGS)
        logs, a, b = stores.root, None, None
        try:
            a = forked.popen(
                command, cwd=PROJECT, env=stores.env, stdout=subprocess.DEVNULL, stderr=open(logs / "a.log", "w")
            )
            _wait(a, lambda: count(db, "SELECT COUNT(*) FROM docs WHERE kind = 'run'") > 0)
            b = forked.popen(
                command, cwd=PROJECT, env=stores.env, stdout=subprocess.DEVNULL, stderr=open(logs / "b.log", "w")
            )
            _wait(
                a,
                lambda: (
                    count(db, PLANNED) > 0
                    and count(db, "SELECT COUNT(*) FROM docs WHERE kind = 'visit'") >= count(db, PLANNED) / 3
                ),
            )
            a.send_signal(signal.SIGKILL)
            a.wait()
            killed_at = len(requests)
            b.wait(300)
        finally:
            for process in (a, b):
                if process is not None and process.poll() is None:
                    process.kill()
            sandbox.close()
    return stores, b.returncode, (logs / "a.log").read_text(), (logs / "b.log").read_text(), requests, killed_at


def test_the_follower_took_the_lead_and_finished_the_run(leader_killed):
    stores, returncode, a_log, b_log, _, _ = leader_killed
    assert "Leading the run" in a_log and "Following the worker that leads the run" in b_log
    assert returncode == 0, b_log[-3000:]
    assert "Leading the run" in b_log and "'finish_reason': 'finished'" in b_log
    assert re.search(r"re-queued \d+ expired leases", b_log), "A's leased DOIs did not come back"
    [run] = stores.export("run")
    assert run["run/state"] == "finished"


def test_both_workers_visited_dois(leader_killed):
    _, _, a_log, b_log, _, _ = leader_killed
    assert "'scheduler/dequeued/redis'" in b_log
    assert int(re.search(r"'landing/visits': (\d+)", b_log).group(1)) > 100
    # A was killed, so it printed no stats; its progress lines say it visited.
    assert re.search(r"\b([1-9]\d*) visited", a_log), a_log[-2000:]


def test_every_sampled_doi_has_one_pid_one_visit_and_its_snapshot(leader_killed):
    stores = leader_killed[0]
    samples = stores.export("sample")
    sampled = [doi for sample in samples for doi in sample["sample/dois"]]
    assert len(sampled) == len(set(sampled)) == sum(s["sample/size"] for s in samples) > 400
    visits = stores.export("visit")
    assert sorted(v["pid/doi"] for v in visits) == sorted(sampled)
    assert sorted(p["pid/doi"] for p in stores.export("pid")) == sorted(sampled)
    assert {s["pid/doi"] for s in stores.export("snapshot")} == set(sampled)


def test_each_owner_is_sampled_once_but_for_those_in_flight_at_the_kill(leader_killed):
    stores, _, _, _, requests, _ = leader_killed
    asked = Counter(unquote(m.group(1) or m.group(2)) for line in requests if (m := SAMPLE.match(line)))
    assert set(asked) == {s["sample/owner"] for s in stores.export("sample")}
    assert sum(n - 1 for n in asked.values()) <= 2 * FRONTIER // 50 + 1


def test_only_the_dois_in_the_frontier_at_the_kill_are_resolved_again_after_it(leader_killed):
    _, _, _, _, requests, killed_at = leader_killed
    before = {unquote(m.group(1)).lower() for line in requests[:killed_at] if (m := RESOLVER.match(line))}
    after = {unquote(m.group(1)).lower() for line in requests[killed_at:] if (m := RESOLVER.match(line))}
    # A retry resolves a DOI twice on either side of the kill; across it, only what A held (its frontier) or
    # had not yet recorded could be asked again.
    assert len(before & after) <= 2 * FRONTIER
