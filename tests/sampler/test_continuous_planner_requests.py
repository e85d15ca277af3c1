"""Continuous mode's budget counts every request the crawl sends, whenever it is sent (issue 42): on a small world
whose pages answer slowly, so that a round's visits run on while the planner waits between slices, the day's count
the budget reads agrees with the sandbox's own request log."""

import signal
import subprocess
import time

from landing_dev.sandbox.generator import generate
from landing_dev.sandbox.server import RunningSandbox
from tests import forked
from tests.sampler.crawling import PROJECT, Stores, continuous_state, wait_for

START = "2026-11-01T00:00:00Z"
SPEED = 60  # a simulated minute a real second: a slice (TUNING_PLAN_MINUTES=1) a second, a day in 24 minutes
DEADLINE = 120  # real seconds any wait may take before the test fails


def _wait(what, check):
    return wait_for(what, check, DEADLINE)


def _closed(db):
    """The slice stamp of a state whose rounds are all closed, once at least one was; None before."""
    state = continuous_state(db)
    done = state.get("continuous/rounds", 0) >= 1 and not state.get("continuous/open")
    return state.get("continuous/planned") if done else None


def test_the_days_request_count_agrees_with_the_sandboxs_request_log(tmp_path):
    generate(tmp_path / "world", 12, seed=5)
    stores = Stores(tmp_path / "stores")
    db = stores.root / "landing.db"
    settings = [
        *("-s", "LANDING_CONTINUOUS=True", "-s", "LANDING_DRIVER=http", "-s", "LANDING_PROGRESS_INTERVAL=0"),
        *(
            "-s",
            f"LANDING_CLOCK={START}",
            "-s",
            f"LANDING_CLOCK_SPEED={SPEED}",
            "-s",
            f"LANDING_CLOCK_SINCE={time.time()}",
        ),
        *("-s", "TUNING_PLAN_MINUTES=1", "-s", "LANDING_BUDGET=1000000", "-s", "LANDING_SAMPLE_MIN=2"),
        # Nothing due again while the test runs: once the first round is closed, no request is left to make.
        *("-s", "TUNING_RELIST_HOURS=1000", "-s", "LANDING_REFRESH_DAYS=100", "-s", "TUNING_RECHECK_DAYS=100"),
        *("-s", "LANDING_EXPORT_EVERY=1000", "-s", "TUNING_PRUNE_HOURS=1000"),
    ]
    answered = []
    # 300 ms a request: a round's visits take several slices, most of them while the planner waits.
    sandbox = RunningSandbox(tmp_path / "world", latency_ms=300, log=answered.append)
    try:
        crawl = forked.popen(
            stores.crawl_command(sandbox.proxy, *settings),
            cwd=PROJECT,
            stderr=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            env=stores.env,
        )
        try:
            closed = _wait("the first round closed", lambda: _closed(db))
            # A later slice counted: everything the round sent is in the state by then, which no later step changes.
            _wait("a slice after it", lambda: continuous_state(db).get("continuous/planned") != closed)
            crawl.send_signal(signal.SIGKILL)  # no last export: it sends nothing, and takes a second
            crawl.wait(DEADLINE)
        finally:
            crawl.kill()
    finally:
        sandbox.close()
    state = continuous_state(db)
    assert state["continuous/day"] == START[:10]
    counted, sent = state["continuous/requests-today"], len(answered)
    assert sent > 20  # the listing, the samples, robots.txt and the visits
    assert abs(counted - sent) <= 0.02 * sent, (counted, sent)
