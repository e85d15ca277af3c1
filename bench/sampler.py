"""Benchmark the sampler crawl on one sandbox world: DOIs/s, requests per DOI and peak memory, per setting variant.

    .venv/bin/python bench/sampler.py [--variants resource|drivers] [--dois 2000] [--seed 42] [--world DIR]
                                      [--every-scenario]

Each variant crawls the same world into fresh stores, one after the other in the same run, so they share
the machine's noise; the first variant is the baseline. The crawl runs as a user runs it, `scrapy crawl
doi_sampler` in a subprocess. Peak memory is the largest sum of PSS (shared pages divided among the processes
sharing them, so Chromium's many processes are not counted many times over), sampled every 0.2 s with psutil
over the crawl and every process under it. requests/DOI counts every request Scrapy's downloader made
(API, robots.txt, retries, browser visits) over the DOIs visited; "browser" is how many DOIs went to Chromium;
"reached" is how many DOIs ended on a page (their best visit). --every-scenario generates a world whose DOIs
take every sandbox scenario in turn (the demo's world is mostly plain pages, and samples few hostile ones).
"""

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from landing.core.artifacts import current  # noqa: E402
from landing.stores import open_docs  # noqa: E402
from landing_dev.sandbox.generator import generate  # noqa: E402
from landing_dev.sandbox.scenarios import ALL  # noqa: E402
from landing_dev.sandbox.server import RunningSandbox  # noqa: E402

PROJECT = Path(__file__).resolve().parents[1]
VARIANTS = {
    "resource": {
        "resource URL from the redirect (default)": [],
        "resource URL from the Handle API": ["-s", "LANDING_RESOURCE_URL_FROM=handle"],
    },
    "drivers": {
        "LANDING_DRIVER=http": ["-s", "LANDING_DRIVER=http"],
        "LANDING_DRIVER=auto": ["-s", "LANDING_DRIVER=auto"],
        "LANDING_DRIVER=browser": ["-s", "LANDING_DRIVER=browser"],
    },
}


def _stat(log: str, name: str) -> int:
    found = re.search(rf"'{re.escape(name)}': (\d+)", log)
    return int(found.group(1)) if found else 0


def _tree_pss(process: psutil.Process) -> int:
    total = 0
    for member in [process, *process.children(recursive=True)]:
        try:
            total += member.memory_full_info().pss
        except psutil.Error:
            pass  # gone between listing and reading
    return total


def _crawl(proxy, extra, scratch):
    """Crawl once; (seconds, DOIs visited, requests, peak PSS in bytes, DOIs sent to the browser, DOIs reached)."""
    command = [
        sys.executable,
        "-m",
        "scrapy",
        "crawl",
        "doi_sampler",
        "-s",
        f"LANDING_SANDBOX={proxy}",
        "-s",
        f"LANDING_DOCS=sqlite:///{scratch / 'landing.db'}",
        "-s",
        f"LANDING_BLOBS=file://{scratch / 'blobs'}",
        "-s",
        f"LANDING_ARTIFACTS_DIR={scratch / 'artifacts'}",
        "-s",
        "TELNETCONSOLE_ENABLED=False",
        "-s",
        "LOG_LEVEL=INFO",
        *extra,
    ]
    log = scratch / "crawl.log"
    started, peak = time.monotonic(), 0
    with open(log, "w") as err:
        crawl = subprocess.Popen(command, cwd=PROJECT, stdout=subprocess.DEVNULL, stderr=err)
        watched = psutil.Process(crawl.pid)
        while crawl.poll() is None:
            peak = max(peak, _tree_pss(watched))
            time.sleep(0.2)
    seconds = time.monotonic() - started
    text = log.read_text()
    if crawl.returncode != 0:
        sys.exit(f"crawl failed:\n{text[-2000:]}")
    pids = _stat(text, "landing/pids")
    docs = open_docs(f"sqlite:///{scratch / 'landing.db'}")
    reached = sum(1 for doc in current(docs.scan("analysis")) if not doc["snapshot/error"])
    docs.close()
    sent = _stat(text, "landing/browser/sent") if "LANDING_DRIVER=browser" not in extra else pids
    return seconds, pids, _stat(text, "downloader/request_count"), peak, sent, reached


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", choices=sorted(VARIANTS), default="resource")
    parser.add_argument("--dois", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--world", help="an existing world directory (default: generate one in a temp dir)")
    parser.add_argument("--every-scenario", action="store_true", help="a world of every scenario in turn")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        world = Path(args.world) if args.world else Path(tmp) / "world"
        if not args.world:
            kind = "every-scenario " if args.every_scenario else ""
            print(f"generating a {args.dois:,}-DOI {kind}world (seed {args.seed}) ...", flush=True)
            generate(world, args.dois, seed=args.seed, only=list(ALL) if args.every_scenario else None)
        proxy = RunningSandbox(world).proxy
        print(
            f"{'variant':45} {'DOIs':>6} {'seconds':>8} {'DOIs/s':>7} {'requests/DOI':>13} {'peak PSS':>9} "
            f"{'browser':>8} {'reached':>8}"
        )
        for n, (name, extra) in enumerate(VARIANTS[args.variants].items()):
            scratch = Path(tmp) / f"run{n}"
            scratch.mkdir()
            seconds, dois, requests, peak, sent, reached = _crawl(proxy, extra, scratch)
            print(
                f"{name:45} {dois:6,} {seconds:8.1f} {dois / seconds:7.1f} {requests / max(dois, 1):13.2f} "
                f"{peak / 2**20:6.0f} MB {sent:8,} {reached:8,}",
                flush=True,
            )


if __name__ == "__main__":
    main()
