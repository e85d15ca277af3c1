"""Benchmark (not a test): the doi_sampler's full run, on a world with the real registries' shape.

1. World: `scrapy sandbox generate DIR --owners N` (default 56,000 owners, whose full run samples ~500,000
   DOIs at LANDING_SAMPLE_MIN/MAX 10/100), timed, in a temporary folder; or --world DIR, reused when it holds
   a world, else generated there and kept.
2. Crawl: `scrapy sandbox serve DIR --latency-ms 200` in its own process, then `scrapy crawl doi_sampler`
   through it as a user runs it, into fresh stores, stopped with SIGINT once a progress line says
   --limit-dois DOIs visited or after --time-limit seconds (SIGKILL 120 s later). Every second: DOIs visited
   and requests (from the progress lines, which come every 5 s), RSS and CPU time of the crawl's process
   tree. Printed: DOIs/s, requests/s, CPU ms per DOI, peak RSS, RSS over time, and the time a 500,000-DOI
   run would take at the last half's rate (the first half's beside it, so a falling curve shows).
3. Reference: plain asyncio + aiohttp + lxml visiting as many of the world's DOIs, picked as the crawl picks
   them (owners in random order, each one's sample), through the same sandbox at the crawl's
   CONCURRENT_REQUESTS: GET https://doi.org/<doi>, Location hops followed by hand (at most 10), meta tags
   parsed. No robots.txt, retries, cookies or stores: what the machine and the sandbox allow.
With --workers N, N crawl processes share one frontier through a redis-server started here (LANDING_FRONTIER_REDIS,
LANDING_WORKERS=N) and one store; their figures are summed (RSS and CPU too). With --cpu-per-worker C, each crawl
process is held to C cores in a cgroup of its own, so N workers are measured as N machines of C cores would be.
The sandbox server shares the machine's cores with the crawler; its CPU seconds are printed per phase.

    .venv/bin/python -m bench.fullrun [--owners 56000] [--world DIR] [--limit-dois 10000] [--time-limit S]
                                      [--latency-ms 200] [--set NAME=VALUE ...] [--seed 1] [--workers N] [--keep]
                                      [--cpu-per-worker CORES] [--no-reference]
"""

import argparse
import os
import sys
from pathlib import Path

import psutil

from bench.crawls import crawl, mb, report_crawl
from bench.reference import report_reference, run_reference
from bench.scratch import scratch
from bench.worlds import full_world, plan, shape
from landing import settings as defaults
from landing_dev import runner
from landing_dev.sandbox.owners import FULL_OWNERS


def disk(directory: Path) -> int:
    return sum(p.stat().st_size for p in directory.rglob("*") if p.is_file())


def setting(extra: list[str], name: str):
    values = [e.split("=", 1)[1] for e in extra if e.startswith(name + "=")]
    return values[-1] if values else getattr(defaults, name)


