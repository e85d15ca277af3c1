"""Benchmark: at real-web latency, how close does the sampler come to what its own politeness limits allow?

    .venv/bin/python bench/limits.py [--dois 100000] [--worlds DIR] [--latency-ms 200] [--set NAME=VALUE ...]

Crawls the --dois world of bench/scaling.py (100,000 DOIs, 1,000 sites, seed 1) served at --latency-ms, as a
user does, with `scrapy crawl doi_sampler`. Then reads the crawl's own record (every snapshot's hops, from its
store) and works out the shortest time the crawl's limits allow for exactly those requests, at that latency:

- the resolver's slot: its requests x latency / its concurrency (DOWNLOAD_SLOTS);
- the resolver's rate: its requests / LANDING_RESOLVER_RATE (the web's, set here: a sandbox has none);
- the global limit: every request x latency / CONCURRENT_REQUESTS;
- each publisher host: AutoThrottle sends one request per delay, the delay starting at AUTOTHROTTLE_START_DELAY
  and halving its way to latency / AUTOTHROTTLE_TARGET_CONCURRENCY with each 200 response (its rule: a redirect or
  an error never lowers it; counted as if the host's 200s came first, the fastest order), after the host's
  robots.txt; and at most CONCURRENT_REQUESTS_PER_DOMAIN at once. The busiest host bounds the crawl;
- the frontier: LANDING_FRONTIER DOIs at once, each one's hops one after another (Little's law).

The limits allow N DOIs in the longest of these; the crawl's visiting rate (progress lines, listing excluded) is
printed against that rate, and against the crawl's CPU: with a core's worth of CPU per DOI, a process cannot go
faster whatever its limits allow. The rate is read between progress lines (every 5 s), so only a crawl of minutes
gives a figure worth comparing: on the 3,000-DOI world the window is one line apart and the ratio means nothing.
"""
import argparse
import json
import re
import sqlite3
import sys
import tempfile
from collections import Counter
from datetime import datetime
from pathlib import Path
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from scaling import crawl, ensure_world, serve  # noqa: E402
from scrapy.settings import Settings  # noqa: E402

from landing import settings as defaults  # noqa: E402
from landing.core.doi import RESOLVER_HOSTS  # noqa: E402

PROGRESS = re.compile(r"^(\S+ \S+) \[landing.sampler.progress\] INFO: progress: \d+ DOIs sampled, (\d+) visited")


def crawl_settings(pairs: list[str]) -> Settings:
    """The project's settings with the crawl's --set pairs over them, read as the crawl reads them."""
    settings = Settings()
    settings.setmodule(defaults)
    for pair in pairs:
        settings.set(*pair.split("=", 1))
    return settings


def hops(store: Path) -> list[list[tuple[str, int | None]]]:
    """Every snapshot's hops (URL, status), in order, from the crawl's SQLite store."""
    db = sqlite3.connect(store)
    chains = [[(hop["url"], hop.get("status")) for hop in json.loads(doc)["snapshot/urls"] if hop.get("url")]
              for (doc,) in db.execute("SELECT doc FROM docs WHERE kind = 'snapshot'")]
    db.close()
    return chains


def host_seconds(n: int, ok: int, latency: float, start: float, target: float, per_host: int) -> float:
    """The shortest time a host's slot takes for n requests, `ok` of them answered 200, under AutoThrottle (and
    its concurrency): only a 200 lowers the delay, so the fastest order has them first."""
    delay, paced = start, 0.0
    for i in range(n - 1):
        paced += delay
        if i < ok:
            delay = max(target, (delay + target) / 2)
    return max(paced + latency, n * latency / per_host)


