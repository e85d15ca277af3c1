"""kill -9 at random points of a ~400-DOI crawl, the same command after each: the run ends whole, nothing twice.

The proof is in the sandbox's request log and the store: every sampled DOI ends with one visit record, one pid
and its snapshot; no owner is sampled twice once its sample is stored; and a DOI's resolver is asked again only
if its visit was not yet recorded when the crawl was killed (it was in flight).
"""

import os
import random
import signal
import sqlite3
import subprocess
import time
from collections import Counter
from urllib.parse import unquote

import pytest

from landing_dev.sandbox.generator import generate
from landing_dev.sandbox.server import RunningSandbox
from tests import forked
from tests.sampler.crawling import PLANNED, PROJECT, RESOLVER, SAMPLE, Stores, count

SEED = int(os.environ.get("LANDING_TEST_KILL_SEED", "2026"))
FRONTIER = 60
SETTINGS = [
    "-s",
    "LANDING_SAMPLE_MIN=100",
    "-s",
    "LANDING_SAMPLE_MAX=100",
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
    # Not about pacing: without AutoThrottle the last DOIs of a host that answers 500 are not retried up to 30 s apart.
    "-s",
    "AUTOTHROTTLE_ENABLED=False",
]


def _planned(db) -> int:
    return count(db, PLANNED)


def _visits(db) -> set[str]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as con:
        return {
            row[0] for row in con.execute("SELECT json_extract(doc, '$.\"pid/doi\"') FROM docs WHERE kind = 'visit'")
        }


def _kill_when(command, stores, ready, timeout=240) -> bool:
    """Start the crawl, SIGKILL it once ready(db) holds; False when it finished first."""
    crawl = forked.popen(command, cwd=PROJECT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=stores.env)
    db = stores.root / "landing.db"
    deadline = time.monotonic() + timeout
    while crawl.poll() is None and time.monotonic() < deadline:
        if ready(db):
            crawl.send_signal(signal.SIGKILL)
            crawl.wait()
            return True
        time.sleep(0.02)  # the kill must land close to its point: each kill may add one request in flight
    assert crawl.poll() is not None, "the crawl neither reached its kill point nor finished"
    return False


@pytest.fixture(scope="module")
def killed_and_resumed(tmp_path_factory):
    world = tmp_path_factory.mktemp("resume-world")
    # 404 sampled DOIs, more than six frontiers' worth: enough that the kills fall among the visits with DOIs in
    # flight, and that a resume which visited again what was recorded would, at the default seed's kill points,
    # resolve more again than the last test's bound allows.
    generate(world, 500, seed=13)
    requests = []
    sandbox = RunningSandbox(world, log=requests.append)
    stores = Stores(tmp_path_factory.mktemp("resume-crawl"))
    command = stores.crawl_command(sandbox.proxy, *SETTINGS)
    rng = random.Random(SEED)
    # First as soon as the run is stored (listing or the first samples), then at random shares of the visits.
    shares = sorted(rng.uniform(0.05, 0.95) for _ in range(3))
    points = [lambda db: count(db, "SELECT COUNT(*) FROM docs WHERE kind = 'run'") > 0]
    points += [
        lambda db, share=share: (
            _planned(db) > 0 and count(db, "SELECT COUNT(*) FROM docs WHERE kind = 'visit'") >= share * _planned(db)
        )
        for share in shares
    ]
    segments, recorded = [], []  # the request log's length at each kill, and the visits stored by then
    try:
        for ready in points:
            if _kill_when(command, stores, ready):
                segments.append(len(requests))
                recorded.append(_visits(stores.root / "landing.db"))
        done = forked.run(command, PROJECT, stores.env, 300)
    finally:
        sandbox.close()
    return stores, done, requests, segments, recorded, shares


def test_the_crawl_was_killed_at_every_point_and_the_last_command_finished_the_run(killed_and_resumed):
    stores, done, _, segments, _, shares = killed_and_resumed
    assert len(segments) == 4, f"killed at {len(segments)} points (shares {shares}, seed {SEED})"
    assert done.returncode == 0, done.stderr[-3000:]
    assert "'finish_reason': 'finished'" in done.stderr and "Resuming run" in done.stderr
    [run] = stores.export("run")
    assert run["run/state"] == "finished"


def test_every_sampled_doi_has_one_pid_one_visit_and_its_snapshot(killed_and_resumed):
    stores = killed_and_resumed[0]
    samples = stores.export("sample")
    sampled = [doi for sample in samples for doi in sample["sample/dois"]]
    assert len(sampled) == len(set(sampled)) == sum(s["sample/size"] for s in samples) > 400
    visits = stores.export("visit")
    assert sorted(v["pid/doi"] for v in visits) == sorted(sampled)
    assert sorted(p["pid/doi"] for p in stores.export("pid")) == sorted(sampled)
    snapshots = {s["pid/doi"] for s in stores.export("snapshot")}
    assert snapshots == set(sampled)
    assert {v["visit/snapshot"] for v in visits} <= {
        f"{s['pid/doi']} {s['snapshot/driver']} {s['snapshot/timestamp'][:10]}" for s in stores.export("snapshot")
    }


def test_no_owner_is_sampled_again_once_its_sample_is_stored(killed_and_resumed):
    stores, _, requests, _, _, _ = killed_and_resumed
    asked = Counter(unquote(m.group(1) or m.group(2)) for line in requests if (m := SAMPLE.match(line)))
    owners = {s["sample/owner"] for s in stores.export("sample")}
    assert set(asked) == owners
    # An owner asked twice was in flight at a kill: at most one extra request per kill.
    assert sum(n - 1 for n in asked.values()) <= 4


def test_a_doi_is_resolved_again_only_when_its_visit_was_not_recorded_at_the_kill(killed_and_resumed):
    _, _, requests, segments, recorded, _ = killed_and_resumed
    bounds = [0, *segments, len(requests)]
    again = 0
    for k in range(1, len(bounds) - 1):  # the segment after kill k-1 ...
        resolved = {
            unquote(m.group(1)).lower() for line in requests[bounds[k] : bounds[k + 1]] if (m := RESOLVER.match(line))
        }
        assert not resolved & recorded[k - 1], "a DOI recorded as visited was fetched again"
        before = {unquote(m.group(1)).lower() for line in requests[: bounds[k]] if (m := RESOLVER.match(line))}
        again += len(resolved & before)
    # Only DOIs in flight at a kill are fetched twice: a few frontiers' worth at most, not the run again.
    assert again <= 4 * FRONTIER
