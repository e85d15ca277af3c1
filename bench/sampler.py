"""Benchmark the sampler crawl on one sandbox world: DOIs/s, requests per DOI and peak RSS, per setting variant.

    .venv/bin/python bench/sampler.py [--dois 2000] [--seed 42] [--world DIR]

Each variant crawls the same world into fresh stores, one after the other in the same run, so they share
the machine's noise; the first variant (the defaults) is the baseline. The crawl runs as a user runs it,
`scrapy crawl doi_sampler` in a subprocess, under /usr/bin/time for its peak RSS. requests/DOI counts
every request the crawl made (API, robots.txt, retries included) over the DOIs visited.
"""
import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from landing.sandbox.generator import generate  # noqa: E402
from landing.sandbox.server import RunningSandbox  # noqa: E402

PROJECT = Path(__file__).resolve().parents[1]
VARIANTS = {
    "defaults (resource URL from the redirect)": [],
    "resource URL from the Handle API": ["-s", "LANDING_RESOURCE_URL_FROM=handle"],
}


def _stat(log: str, name: str) -> int:
    found = re.search(rf"'{re.escape(name)}': (\d+)", log)
    return int(found.group(1)) if found else 0


def _crawl(proxy, extra, scratch):
    """Crawl once; (seconds, snapshots, requests, peak RSS in KiB) measured around the crawl process only."""
    command = ["/usr/bin/time", "-f", "PEAK_RSS_KB=%M", sys.executable, "-m", "scrapy", "crawl", "doi_sampler",
               "-s", f"LANDING_SANDBOX={proxy}", "-s", f"LANDING_DOCS=sqlite:///{scratch / 'landing.db'}",
               "-s", f"LANDING_BLOBS=file://{scratch / 'blobs'}", "-s", f"LANDING_ARTIFACTS_DIR={scratch / 'artifacts'}",
               "-s", "TELNETCONSOLE_ENABLED=False", "-s", "LOG_LEVEL=INFO", *extra]
    started = time.monotonic()
    done = subprocess.run(command, cwd=PROJECT, capture_output=True, text=True)
    seconds = time.monotonic() - started
    if done.returncode != 0:
        sys.exit(f"crawl failed:\n{done.stderr[-2000:]}")
    peak = int(re.search(r"PEAK_RSS_KB=(\d+)", done.stderr).group(1))
    return seconds, _stat(done.stderr, "landing/snapshots"), _stat(done.stderr, "downloader/request_count"), peak


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dois", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--world", help="an existing world directory (default: generate one in a temp dir)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        world = Path(args.world) if args.world else Path(tmp) / "world"
        if not args.world:
            print(f"generating a {args.dois:,}-DOI world (seed {args.seed}) ...", flush=True)
            generate(world, args.dois, seed=args.seed)
        proxy = RunningSandbox(world).proxy
        print(f"{'variant':45} {'DOIs':>6} {'seconds':>8} {'DOIs/s':>7} {'requests/DOI':>13} {'peak RSS':>9}")
        for n, (name, extra) in enumerate(VARIANTS.items()):
            scratch = Path(tmp) / f"run{n}"
            scratch.mkdir()
            seconds, dois, requests, peak = _crawl(proxy, extra, scratch)
            print(f"{name:45} {dois:6,} {seconds:8.1f} {dois / seconds:7.1f} {requests / max(dois, 1):13.2f} "
                  f"{peak / 1024:6.0f} MB", flush=True)


if __name__ == "__main__":
    main()
