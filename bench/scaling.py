"""Benchmark: does the sampler keep its speed and its memory as the world grows? A small and a large world, one run.

    .venv/bin/python -m bench.scaling [--small 3000] [--large 100000] [--worlds DIR] [--rounds 1]
                                      [--set NAME=VALUE ...]

Generates (or reuses, under --worlds) a --small-DOI and a --large-DOI world (seed 1), serves each with
`scrapy sandbox serve` in its own process at 0 ms latency, and crawls each with `scrapy crawl doi_sampler` as a
user does, into fresh stores, alternating small and large for --rounds rounds so both share the machine's noise.
Per crawl: DOIs visited (its last progress line), wall seconds, DOIs/s, CPU milliseconds per DOI of the crawl's
process tree (Chromium included, the sandbox server not), peak RSS of that tree (sampled every 0.5 s) and the
sandbox server's CPU seconds. Last, the ratios the full run asks for: large/small DOIs/s and peak RSS.
"""

import argparse
import resource
import sys
import tempfile
from pathlib import Path

from bench.worlds import sized_world
from landing_dev import runner
from landing_dev.runner import SandboxProcess


def crawl(server: SandboxProcess, scratch: Path, extra: list[str]) -> dict:
    command = runner.crawl_command(server.proxy, runner.Stores.under(scratch), extra=extra)
    server_cpu = server.cpu()
    # The crawl's exact CPU: what this process's reaped children used (the crawl, and what it reaped itself).
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    running = runner.Crawl(command, scratch / "crawl.log")
    seen = runner.watch([running], every=0.5)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    text = running.text()
    if seen.codes[0] != 0:
        sys.exit(f"crawl failed ({seen.codes[0]}):\n{text[-2000:]}")
    return {
        "dois": running.events[-1][2],  # its last progress line, written as it closes
        "seconds": seen.seconds,
        "cpu": cpu,
        "peak": max(s.tree_rss for s in seen.samples),
        "server_cpu": server.cpu() - server_cpu,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=3000)
    parser.add_argument("--large", type=int, default=100000)
    parser.add_argument("--worlds", help="keep the worlds here and reuse them (default: a temporary folder)")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a crawl setting")
    args = parser.parse_args()
    extra = [arg for pair in args.set for arg in ("-s", pair)]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.worlds or tmp)
        worlds = {}
        for size in (args.small, args.large):
            worlds[size] = sized_world(root, size)
        servers = {size: SandboxProcess(world) for size, world in worlds.items()}
        results = {size: [] for size in worlds}
        print(
            f"{'world':>10} {'DOIs':>7} {'seconds':>8} {'DOIs/s':>7} {'CPU ms/DOI':>11} {'peak RSS':>9} "
            f"{'server CPU s':>13}   settings: {' '.join(args.set) or 'defaults'}"
        )
        try:
            for n in range(args.rounds):
                for size in worlds:
                    scratch = Path(tmp) / f"crawl-{size}-{n}"
                    scratch.mkdir()
                    r = crawl(servers[size], scratch, extra)
                    results[size].append(r)
                    print(
                        f"{size:>10,} {r['dois']:>7,} {r['seconds']:>8.1f} {r['dois'] / r['seconds']:>7.1f} "
                        f"{r['cpu'] * 1000 / r['dois']:>11.1f} {r['peak'] / 2**20:>6.0f} MB {r['server_cpu']:>13.1f}",
                        flush=True,
                    )
        finally:
            for server in servers.values():
                server.close()
    rate = {size: sum(r["dois"] for r in rs) / sum(r["seconds"] for r in rs) for size, rs in results.items()}
    peak = {size: max(r["peak"] for r in rs) for size, rs in results.items()}
    print(
        f"large/small: DOIs/s {rate[args.large] / rate[args.small]:.2f}, peak RSS "
        f"{peak[args.large] / peak[args.small]:.2f}"
    )


if __name__ == "__main__":
    main()
