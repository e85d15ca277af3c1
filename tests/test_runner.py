"""landing_dev.runner: the one way the demo, the benchmarks and the tests run a sandbox crawl."""

import json
import urllib.request

import pytest

from landing_dev import runner
from landing_dev.sandbox.server import RunningSandbox


def test_a_setting_without_a_value_is_an_error_naming_it():
    with pytest.raises(ValueError, match="a setting is NAME=VALUE, not 'LANDING_DRIVER'"):
        runner.pairs(["LANDING_DRIVER=http", "LANDING_DRIVER"])


def test_a_sandbox_process_announces_its_proxy_answers_through_it_and_stops_on_close(small_world, tmp_path):
    with runner.SandboxProcess(small_world, log=tmp_path / "serve.log") as served:
        proxy = urllib.request.ProxyHandler({"http": served.proxy})
        with urllib.request.build_opener(proxy).open("http://api.crossref.org/members?rows=1", timeout=10) as reply:
            assert json.load(reply)["status"] == "ok"
    assert served.process.returncode is not None


def test_watching_a_crawl_samples_its_processes_and_stops_it_with_one_ctrl_c_at_the_limit(small_world, tmp_path):
    stores = runner.Stores.under(tmp_path / "stores")
    # Every reply a second late: the first visit is the limit, and the sample's other visits take far longer. Without
    # AutoThrottle (this test is not about pacing) no slot delays its queue, so the requests the stop drops go at once
    # rather than one slot delay (about the latency) each.
    sandbox = RunningSandbox(small_world, latency_ms=1000)
    try:
        settings = {"LANDING_DRIVER": "http", "LANDING_PROGRESS_INTERVAL": 1, "AUTOTHROTTLE_ENABLED": False}
        crawl = runner.Crawl(runner.crawl_command(sandbox.proxy, stores, settings), tmp_path / "crawl.log")
        seen = runner.watch([crawl], limit=1, every=0.2)
    finally:
        sandbox.close()
    log = (tmp_path / "crawl.log").read_text()
    assert seen.codes == [130], log[-3000:]  # 128 + SIGINT: stopped, not finished
    assert "crawl: stopped by SIGINT" in log
    assert seen.events[-1][2] >= 1 and seen.stopped <= seen.seconds
    assert seen.samples and all(s.tree_pss > 0 and s.tree_rss >= s.rss > 0 for s in seen.samples)


def test_a_crawl_run_to_its_end_reports_its_exit_and_its_stats(small_sandbox, tmp_path):
    stores = runner.Stores.under(tmp_path / "stores")
    code, seconds, log = runner.crawl(
        small_sandbox.proxy,
        stores,
        tmp_path / "crawl.log",
        # The HTML report is drawn by tests/report/ and the demo's test: here it would only add a child process.
        {"LANDING_DRIVER": "http", "LANDING_SAMPLE_MIN": 1, "LANDING_SAMPLE_MAX": 2, "LANDING_EXPORT_REPORT": False},
    )
    assert code == 0, log[-3000:]
    assert seconds > 0 and runner.stat(log, "landing/pids") > 0
    assert (stores.artifacts / "prefixes-domains.csv").is_file()
