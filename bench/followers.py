"""Benchmark: do two workers sharing a run each visit pages, on a small and a large world, full and continuous?

    .venv/bin/python -m bench.followers [--small 3000] [--large 100000] [--worlds DIR] [--modes full,continuous]
                                        [--seconds 60] [--full-seconds 1800] [--set NAME=VALUE ...] [--keep]

Generates (or reuses, under --worlds) a --small-DOI and a --large-DOI world (seed 1, as bench/scaling.py's), serves
each at 0 ms latency and, per world and mode, starts a redis-server and worker A (`scrapy crawl doi_sampler` with
LANDING_FRONTIER_REDIS and LANDING_WORKERS=2, LANDING_DRIVER=http), waits until A leads the run, then starts worker B
with the same command, as an operator starting a second machine does. A full run ends by itself (or is stopped
--full-seconds after B started); a continuous one (LANDING_CONTINUOUS, the real clock) is stopped --seconds after B
started. Per crawl: each
worker's DOIs visited (its last progress line), what B found when it joined the frontier ("N requests pending, M
leased"), and the seconds.
"""

import argparse
import re
import time
from pathlib import Path

from bench.scratch import scratch
from bench.worlds import sized_world
from landing_dev import runner
from landing_dev.runner import SandboxProcess

JOINED = re.compile(r"joining a shared frontier: (\d+) requests pending, (\d+) leased")


def _wait_for(crawl: runner.Crawl, text: str, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while text not in crawl.text():
        if not crawl.running() or time.monotonic() > deadline:
            raise RuntimeError(f"worker A never said {text!r}:\n{crawl.text()[-2000:]}")
        time.sleep(0.2)


def shared_crawl(server: SandboxProcess, scratch_dir: Path, mode: str, seconds: float, extra: list[str]) -> dict:
    """Workers A then B on one run, B stopped `seconds` after it started; each one's visits, what B joined, the
    seconds."""
    redis, url = runner.redis_server(scratch_dir)
    settings = {"LANDING_FRONTIER_REDIS": url, "LANDING_WORKERS": 2, "LANDING_DRIVER": "http"}
    settings |= {"LANDING_PROGRESS_INTERVAL": 1}
    if mode == "continuous":
        settings["LANDING_CONTINUOUS"] = True
    command = runner.crawl_command(server.proxy, runner.Stores.under(scratch_dir), settings, extra)
    crawls = []
    try:
        crawls.append(runner.Crawl(command, scratch_dir / "a.log"))
        _wait_for(crawls[0], "Leading the run")
        crawls.append(runner.Crawl(command, scratch_dir / "b.log"))
        # From B's start, however long A took to start on a loaded machine.
        seen = runner.watch(crawls, time_limit=crawls[1].started - crawls[0].started + seconds)
    finally:
        for crawl in crawls:
            crawl.kill()
        runner.stop(redis, 10)
    joined = JOINED.search(crawls[1].text())
    return {
        "visited": [c.events[-1][2] if c.events else 0 for c in crawls],
        "joined": f"{joined.group(1)} pending, {joined.group(2)} leased" if joined else "-",
        "seconds": seen.seconds,
        "codes": seen.codes,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=3000)
    parser.add_argument("--large", type=int, default=100000)
    parser.add_argument("--worlds", help="keep the worlds here and reuse them (default: the scratch folder)")
    parser.add_argument("--modes", default="full,continuous")
    parser.add_argument("--seconds", type=float, default=60, help="how long B runs in continuous mode")
    parser.add_argument("--full-seconds", type=float, default=1800, help="how long B runs at most in a full run")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a crawl setting")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder (logs, stores)")
    args = parser.parse_args()
    extra = [arg for pair in args.set for arg in ("-s", pair)]
    with scratch("landing-followers-", args.keep) as tmp:
        root = Path(args.worlds or tmp)
        print(
            f"{'world':>8} {'mode':>11} {'A visited':>10} {'B visited':>10} {'seconds':>8}  B joined"
            f"   settings: {' '.join(args.set) or 'defaults'}",
            flush=True,
        )
        for size in [n for n in (args.small, args.large) if n]:  # 0: that world skipped
            world = sized_world(root, size)
            with SandboxProcess(world) as server:
                for mode in args.modes.split(","):
                    scratch_dir = tmp / f"{mode}-{size}"
                    scratch_dir.mkdir()
                    seconds = args.full_seconds if mode == "full" else args.seconds
                    r = shared_crawl(server, scratch_dir, mode, seconds, extra)
                    a, b = r["visited"]
                    codes = "" if max(r["codes"]) in (0, 130) else f"  (exit codes {r['codes']})"
                    print(
                        f"{size:>8,} {mode:>11} {a:>10,} {b:>10,} {r['seconds']:>8.1f}  {r['joined']}{codes}",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
