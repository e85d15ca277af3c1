"""Benchmark: at real-web latency, how close does the sampler come to what its own politeness limits allow?

    .venv/bin/python -m bench.limits [--dois 100000] [--worlds DIR] [--latency-ms 200] [--set NAME=VALUE ...]
                                     [--workers 1,2]

Crawls the --dois world of bench/scaling.py (100,000 DOIs, 1,000 sites, seed 1) served at --latency-ms, as a
user does, with `scrapy crawl doi_sampler`: with each --workers N in turn (default 1), N processes sharing one
frontier through a redis-server started here, as bench/fullrun.py runs them (LANDING_WORKERS=N splits the
per-host limits and the resolver's rate among them, so together they are held to one process's limits). Then
reads the crawl's own record (every snapshot's hops, from its store) and works out the shortest time the crawl's
limits allow for exactly those requests, at that latency:

- the resolver's slot: its requests x latency / its concurrency (DOWNLOAD_SLOTS);
- the resolver's rate: its requests / LANDING_RESOLVER_RATE (the web's, set here: a sandbox has none);
- the global limit: every request x latency / CONCURRENT_REQUESTS;
- each publisher host: AutoThrottle sends one request per delay, the delay starting at AUTOTHROTTLE_START_DELAY
  and halving its way to latency / AUTOTHROTTLE_TARGET_CONCURRENCY with each 200 response (its rule: a redirect or
  an error never lowers it; counted as if the host's 200s came first, the fastest order), after the host's
  robots.txt; and at most CONCURRENT_REQUESTS_PER_DOMAIN at once. The busiest host bounds the crawl;
- the frontier: LANDING_FRONTIER DOIs at once, each one's hops one after another (Little's law).

The limits allow N DOIs in the longest of these; the crawl's visiting rate (progress lines, listing excluded) is
printed against that rate, and against the crawl's CPU over the same window: with a core's worth of CPU per DOI,
a process cannot go faster whatever its limits allow. The rate is read between progress lines (every 5 s), so
only a crawl of minutes gives a figure worth comparing: on the 3,000-DOI world the window is one line apart and
the ratio means nothing.

bench/service.py applies the same model to the page requests of the matching service (allowed_seconds,
page_limits), at the latency a lone client measures from the sandbox (lone_latency).
"""

import argparse
import http.client
import json
import re
import sqlite3
import ssl
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

from scrapy.settings import Settings

from bench.crawls import crawl, sample_at
from bench.worlds import sized_world
from landing import settings as defaults
from landing.core.pages.documents import upgraded
from landing.core.pids.doi import RESOLVER_HOSTS
from landing_dev import runner


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
    chains = [
        [(hop["url"], hop.get("status")) for hop in upgraded(json.loads(doc))["snapshot/hops"] if hop.get("url")]
        for (doc,) in db.execute("SELECT doc FROM docs WHERE kind = 'snapshot'")
    ]
    db.close()
    return chains


def host_seconds(n: int, ok: int, latency: float, start: float, target: float, per_host: int) -> float:
    """The shortest time a host's slot takes for n requests, `ok` of them answered 200, under AutoThrottle (and
    its concurrency): only a 200 lowers the delay, so the fastest order has them first. Each request waits the delay
    in force when the one before it went out, exactly (DOWNLOAD_DELAY_JITTER=0, landing/settings.py)."""
    delay, paced = start, 0.0
    for i in range(n - 1):
        paced += delay
        if i < ok:
            delay = max(target, (delay + target) / 2)
    return max(paced + latency, n * latency / per_host)


def lone_latency(proxy: str, urls: list[str]) -> float:
    """The median seconds to the headers of each of `urls` (one host), asked one after another on one keep-alive
    connection through the sandbox at `proxy` (a tunnel for https): the latency AutoThrottle measures, without a
    crawler around it. The sandbox adds its --latency-ms to its own time (the proxy, TLS, the page)."""
    host, target = urlsplit(proxy), urlsplit(urls[0])
    if target.scheme == "https":
        context = ssl.create_default_context()
        context.check_hostname, context.verify_mode = False, ssl.CERT_NONE  # the sandbox's own certificates
        connection = http.client.HTTPSConnection(host.hostname, host.port, context=context, timeout=30)
        connection.set_tunnel(target.hostname, target.port or 443)
    else:
        connection = http.client.HTTPConnection(host.hostname, host.port, timeout=30)
    seconds = []
    try:
        for url in urls:
            parts = urlsplit(url)
            began = time.perf_counter()
            path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
            connection.request("GET", path if target.scheme == "https" else url)
            response = connection.getresponse()
            seconds.append(time.perf_counter() - began)
            response.read()
    finally:
        connection.close()
    return statistics.median(seconds[1:] or seconds)  # the first one opens the tunnel