def allowed(chains: list[list[tuple[str, int | None]]], requests: int, latency: float, settings: Settings) -> dict:
    """Seconds each limit needs, at least, for these chains (and `requests` requests in all)."""
    per_host = Counter(urlsplit(url).hostname for chain in chains for url, _ in chain)
    ok = Counter(urlsplit(url).hostname for chain in chains for url, status in chain if status == 200)
    resolver = sum(n for host, n in per_host.items() if host in RESOLVER_HOSTS)
    target = latency / settings.getfloat("AUTOTHROTTLE_TARGET_CONCURRENCY")
    start, per_domain = settings.getfloat("AUTOTHROTTLE_START_DELAY"), settings.getint("CONCURRENT_REQUESTS_PER_DOMAIN")
    hosts = {host: host_seconds(n + 1, ok[host], latency, start, target, per_domain)  # + 1: its robots.txt
             for host, n in per_host.items() if host not in RESOLVER_HOSTS}
    busiest = max(hosts, key=hosts.get)
    rate = settings.getfloat("LANDING_RESOLVER_RATE")
    return {"resolver": resolver * latency / settings.getdict("DOWNLOAD_SLOTS")["doi.org"]["concurrency"],
            "resolver rate": resolver / rate if rate else 0.0,
            "global": requests * latency / settings.getint("CONCURRENT_REQUESTS"),
            f"busiest host ({busiest}, {per_host[busiest]} requests)": hosts[busiest],
            "frontier": sum(len(c) for c in chains) * latency / settings.getint("LANDING_FRONTIER")}


def visiting(log: str) -> tuple[float, int]:
    """(seconds, DOIs) between the first progress line with a visit and the last one."""
    lines = [(datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S"), int(m.group(2)))
             for m in map(PROGRESS.match, log.splitlines()) if m]
    lines = [line for line in lines if line[1] > 0]
    (t0, v0), (t1, v1) = lines[0], lines[-1]
    return (t1 - t0).total_seconds(), v1 - v0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dois", type=int, default=100000)
    parser.add_argument("--worlds", help="keep the world here and reuse it (bench/scaling.py's folder)")
    parser.add_argument("--latency-ms", type=float, default=200)
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a crawl setting")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        world = ensure_world(Path(args.worlds or tmp), args.dois)
        server, proxy = serve(world, args.latency_ms)
        scratch = Path(tmp) / "crawl"
        scratch.mkdir()
        try:
            # The real web's pace: under a sandbox hosts start at no delay and the resolver has no rate.
            pace = [f"AUTOTHROTTLE_START_DELAY={defaults.AUTOTHROTTLE_START_DELAY}",
                    f"LANDING_RESOLVER_RATE={defaults.LANDING_RESOLVER_RATE}"]
            result = crawl(proxy, scratch, [x for pair in pace + args.set for x in ("-s", pair)], server)
        finally:
            server.terminate()
            server.wait()
        log = (scratch / "crawl.log").read_text()
        requests = int(re.findall(r"'downloader/request_count': (\d+)", log)[-1])
        seconds, dois = visiting(log)
        chains = hops(scratch / "landing.db")
    latency = args.latency_ms / 1000
    bounds = allowed(chains, requests, latency, crawl_settings(pace + args.set))
    limit_rate = result["dois"] / max(bounds.values())
    rate, cpu_rate = dois / seconds, result["dois"] / result["cpu"]
    print(f"{result['dois']:,} DOIs, {requests:,} requests, {len(chains):,} snapshots at {args.latency_ms:g} ms; "
          f"settings: {' '.join(args.set) or 'defaults'}")
    for name, needed in sorted(bounds.items(), key=lambda kv: -kv[1]):
        print(f"  {name:<60} needs {needed:7.1f} s: {result['dois'] / needed:7.1f} DOIs/s")
    print(f"the limits allow {limit_rate:.1f} DOIs/s; the crawl visited {rate:.1f} DOIs/s "
          f"({dois:,} DOIs in {seconds:.0f} s, listing excluded): {rate / limit_rate:.0%} of it")
    print(f"the crawl's CPU: {result['cpu'] * 1000 / result['dois']:.1f} ms per DOI, so one core allows "
          f"{cpu_rate:.1f} DOIs/s; the crawl made {rate / min(cpu_rate, limit_rate):.0%} of the lower of the two")


if __name__ == "__main__":
    main()
