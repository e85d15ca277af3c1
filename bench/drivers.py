"""Benchmark (not a test): the default driver (`auto`) against `http`, on one world, crawled in turn A B A B.

    .venv/bin/python -m bench.drivers [--dois 100000] [--worlds DIR] [--latency-ms 200] [--rounds 2]
                                      [--time-limit S] [--set NAME=VALUE ...] [--keep]

The --dois world of bench/scaling.py (1,000 sites, seed 1; generated, or reused under --worlds) is served once at
--latency-ms, and its full run crawled as a user runs it (bench/fullrun.py's crawl: fresh stores, the real web's
pace), --rounds times with LANDING_DRIVER=auto then LANDING_DRIVER=http, so that both drivers meet the same
world and the same moments of a shared machine. Per crawl: DOIs visited, the steady rate (DOIs/s between 10% and
90% of the DOIs visited), the whole crawl's rate (start-up and tail included), CPU ms per DOI of the crawl's
process tree over the steady phase (Chromium included), peak PSS of that tree, and DOIs sent to Chromium. Last,
per driver the medians, and auto/http as the median of each round's ratio. --time-limit stops each crawl (SIGINT)
after S seconds, for a machine too busy to run whole crawls: the figures are then of the part crawled, and a
backlog of browser visits still waiting at the stop is not counted against auto.
"""

import argparse
import os
import statistics
from pathlib import Path

from bench.crawls import crawl, mb, sample_at
from bench.scratch import scratch
from bench.worlds import sized_world
from landing_dev.runner import SandboxProcess

DRIVERS = ("auto", "http")


def when(events, visited: float) -> float:
    """The time the crawl reached `visited` DOIs visited, linear between progress readings."""
    before = (0.0, 0, 0, 0)
    for event in events:
        if event[2] >= visited:
            (t0, _, v0, _), (t1, _, v1, _) = before, event
            return t0 + (t1 - t0) * (visited - v0) / (v1 - v0) if v1 > v0 else t1
        before = event
    return events[-1][0]


def figures(run: dict) -> dict | None:
    """A crawl's figures; None when it visited too little to have a steady phase."""
    events, samples = run["events"], run["samples"]
    visited = events[-1][2] if events else 0
    if visited < 100 or not samples:
        return None
    t10, t90 = when(events, 0.1 * visited), when(events, 0.9 * visited)
    a, b = sample_at(samples, t10), sample_at(samples, t90)
    return {
        "visited": visited,
        "steady": 0.8 * visited / max(t90 - t10, 1e-9),
        "whole": visited / run["seconds"],
        "cpu_ms": (b.tree_cpu - a.tree_cpu) * 1000 / max(b.visited - a.visited, 1),
        "pss": max(s.tree_pss for s in samples),
        "browser": run["browser"],
        "errors": run["errors"],
    }


def line(driver: str, n: int, f: dict) -> str:
    return (
        f"{driver:>5} #{n}: {f['visited']:,} DOIs, steady {f['steady']:.1f} DOIs/s, whole {f['whole']:.1f} DOIs/s, "
        f"{f['cpu_ms']:.1f} CPU ms per DOI (tree, steady), peak PSS {mb(f['pss'])}, {f['browser']} sent to "
        f"Chromium, {f['errors']} ERROR lines"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dois", type=int, default=100_000, help="DOIs of the world (100,000)")
    parser.add_argument("--worlds", help="where worlds are kept (generated there when missing)")
    parser.add_argument("--latency-ms", type=float, default=200, help="sandbox latency per reply (200)")
    parser.add_argument("--rounds", type=int, default=2, help="auto-then-http rounds (2)")
    parser.add_argument("--time-limit", type=float, help="stop each crawl after this many seconds (none)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a crawl setting (repeat)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (stores, logs)")
    opts = parser.parse_args()
    with scratch("landing-drivers-", opts.keep) as tmp:
        measure(opts, tmp)


def measure(opts, tmp: Path) -> None:
    world = sized_world(Path(opts.worlds).resolve() if opts.worlds else tmp, opts.dois)
    print(
        f"# drivers: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} (the machine may be shared); world "
        f"{world} ({opts.dois:,} DOIs), latency {opts.latency_ms:g} ms, {opts.rounds} rounds, time limit "
        f"{opts.time_limit or 'none'}, --set {opts.set or 'none'}",
        flush=True,
    )
    server = SandboxProcess(world, opts.latency_ms, tmp / "serve.log")
    extra = [x for pair in opts.set for x in ("-s", pair)]
    results = {driver: [] for driver in DRIVERS}
    try:
        for n in range(1, opts.rounds + 1):
            for driver in DRIVERS:
                scratch = tmp / f"{driver}-{n}"
                scratch.mkdir()
                run = crawl(
                    server.proxy,
                    scratch,
                    [*extra, "-s", f"LANDING_DRIVER={driver}"],
                    None,
                    opts.time_limit,
                    server,
                )
                found = figures(run)
                if found is None or run["code"]:
                    print(f"{driver} #{n}: exit {run['code']}, too little visited\n{run['tail']}", flush=True)
                    continue
                results[driver].append(found)
                print(line(driver, n, found), flush=True)
    finally:
        server.close()
    for driver, runs in results.items():
        if runs:
            med = {key: statistics.median(r[key] for r in runs) for key in ("steady", "whole", "cpu_ms", "pss")}
            print(
                f"median {driver:>5} ({len(runs)} crawls): steady {med['steady']:.1f} DOIs/s, whole {med['whole']:.1f} "
                f"DOIs/s, {med['cpu_ms']:.1f} CPU ms per DOI, peak PSS {mb(med['pss'])}"
            )
    pairs = list(zip(results["auto"], results["http"]))
    if pairs:
        steady = statistics.median(a["steady"] / h["steady"] for a, h in pairs)
        whole = statistics.median(a["whole"] / h["whole"] for a, h in pairs)
        print(f"auto/http (median of {len(pairs)} rounds): steady {steady:.2f}, whole {whole:.2f}")
    print(f"# load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
