"""A first SIGTERM or Ctrl-C stops `scrapy crawl doi_sampler` within seconds (issue 29): downloads in flight are
cancelled rather than waited for, what the pipelines hold is written, no half-made visit is recorded, the export is
left for later, and the same command then resumes and finishes the run."""

import json
import signal
import sqlite3
import subprocess
import threading
import time

import pytest

from landing_dev.sandbox.server import RunningSandbox
from tests import forked
from tests.sampler.crawling import PROJECT, Stores

FAST = {f"10.99006/fast{i}": f"https://fast.example/{i}" for i in range(4)}
# One host each, so all are in flight at once; each page answers after two minutes (DOWNLOAD_TIMEOUT is 30 s).
SLOW = {f"10.99006/slow{i}": f"https://slow{i}.example/page" for i in range(4)}
BOUND = 10  # seconds from the signal to the exit: Scrapy's graceful stop waited out DOWNLOAD_TIMEOUT (30 s) and more


def _page(doi):
    return f'<html><head><meta name="citation_doi" content="{doi}"><title>t</title></head><body>.</body></html>'


def _world(root, delay_ms):
    root.mkdir()
    members = [{"id": "1", "primary-name": "Slow Press", "prefixes": ["10.99006"]}]
    (root / "world.json").write_text(json.dumps({"format": "landing-sandbox/1", "members": members}))
    dois = {**FAST, **SLOW}
    (root / "dois.jsonl").write_text(
        "".join(json.dumps({"doi": d, "ra": "crossref", "member": "1", "url": u}) + "\n" for d, u in dois.items())
    )
    routes = [{"url": url, "body": _page(doi)} for doi, url in FAST.items()]
    routes += [{"url": url, "body": _page(doi), "delay_ms": delay_ms} for doi, url in SLOW.items()]
    (root / "routes.jsonl").write_text("".join(json.dumps(route) + "\n" for route in routes))
    return root


def _docs(db, kind) -> list[dict]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        return [json.loads(doc) for (doc,) in con.execute("SELECT doc FROM docs WHERE kind = ?", (kind,))]


@pytest.fixture(scope="module", params=[signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def stopped(request, tmp_path_factory):
    root = tmp_path_factory.mktemp("stop")
    stores = Stores(root / "stores")
    asked, all_slow_asked = set(), threading.Event()

    def watch(req):  # the event the signal waits for: every slow page is being downloaded
        if req.url in SLOW.values():
            asked.add(req.url)
            if len(asked) == len(SLOW):
                all_slow_asked.set()

    settings = ["-s", "LANDING_SOURCES=crossref", "-s", "LANDING_DRIVER=http", "-s", "TELNETCONSOLE_ENABLED=False"]
    sandbox = RunningSandbox(_world(root / "slow", 120_000), watch=watch)
    try:
        crawl = forked.popen(
            stores.crawl_command(sandbox.proxy, *settings),
            cwd=PROJECT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=stores.env,
        )
        try:
            assert all_slow_asked.wait(120), "the crawl never had every slow page in flight"
            crawl.send_signal(request.param)
            signalled = time.monotonic()
            _, log = crawl.communicate(timeout=300)
            took = time.monotonic() - signalled
        finally:
            crawl.kill()
    finally:
        sandbox.close()
    db = stores.root / "landing.db"
    kept = {kind: _docs(db, kind) for kind in ("pid", "snapshot", "analysis", "visit", "run")}
    fast = RunningSandbox(_world(root / "fast", 0))
    try:
        resumed = stores.crawl(fast.proxy, *settings)
    finally:
        fast.close()
    return request.param, crawl.returncode, took, log, kept, resumed, stores


def test_the_crawl_exits_within_seconds_of_the_first_signal(stopped):
    signum, code, took, log, *_ = stopped
    assert took < BOUND, log[-3000:]


def test_the_exit_status_says_which_signal_stopped_it_and_the_log_how_to_resume(stopped):
    signum, code, took, log, *_ = stopped
    assert code == 128 + signum, log[-3000:]
    assert f"crawl: stopped by {signal.Signals(signum).name}" in log and "the same command resumes" in log


def test_no_visit_in_flight_is_recorded_as_a_failure(stopped):
    kept = stopped[4]
    assert not [doc["pid/doi"] for doc in kept["snapshot"] if doc["pid/doi"] in SLOW]
    assert not [doc["pid/doi"] for doc in kept["visit"] if doc["pid/doi"] in SLOW]


def test_what_the_crawl_held_is_written_every_pid_and_each_recorded_visit_with_its_snapshot(stopped):
    kept = stopped[4]
    assert {doc["pid/doi"] for doc in kept["pid"]} == {*FAST, *SLOW}
    snapshots = {doc["pid/doi"] for doc in kept["snapshot"]}
    analyses = {doc["pid/doi"] for doc in kept["analysis"] if doc["analysis/meta-tag-correctness"] == "ok"}
    assert {doc["pid/doi"] for doc in kept["visit"]} <= snapshots == analyses


def test_the_stopped_run_is_left_open_and_its_export_for_later(stopped):
    kept, log = stopped[4], stopped[3]
    assert [run["run/state"] for run in kept["run"]] == ["visiting"]
    assert "Artifacts not exported: the crawl was stopped" in log


def test_the_same_command_resumes_the_run_and_visits_each_doi_once(stopped):
    resumed, stores = stopped[5], stopped[6]
    assert "Resuming run" in resumed.stderr
    db = stores.root / "landing.db"
    visits = _docs(db, "visit")
    assert sorted(doc["pid/doi"] for doc in visits) == sorted({*FAST, *SLOW})
    assert [run["run/state"] for run in _docs(db, "run")] == ["finished"]
    assert {doc["pid/doi"]: doc["snapshot/error"] for doc in _docs(db, "analysis")} == dict.fromkeys({*FAST, *SLOW})
