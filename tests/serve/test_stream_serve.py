"""`scrapy serve --no-http` with LANDING_STREAM_IN: two service processes share a consumer group on the match world's
crawl, through a sandbox at 200 ms a request; one is killed with `kill -9` mid-stream, and every input still gets
exactly one result, the right one."""

import json
import signal

import pytest
import redis

from landing_dev import runner
from landing_dev.sandbox.server import RunningSandbox
from tests import forked
from tests.sampler.crawling import PROJECT, truth_of
from tests.serve.serving import Served, wait_until

INPUTS = 8


@pytest.fixture(scope="module")
def pages(match_world) -> dict:
    """{landing page URL: its DOI}: pages whose URL does not hold their DOI (the page must be read)."""
    truth, found = truth_of(match_world), {}
    for doi, t in truth.items():
        url = t["final_url"]
        if not t["error"] and t["scenario"] == "direct" and doi not in url.lower() and "/pii/" not in url:
            found[url] = doi
    assert len(found) >= INPUTS
    return dict(list(found.items())[:INPUTS])


@pytest.fixture(scope="module")
def slow_sandbox(match_world):
    running = RunningSandbox(match_world, latency_ms=200)  # answers take a while: a kill finds entries in hand
    yield running
    running.close()


def consumer(name, match_crawl, slow_sandbox, redis_server) -> Served:
    stores, _ = match_crawl
    settings = {
        "LANDING_SANDBOX": slow_sandbox.proxy,
        "LANDING_MATCH_REDIS": redis_server,
        "LANDING_STREAM_IN": "serve:in",
        "LANDING_STREAM_OUT": "serve:out",
        "TUNING_STREAM_CONSUMER": name,
        "TUNING_STREAM_CLAIM_SECONDS": 1,
        "TUNING_STREAM_CONCURRENCY": 4,
        "TUNING_STREAM_BATCH": 4,
    }
    options = [arg for name, value in settings.items() for arg in ("-s", f"{name}={value}")]
    return Served(["--no-http", *stores.settings(), *options], stores.env)


def test_two_serve_processes_answer_a_stream_and_a_kill_9_of_one_loses_no_input(
    match_crawl, slow_sandbox, redis_server, pages
):
    client = redis.Redis.from_url(redis_server)
    one, two = (consumer(name, match_crawl, slow_sandbox, redis_server) for name in ("one", "two"))
    try:
        for served in (one, two):
            served.wait_logged("Consuming serve:in into serve:out (group landing, consumer ")
        ids = {client.xadd("serve:in", {"q": url}).decode(): url for url in pages}  # both read: both get some

        def pending(name) -> int:
            found = client.xpending("serve:in", "landing")["consumers"]
            return next((c["pending"] for c in found if c["name"] == name.encode()), 0)

        wait_until("one holding entries it has not answered", lambda: pending("one") > 0)
        one.process.send_signal(signal.SIGKILL)
        assert one.process.wait(10) == -signal.SIGKILL
        wait_until("every input's result", lambda: client.xlen("serve:out") >= INPUTS)
        results = [(fields[b"input"].decode(), fields) for _, fields in client.xrange("serve:out")]
        assert sorted(entry_id for entry_id, _ in results) == sorted(ids)
        assert client.xpending("serve:in", "landing")["pending"] == 0
        assert "claimed" in two.log()
        two.process.send_signal(signal.SIGTERM)
        assert two.process.wait(30) == 0, two.log()[-3000:]
    finally:
        for served in (one, two):
            served.close()
    found = {ids[entry_id]: json.loads(fields[b"result"]) for entry_id, fields in results}
    assert {url: result["doi"] for url, result in found.items()} == pages
    assert {url: result["input"] for url, result in found.items()} == {url: url for url in pages}
    assert all(fields[b"version"] for _, fields in results)


def test_no_http_without_a_stream_to_answer_is_a_usage_error(tmp_path):
    command = runner.scrapy_command("serve", "--no-http", settings={"LANDING_ARTIFACTS_DIR": tmp_path})
    done = forked.run(command, PROJECT, None, timeout=120)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1].endswith(
        " error: --no-http answers LANDING_STREAM_IN only: set it (and LANDING_MATCH_REDIS)"
    )