def header(directory: Path, world: dict, generated, opts, minimum, maximum, concurrency, tmp: Path):
    cpu_model = next(
        (line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?"
    )
    print(
        f"# fullrun: {os.cpu_count()} CPUs ({cpu_model}), {mb(psutil.virtual_memory().total)} RAM, python "
        f"{sys.version.split()[0]}; load average {os.getloadavg()[0]:.1f} (the machine may be shared); scratch {tmp}"
    )
    print(
        f"# world {directory}: {world['members']:,} Crossref members + {world['clients']:,} DataCite clients, "
        f"{world['hosts']:,} hosts, {world['dois']:,} DOIs; a full run samples {world['sample']:,} "
        f"(min {minimum} / max {maximum}); {mb(disk(directory))} on disk"
        + (f"; generated in {generated:.0f} s" if generated else " (reused)")
    )
    print(
        f"# sandbox latency {opts.latency_ms:g} ms; CONCURRENT_REQUESTS {concurrency}; "
        f"{f'each crawl process held to {opts.cpu_per_worker:g} cores; ' if opts.cpu_per_worker else ''}limit "
        f"{opts.limit_dois or 'none'} DOIs, {opts.time_limit or 'no'} time limit; --set {opts.set or 'none'}",
        flush=True,
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--owners", type=int, default=FULL_OWNERS, help=f"owners of a generated world ({FULL_OWNERS:,})"
    )
    parser.add_argument("--seed", type=int, default=1, help="world seed, and the reference's owner order (1)")
    parser.add_argument("--world", help="a world to reuse; generated (and kept) there if it holds none")
    parser.add_argument(
        "--limit-dois", type=int, default=10_000, help="stop the crawl at this many DOIs visited (10,000; 0: no limit)"
    )
    parser.add_argument("--time-limit", type=float, help="stop the crawl after this many seconds")
    parser.add_argument("--latency-ms", type=float, default=200, help="sandbox latency per reply (200)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a crawl setting (repeat)")
    parser.add_argument(
        "--workers",
        default="1",
        help="crawl processes sharing one frontier in a Redis started "
        "here (1: one process, no Redis); a list (1,2) runs each "
        "in turn on fresh stores and compares them",
    )
    parser.add_argument(
        "--cpu-per-worker",
        type=float,
        metavar="CORES",
        help="hold each crawl process (and its children) to this many cores, in a cgroup of its "
        "own: scale-out measured as N machines of that size would see it (needs root)",
    )
    parser.add_argument("--no-reference", action="store_true", help="skip the aiohttp reference loop")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (world, stores, logs)")
    opts = parser.parse_args()
    minimum, maximum = int(setting(opts.set, "LANDING_SAMPLE_MIN")), int(setting(opts.set, "LANDING_SAMPLE_MAX"))
    concurrency = int(setting(opts.set, "CONCURRENT_REQUESTS"))
    with scratch("landing-fullrun-", opts.keep) as tmp:
        measure(opts, tmp, minimum, maximum, concurrency)


def measure(opts, tmp: Path, minimum: int, maximum: int, concurrency: int) -> None:
    directory = Path(opts.world).resolve() if opts.world else tmp / "world"
    server = redis = None
    try:
        generated = full_world(directory, opts.owners, opts.seed)
        world = shape(directory, minimum, maximum, opts.seed)
        header(directory, world, generated, opts, minimum, maximum, concurrency, tmp)
        server = runner.SandboxProcess(directory, opts.latency_ms, tmp / "serve.log")
        proxy = server.proxy
        extra = [x for pair in opts.set for x in ("-s", pair)]
        rates, visited = {}, 0
        for workers in [int(w) for w in opts.workers.split(",")]:
            scratch, redis_url = tmp / f"crawl-{workers}", None
            scratch.mkdir()
            if workers > 1:
                redis, redis_url = runner.redis_server(scratch)
            run = crawl(
                proxy,
                scratch,
                extra,
                opts.limit_dois,
                opts.time_limit,
                server,
                workers,
                redis_url,
                opts.cpu_per_worker,
            )
            if redis:
                runner.stop(redis, 10)
                redis = None
            steady = report_crawl(run)
            print(
                f"  sandbox server CPU during the crawl {run['server_cpu']:.0f} s "
                f"({run['server_cpu'] / run['seconds']:.0%} of one core)"
            )
            if steady:
                rates[workers] = steady
            visited = max(visited, run["events"][-1][2] if run["events"] else 0)
        if visited and not opts.no_reference:
            dois = plan(directory, world, visited)
            reference = run_reference(proxy, dois, concurrency, server)
            for workers, steady in rates.items():
                print(f"{workers} process{'es' if workers > 1 else ''}:", end=" ")
                report_reference(reference, len(dois), concurrency, steady, quiet=workers != min(rates))
        if len(rates) > 1:
            one = min(rates)
            for workers, steady in rates.items():
                if workers != one:
                    print(
                        f"{workers} processes / {one}: {steady['late'] / rates[one]['late']:.2f} times the "
                        f"DOIs/s (last halves)"
                    )
        print(f"# load average at the end {os.getloadavg()[0]:.1f}")
    except RuntimeError as error:  # a sandbox or redis-server that did not start
        sys.exit(f"fullrun: {error}")
    finally:
        if server:
            server.close()
        if redis:
            runner.stop(redis, 10)


if __name__ == "__main__":
    main()
