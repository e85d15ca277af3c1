"""landing_dev.demo (`make demo`, `make demo-s3`), run as a user would in a fresh directory, on a smaller world."""

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from landing.stores import open_docs
from landing_dev.sandbox.server import RunningSandbox

PROJECT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "SCRAPY_SETTINGS_MODULE": "landing.settings", "PYTHONPATH": str(PROJECT)}
DOIS = 500  # enough for the sampler to take a sample, not every DOI
# The S3 demo's claim (every body it stored in moto is copied out, so analyze finds each) holds at any size: a smaller
# world, so fewer visits and fewer objects.
S3_DOIS = 100


def _run(cwd: Path, *command: str) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600, env=ENV)


def _demo(cwd: Path, *args: str, dois: int = DOIS) -> str:
    done = _run(cwd, sys.executable, "-m", "landing_dev.demo", "--dois", str(dois), *args)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The demo run where a user's own crawl left the default store; (directory, what the demo printed)."""
    cwd = tmp_path_factory.mktemp("demo")
    (cwd / "data" / "blobs").mkdir(parents=True)
    (cwd / "data" / "landing.db").write_bytes(b"the user's own store")
    (cwd / "data" / "blobs" / "mine").write_bytes(b"a body of the user's")
    return cwd, _demo(cwd)


def test_the_demo_leaves_the_default_store_alone_and_keeps_its_own_under_data_demo(demo):
    cwd, out = demo
    assert (cwd / "data" / "landing.db").read_bytes() == b"the user's own store"
    assert (cwd / "data" / "blobs" / "mine").read_bytes() == b"a body of the user's"
    assert "scrapy crawl's default store (data/landing.db, data/blobs, data/artifacts) is not touched" in out
    with open_docs(f"sqlite:///{cwd / 'data/demo/landing.db'}") as docs:
        assert docs.count("analysis") > 0
    assert (cwd / "data" / "demo" / "artifacts" / "prefixes-domains.csv").is_file()


def test_the_demo_says_it_samples_fewer_dois_than_its_world_holds_and_why(demo):
    _, out = demo
    sampled = int(re.search(rf"demo: (\d+) DOIs sampled of the world's {DOIS}: the sampler takes a sample", out)[1])
    assert 0 < sampled < DOIS


def test_the_demos_last_progress_line_has_every_sampled_doi_visited_and_its_pages_and_failures_add_up(demo):
    _, out = demo
    last = [line for line in out.splitlines() if "progress: " in line][-1]
    sampled, visited, pages, failed, share, total = map(
        float,
        re.search(
            r"(\d+) DOIs sampled, (\d+) visited \((\d+) pages, (\d+) failed\).*, ([\d.]+)% of its (\d+) DOIs", last
        ).groups(),
    )
    assert share == 100.0
    assert visited == total == sampled == pages + failed


def test_the_demo_says_each_failure_it_met_was_planted_by_its_world(demo):
    _, out = demo
    assert re.search(r"demo: the world plants failures in \d+ of its 500 DOIs", out)
    assert "demo: every one of them planted by the world (its truth.jsonl names a failure for each DOI)" in out
    assert "NOT planted" not in out


def test_the_demos_next_steps_match_a_page_it_reached_back_to_its_doi_through_the_world_served_again(demo):
    cwd, out = demo
    assert "  .venv/bin/scrapy sandbox serve data/world --port 8700\n" in out
    [command] = [line for line in out.splitlines() if "# a landing page back to its DOI" in line]
    words = shlex.split(command.split("   #")[0])
    assert words[:2] == [".venv/bin/scrapy", "match"]
    url = words[-1]
    with open_docs(f"sqlite:///{cwd / 'data/demo/landing.db'}") as docs:
        [doi] = {d["pid/doi"] for d in docs.scan("analysis") if d["snapshot/final-url"] == url}
    sandbox = RunningSandbox(cwd / "data" / "world")  # on a free port: the step names 8700
    try:
        words = [w.replace("http://127.0.0.1:8700", sandbox.proxy) for w in words[1:]]
        done = _run(cwd, sys.executable, "-m", "scrapy", *words)
    finally:
        sandbox.close()
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout)["doi"] == doi


def test_the_s3_demo_copies_the_bodies_out_of_moto_so_analyze_finds_every_one_afterwards(tmp_path):
    out = _demo(tmp_path, "--s3", dois=S3_DOIS)
    assert "so that the store's snapshots keep their bodies" in out
    done = _run(
        tmp_path,
        sys.executable,
        "-m",
        "scrapy",
        "analyze",
        "-s",
        "LANDING_DOCS=sqlite:///data/demo/landing.db",
        "-s",
        "LANDING_BLOBS=file://data/demo/blobs",
    )
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert re.search(r"analyze: [1-9][\d,]* snapshots analysed in .*, 0 skipped", done.stdout)
