"""Benchmark: does the sampler keep its speed and its memory as the world grows? A small and a large world, one run.

    .venv/bin/python bench/scaling.py [--small 3000] [--large 100000] [--worlds DIR] [--rounds 1]
                                      [--set NAME=VALUE ...]

Generates (or reuses, under --worlds) a --small-DOI and a --large-DOI world (seed 1), serves each with
`scrapy sandbox serve` in its own process at 0 ms latency, and crawls each with `scrapy crawl doi_sampler` as a
user does, into fresh stores, alternating small and large for --rounds rounds so both share the machine's noise.
Per crawl: DOIs visited (its last progress line), wall seconds, DOIs/s, CPU milliseconds per DOI of the crawl's
process tree (Chromium included, the sandbox server not), peak RSS of that tree (sampled every 0.5 s) and the
sandbox server's CPU seconds. Last, the ratios the full run asks for: large/small DOIs/s and peak RSS.
"""

import argparse
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[1]
PROGRESS = re.compile(r"progress: (\d+) DOIs sampled, (\d+) visited")


def _tree(process):
    try:
        return [process, *process.children(recursive=True)]
    except psutil.Error:
        return []


def _rss(process) -> int:
    total = 0
    for member in _tree(process):
        try:
            total += member.memory_info().rss
        except psutil.Error:
            pass
    return total


def ensure_world(root: Path, size: int) -> Path:
    """The size-DOI world (seed 1) under root, generated unless it is there already."""
    world = root / f"w{size}"
    if not (world / "truth.jsonl").exists():
        print(f"generating a {size:,}-DOI world ...", flush=True)
        subprocess.run(
            [sys.executable, "-m", "scrapy", "sandbox", "generate", str(world), "--dois", str(size), "--seed", "1"],
            cwd=REPO,
            check=True,
            capture_output=True,
        )
    return world


def serve(world: Path, latency_ms: float = 0):
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "scrapy",
            "sandbox",
            "serve",
            str(world),
            "--port",
            "0",
            "--latency-ms",
            str(latency_ms),
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    return server, server.stdout.readline().strip()


def crawl(proxy: str, scratch: Path, extra: list[str], server) -> dict:
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
        f"LANDING_UNWRITTEN_DIR={scratch / 'unwritten'}",
        "-s",
        "TELNETCONSOLE_ENABLED=False",
        *extra,
    ]
    log = scratch / "crawl.log"
    server_cpu = sum(psutil.Process(server.pid).cpu_times()[:2])
    # The crawl's exact CPU: what this process's reaped children used (the crawl, and what it reaped itself).
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started, peak = time.monotonic(), 0
    with open(log, "w") as err:
        process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=err)
        watched = psutil.Process(process.pid)
        while process.poll() is None:
            peak = max(peak, _rss(watched))
            time.sleep(0.5)
    seconds = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    text = log.read_text()
    if process.returncode != 0:
        sys.exit(f"crawl failed ({process.returncode}):\n{text[-2000:]}")
    visited = int(PROGRESS.findall(text)[-1][1])
    return {
        "dois": visited,
        "seconds": seconds,
        "cpu": cpu,
        "peak": peak,
        "server_cpu": sum(psutil.Process(server.pid).cpu_times()[:2]) - server_cpu,
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
            worlds[size] = ensure_world(root, size)
        servers = {size: serve(world) for size, world in worlds.items()}
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
                    r = crawl(servers[size][1], scratch, extra, servers[size][0])
                    results[size].append(r)
                    print(
                        f"{size:>10,} {r['dois']:>7,} {r['seconds']:>8.1f} {r['dois'] / r['seconds']:>7.1f} "
                        f"{r['cpu'] * 1000 / r['dois']:>11.1f} {r['peak'] / 2**20:>6.0f} MB {r['server_cpu']:>13.1f}",
                        flush=True,
                    )
        finally:
            for server, _ in servers.values():
                server.terminate()
                server.wait()
    rate = {size: sum(r["dois"] for r in rs) / sum(r["seconds"] for r in rs) for size, rs in results.items()}
    peak = {size: max(r["peak"] for r in rs) for size, rs in results.items()}
    print(
        f"large/small: DOIs/s {rate[args.large] / rate[args.small]:.2f}, peak RSS "
        f"{peak[args.large] / peak[args.small]:.2f}"
    )


if __name__ == "__main__":
    main()
