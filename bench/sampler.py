"""Benchmark the sampler crawl on one sandbox world: DOIs/s, requests per DOI and peak memory, per setting variant.

    .venv/bin/python -m bench.sampler [--variants resource|drivers] [--dois 2000] [--seed 42] [--world DIR]
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
import sys
import tempfile
from pathlib import Path

from landing.core.publishing.current_analysis import current
from landing.stores import open_docs
from landing_dev import runner
from landing_dev.sandbox.generator import generate
from landing_dev.sandbox.scenarios import ALL
from landing_dev.sandbox.server import RunningSandbox

VARIANTS = {
    "resource": {
        "resource URL from the redirect (default)": [],
        "resource URL from the Handle API": ["-s", "TUNING_RESOURCE_URL_FROM=handle"],
    },
    "drivers": {
        "LANDING_DRIVER=http": ["-s", "LANDING_DRIVER=http"],
        "LANDING_DRIVER=auto": ["-s", "LANDING_DRIVER=auto"],
        "LANDING_DRIVER=browser": ["-s", "LANDING_DRIVER=browser"],
    },
}


def _crawl(proxy, extra, scratch):
    """Crawl once; (seconds, DOIs visited, requests, peak PSS in bytes, DOIs sent to the browser, DOIs reached)."""
    stores = runner.Stores.under(scratch)
    running = runner.Crawl(runner.crawl_command(proxy, stores, {"LOG_LEVEL": "INFO"}, extra), scratch / "crawl.log")
    seen = runner.watch([running], every=0.2)
    text = running.text()
    if seen.codes[0] != 0:
        sys.exit(f"crawl failed:\n{text[-2000:]}")
    pids = runner.stat(text, "landing/pids")
    docs = open_docs(stores.docs)
    reached = sum(1 for doc in current(docs.scan("analysis")) if not doc["snapshot/error"])
    docs.close()
    sent = runner.stat(text, "landing/browser/sent") if "LANDING_DRIVER=browser" not in extra else pids
    peak = max((s.tree_pss for s in seen.samples), default=0)
    return seen.seconds, pids, runner.stat(text, "downloader/request_count"), peak, sent, reached


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