def allowed(chains: list[list[tuple[str, int | None]]], requests: int, latency: float, settings: Settings) -> dict:
    """Seconds each limit needs, at least, for these chains (and `requests` requests in all)."""
    per_host = Counter(urlsplit(url).hostname for chain in chains for url, _ in chain)
    ok = Counter(urlsplit(url).hostname for chain in chains for url, status in chain if status == 200)
    resolver = sum(n for host, n in per_host.items() if host in RESOLVER_HOSTS)
    target = latency / settings.getfloat("AUTOTHROTTLE_TARGET_CONCURRENCY")
    start, per_domain = settings.getfloat("AUTOTHROTTLE_START_DELAY"), settings.getint("CONCURRENT_REQUESTS_PER_DOMAIN")
    hosts = {
        host: host_seconds(n + 1, ok[host], latency, start, target, per_domain)  # + 1: its robots.txt
        for host, n in per_host.items()
        if host not in RESOLVER_HOSTS
    }
    busiest = max(hosts, key=hosts.get)
    rate = settings.getfloat("LANDING_RESOLVER_RATE")
    return {
        "resolver": resolver * latency / settings.getdict("DOWNLOAD_SLOTS")["doi.org"]["concurrency"],
        "resolver rate": resolver / rate if rate else 0.0,
        "global": requests * latency / settings.getint("CONCURRENT_REQUESTS"),
        f"busiest host ({busiest}, {per_host[busiest]} requests)": hosts[busiest],
        "frontier": sum(len(c) for c in chains) * latency / settings.getint("LANDING_FRONTIER"),
    }


def allowed_seconds(requests: list[tuple[str, int]], latency: float, settings) -> dict:
    """The shortest time each politeness limit allows for exactly these requests, (URL, status) as a sandbox logged
    them (bench/service.py's page step), at `latency`."""
    per_host, ok = {}, {}
    for url, status in requests:
        host = urlsplit(url).hostname
        per_host[host] = per_host.get(host, 0) + 1
        ok[host] = ok.get(host, 0) + (status == 200)
    slots = settings.getdict("DOWNLOAD_SLOTS")
    services = {host: n for host, n in per_host.items() if host in slots or host in RESOLVER_HOSTS}
    resolver = sum(n for host, n in services.items() if host in RESOLVER_HOSTS)
    target = latency / settings.getfloat("AUTOTHROTTLE_TARGET_CONCURRENCY")
    start, per_domain = settings.getfloat("AUTOTHROTTLE_START_DELAY"), settings.getint("CONCURRENT_REQUESTS_PER_DOMAIN")
    # Publishers' hosts under AutoThrottle; the resolver and the APIs in their own slots, which it leaves alone.
    hosts = {
        host: host_seconds(n, ok[host], latency, start, target, per_domain)
        for host, n in per_host.items()
        if host not in services
    }
    rate = settings.getfloat("LANDING_RESOLVER_RATE")
    bounds = {
        "resolver slot": resolver * latency / slots["doi.org"]["concurrency"],
        "resolver rate": resolver / rate if rate else 0.0,
        "global": len(requests) * latency / settings.getint("CONCURRENT_REQUESTS"),
    }
    for host, n in services.items():
        if host in slots and host not in RESOLVER_HOSTS:
            bounds[f"{host} slot ({n} requests)"] = n * latency / slots[host]["concurrency"]
    if hosts:
        busiest = max(hosts, key=hosts.get)
        bounds[f"busiest host ({busiest}, {per_host[busiest]} requests)"] = hosts[busiest]
    return bounds


def page_limits(asked: list[tuple[str, int]], inputs: int, rate: float, proxy: str, nominal: float, settings):
    """Print what each politeness limit allows for the page requests `asked`, and the service's `rate` against it.

    AutoThrottle paces a host at the latency it measures, which is the sandbox's --latency-ms plus its own time: a
    lone client's median (lone_latency, after the passes, the sandbox idle) is the model's latency."""
    services = set(settings.getdict("DOWNLOAD_SLOTS")) | set(RESOLVER_HOSTS)
    pages = Counter(urlsplit(url).hostname for url, _ in asked if urlsplit(url).hostname not in services)
    busiest = pages.most_common(1)[0][0] if pages else None
    latency = (
        lone_latency(proxy, [url for url, _ in asked if urlsplit(url).hostname == busiest][:41]) if pages else nominal
    )
    bounds = allowed_seconds(asked, latency, settings)
    limit = inputs / max(bounds.values())
    print(f"  the sandbox's latency to a lone client: {latency * 1000:.1f} ms ({nominal * 1000:g} ms nominal)")
    for name, needed in sorted(bounds.items(), key=lambda kv: -kv[1]):
        print(f"    {name:<58} needs {needed:6.1f} s: {inputs / needed:8.1f} inputs/s")
    at_nominal = inputs / max(allowed_seconds(asked, nominal, settings).values())
    print(
        f"  {len(asked):,} requests; the limits allow {limit:.1f} inputs/s; the first pass answered {rate:.1f}/s: "
        f"{rate / limit:.0%} of it ({rate / at_nominal:.0%} of the {at_nominal:.1f}/s the nominal latency allows)",
        flush=True,
    )


def visiting(run: dict) -> tuple[float, int, float]:
    """(seconds, DOIs, CPU seconds of the process trees) between the first progress line with a visit and the last."""
    events = [e for e in run["events"] if e[2] > 0]
    (t0, _, v0, _), (t1, _, v1, _) = events[0], events[-1]
    return t1 - t0, v1 - v0, sample_at(run["samples"], t1).tree_cpu - sample_at(run["samples"], t0).tree_cpu


def measure(world: Path, latency_ms: float, pairs: list[str], workers: int, tmp: Path):
    """Crawl the world with `workers` processes; print what the limits allow and what the crawl did."""
    server = runner.SandboxProcess(world, latency_ms)
    scratch = tmp / f"crawl-{workers}"
    scratch.mkdir()
    redis = runner.redis_server(scratch) if workers > 1 else None
    try:
        run = crawl(
            server.proxy,
            scratch,
            [x for pair in pairs for x in ("-s", pair)],
            None,
            None,
            server,
            workers,
            redis[1] if redis else None,
        )
    finally:
        server.close()
        if redis:
            runner.stop(redis[0], 10)
    if run["code"] != 0:
        sys.exit(f"crawl failed ({run['code']}):\n{run['tail']}")
    logs = [(scratch / f"crawl-{i}.log").read_text() for i in range(workers)]
    requests = sum(int(re.findall(r"'downloader/request_count': (\d+)", log)[-1]) for log in logs)
    seconds, dois, cpu = visiting(run)
    chains = hops(scratch / "landing.db")
    # The real web's pace, as bench/fullrun.py sets it: a sandbox has none of its own (landing.crawl.endpoints).
    pace = [
        f"AUTOTHROTTLE_START_DELAY={defaults.AUTOTHROTTLE_START_DELAY}",
        f"LANDING_RESOLVER_RATE={defaults.LANDING_RESOLVER_RATE}",
    ]
    # One process's limits: N workers split them (landing.sampler.lead_election.share_hosts) and are held to the sum.
    bounds = allowed(chains, requests, latency_ms / 1000, crawl_settings(pace + pairs))
    visited = run["events"][-1][2]
    limit_rate = visited / max(bounds.values())
    rate, cpu_rate = dois / seconds, dois / cpu * workers
    print(
        f"{workers} process{'es' if workers > 1 else ''}: {visited:,} DOIs, {requests:,} requests, "
        f"{len(chains):,} snapshots at {latency_ms:g} ms; settings: {' '.join(pairs) or 'defaults'}"
    )
    for name, needed in sorted(bounds.items(), key=lambda kv: -kv[1]):
        print(f"  {name:<60} needs {needed:7.1f} s: {visited / needed:7.1f} DOIs/s")
    print(
        f"  the limits allow {limit_rate:.1f} DOIs/s; the crawl visited {rate:.1f} DOIs/s "
        f"({dois:,} DOIs in {seconds:.0f} s, listing excluded): {rate / limit_rate:.0%} of it"
    )
    print(
        f"  the crawl's CPU while visiting: {cpu * 1000 / dois:.1f} ms per DOI, so "
        f"{'one core allows' if workers == 1 else f'{workers} cores allow'} {cpu_rate:.1f} DOIs/s; the crawl made "
        f"{rate / min(cpu_rate, limit_rate):.0%} of the lower of the two",
        flush=True,
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dois", type=int, default=100000)
    parser.add_argument("--worlds", help="keep the world here and reuse it (bench/scaling.py's folder)")
    parser.add_argument("--latency-ms", type=float, default=200)
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a crawl setting")
    parser.add_argument("--workers", default="1", help="crawl processes sharing one frontier, each count in turn")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        world = sized_world(Path(args.worlds or tmp), args.dois)
        for workers in [int(n) for n in args.workers.split(",")]:
            measure(world, args.latency_ms, args.set, workers, Path(tmp))


if __name__ == "__main__":
    main()
