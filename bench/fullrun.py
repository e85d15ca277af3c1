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

    .venv/bin/python bench/fullrun.py [--owners 56000] [--world DIR] [--limit-dois 10000] [--time-limit S]
                                      [--latency-ms 200] [--set NAME=VALUE ...] [--seed 1] [--workers N] [--keep]
                                      [--cpu-per-worker CORES] [--no-reference]
"""

import argparse
import asyncio
import os
import random
import re
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import NamedTuple

import aiohttp
import lxml.etree
import lxml.html
import psutil
from yarl import URL

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from cgroups import cpu_cap  # noqa: E402

from landing import settings as defaults  # noqa: E402
from landing.core.sampling import sample_size  # noqa: E402
from landing_dev.sandbox.generator import FULL_OWNERS  # noqa: E402
from landing_dev.sandbox.world import World  # noqa: E402

PROGRESS = re.compile(
    r"progress: (\d+) DOIs sampled, (\d+) visited \((\d+) pages, (\d+) failed\), "
    r"[\d.]+ DOIs/s, (\d+) requests"
)
FULL_RUN = 500_000
# The real web's pace: under a sandbox a crawl starts its hosts at no delay and its DOIs at no rate
# (landing.crawl.endpoints).
REAL_PACE = [
    "-s",
    f"AUTOTHROTTLE_START_DELAY={defaults.AUTOTHROTTLE_START_DELAY}",
    "-s",
    f"LANDING_RESOLVER_RATE={defaults.LANDING_RESOLVER_RATE}",
]
REDIRECTS = (301, 302, 303, 307, 308)


def mb(n: float) -> str:
    return f"{n / 1e6:,.0f} MB"


def disk(directory: Path) -> int:
    return sum(p.stat().st_size for p in directory.rglob("*") if p.is_file())


def scrapy(*args) -> list[str]:
    return [sys.executable, "-m", "scrapy", *map(str, args)]


# ---------------------------------------------------------------------------------------------- the world


def ensure_world(directory: Path, owners: int, seed: int) -> float | None:
    """Generate the world unless directory already holds one; the seconds it took, or None if reused."""
    if (directory / "world.json").exists():
        return None
    print(f"generating a {owners:,}-owner world (seed {seed}) in {directory} ...", flush=True)
    started = time.monotonic()
    done = subprocess.run(
        scrapy("sandbox", "generate", directory, "--owners", owners, "--seed", seed),
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    if done.returncode:
        sys.exit(f"generate failed ({done.returncode}):\n{done.stderr[-2000:]}")
    print(done.stdout.strip(), flush=True)
    return time.monotonic() - started


def shape(directory: Path, minimum: int, maximum: int, seed: int) -> dict:
    """Owners, DOIs, hosts and sample sizes of a world, and the owners in a random plan order."""
    world = World(directory)
    owners = [("crossref", m) for m in world.members] + [("datacite", c) for c in world.clients]
    counts = {key: world.count(*key) for key in owners}
    largest = {ra: max((n for (r, _), n in counts.items() if r == ra), default=0) for ra in ("crossref", "datacite")}
    sizes = {key: sample_size(n, largest[key[0]], minimum, maximum) for key, n in counts.items()}
    hosts = {key.split("/", 3)[2] for (key,) in world.db.execute("select key from route")}
    world.close()
    random.Random(seed).shuffle(owners)
    return {
        "members": len(world.members),
        "clients": len(world.clients),
        "dois": sum(counts.values()),
        "hosts": len(hosts),
        "sample": sum(sizes.values()),
        "order": owners,
        "sizes": sizes,
    }


def plan(directory: Path, world: dict, n: int) -> list[str]:
    """n DOIs as the crawl takes them: owner after owner in plan order, each owner's sample (its first DOIs)."""
    w, dois = World(directory), []
    for ra, owner in world["order"]:
        if len(dois) >= n:
            break
        dois += [r["doi"] for r in w.page(ra, owner, rows=world["sizes"][(ra, owner)])]
    w.close()
    return dois[:n]


# ---------------------------------------------------------------------------------------------- the crawl


def serve(directory: Path, latency_ms: float, log: Path):
    server = subprocess.Popen(
        scrapy("sandbox", "serve", directory, "--latency-ms", latency_ms),
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=open(log, "w"),
        text=True,
    )
    url = server.stdout.readline().strip()  # the one stdout line: the proxy URL
    if not url.startswith("http://"):
        server.kill()
        sys.exit(f"sandbox serve did not start (see {log}): {url!r}")
    return server, url


def stop(proc: subprocess.Popen, grace: float):
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def follow_log(stream, log: Path, events: list):
    """Copy the crawl's log to a file, keeping (time, sampled, visited, requests) of every progress line."""
    with open(log, "w", buffering=1) as out:  # line-buffered: the log can be watched while the crawl runs
        for line in stream:
            out.write(line)
            found = PROGRESS.search(line)
            if found:
                sampled, visited, _, _, requests = map(int, found.groups())
                events.append((time.monotonic(), sampled, visited, requests))


class Sample(NamedTuple):
    t: float
    visited: int
    requests: int
    rss: int  # the Scrapy process
    tree_rss: int  # the process tree, Chromium's processes included (shared pages counted in each)
    tree_pss: int  # the same, shared pages divided among the processes sharing them
    cpu: float  # seconds, the Scrapy process
    tree_cpu: float  # seconds, the tree (members that have gone keep their last reading)


def measure(proc: psutil.Process, cpu_seen: dict) -> tuple[int, int, int, float]:
    """(RSS, tree RSS, tree PSS, own CPU) now; cpu_seen keeps each tree member's latest CPU seconds."""
    rss = pss = own = mine = 0
    try:
        members = [proc, *proc.children(recursive=True)]
    except psutil.Error:  # the process has ended (one of several workers stops before the others)
        return 0, 0, 0, cpu_seen.get(proc.pid, 0.0)
    for member in members:
        try:
            memory, times = member.memory_full_info(), member.cpu_times()
        except psutil.Error:
            continue  # gone between listing and reading
        rss, pss = rss + memory.rss, pss + memory.pss
        cpu_seen[member.pid] = times.user + times.system
        if member.pid == proc.pid:
            own, mine = memory.rss, cpu_seen[member.pid]
    return own, rss, pss, mine


def start_redis(directory: Path) -> tuple[subprocess.Popen, str]:
    """Debian's redis-server on a free port, no persistence: the shared frontier of --workers N."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [
            "redis-server",
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(directory),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    import redis

    client, deadline = redis.Redis(port=port), time.monotonic() + 10
    while True:
        try:
            client.ping()
            return server, f"redis://127.0.0.1:{port}/0"
        except redis.ConnectionError:
            if server.poll() is not None or time.monotonic() > deadline:
                sys.exit("redis-server did not start (apt-get install redis-server)")
            time.sleep(0.05)


def crawl(
    proxy: str,
    scratch: Path,
    extra: list[str],
    limit: int | None,
    time_limit: float | None,
    server: psutil.Process,
    workers: int = 1,
    redis_url: str | None = None,
    cores: float | None = None,
) -> dict:
    """One crawl process, or `workers` sharing the frontier in Redis at redis_url; figures summed over them."""
    command = scrapy(
        "crawl",
        "doi_sampler",
        "-s",
        f"LANDING_SANDBOX={proxy}",
        "-s",
        f"LANDING_DOCS=sqlite:///{scratch}/landing.db",
        "-s",
        f"LANDING_BLOBS=file://{scratch}/blobs",
        "-s",
        f"LANDING_ARTIFACTS_DIR={scratch}/artifacts",
        "-s",
        f"LANDING_UNWRITTEN_DIR={scratch}/unwritten",
        "-s",
        "TELNETCONSOLE_ENABLED=False",
        "-s",
        "LANDING_PROGRESS_INTERVAL=5",
        *REAL_PACE,
        *extra,
    )
    if redis_url:
        command += ["-s", f"LANDING_FRONTIER_REDIS={redis_url}", "-s", f"LANDING_WORKERS={workers}"]
    print(f"crawl ({workers} process{'es' if workers > 1 else ''}):", " ".join(command), flush=True)
    logs = [scratch / f"crawl-{i}.log" for i in range(workers)]
    streams = [[] for _ in range(workers)]
    events, samples, cpu_seen = [], [], {}
    server_cpu = sum(server.cpu_times()[:2])
    started = time.monotonic()
    caps = [cpu_cap(f"landing-bench-{os.getpid()}-{i}", cores) if cores else None for i in range(workers)]
    procs = [
        subprocess.Popen(
            command,
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=cap[1] if cap else None,
        )
        for cap in caps
    ]
    readers = [
        threading.Thread(target=follow_log, args=(p.stderr, log, stream), daemon=True)
        for p, log, stream in zip(procs, logs, streams)
    ]
    for reader in readers:
        reader.start()
    watched, stopped = [psutil.Process(p.pid) for p in procs], None
    try:
        while any(p.poll() is None for p in procs):
            now = time.monotonic()
            latest = [stream[-1] if stream else (now, 0, 0, 0) for stream in streams]
            sampled, visited, requests = (sum(e[k] for e in latest) for k in (1, 2, 3))
            if not events or events[-1][1:] != (sampled, visited, requests):
                events.append((now, sampled, visited, requests))
            memory = [measure(w, cpu_seen) for w in watched]
            if any(m[0] for m in memory):
                samples.append(
                    Sample(
                        now - started,
                        visited,
                        requests,
                        *(sum(m[k] for m in memory) for k in range(4)),
                        sum(cpu_seen.values()),
                    )
                )
            if stopped is None and ((limit and visited >= limit) or (time_limit and now - started >= time_limit)):
                stopped = now
                for p in procs:  # one Ctrl-C: Scrapy finishes what is in flight and closes
                    p.send_signal(signal.SIGINT)
            if stopped is not None and now - stopped > 120:
                for p in procs:
                    p.kill()
            time.sleep(1)
    finally:
        for p in procs:
            if p.poll() is None:  # interrupted: leave no crawl behind
                p.kill()
                p.wait()
        for cap in caps:
            if cap:
                try:
                    cap[0].rmdir()  # empty once its processes have ended
                except OSError as error:
                    print(f"# could not remove {cap[0]}: {error}", flush=True)
    for reader in readers:
        reader.join(10)
    ended = time.monotonic()
    texts = [log.read_text() for log in logs]

    def total(pattern):
        return sum(int(m.group(1)) for text in texts if (m := re.search(pattern, text)))

    return {
        "events": [(t - started, s, v, r) for t, s, v, r in events],
        "samples": samples,
        "seconds": ended - started,
        "stopped": (stopped or ended) - started,
        "code": max(p.returncode for p in procs),
        "server_cpu": sum(server.cpu_times()[:2]) - server_cpu,
        "errors": total(r"'log_count/ERROR': (\d+)"),
        "browser": total(r"'landing/browser/sent': (\d+)"),
        "tail": texts[0][-3000:],
    }


def at(events, t: float) -> tuple[float, float]:
    """(visited, requests) at time t, linear between progress lines."""
    before = [e for e in events if e[0] <= t] or [(0, 0, 0, 0)]
    after = [e for e in events if e[0] >= t] or [events[-1]]
    (t0, _, v0, r0), (t1, _, v1, r1) = before[-1], after[0]
    share = (t - t0) / (t1 - t0) if t1 > t0 else 0
    return v0 + share * (v1 - v0), r0 + share * (r1 - r0)


def sample_at(samples, t: float) -> Sample:
    return next((s for s in samples if s.t >= t), samples[-1])


def report_crawl(run: dict):
    """Print the crawl's figures; its steady state {"late": the last half's DOIs/s}, or None."""
    events = [e for e in run["events"] if e[0] <= run["stopped"] + 0.5]  # the lines before the SIGINT
    final = run["events"][-1] if run["events"] else (0, 0, 0, 0)
    visited, requests, samples = final[2], final[3], run["samples"]
    print(
        f"crawl exit {run['code']}: {final[1]:,} DOIs sampled, {visited:,} visited, {requests:,} requests in "
        f"{run['seconds']:.0f} s (stop asked at {run['stopped']:.0f} s); {run['browser']} DOIs sent to the browser; "
        f"{run['errors']} ERROR log lines"
    )
    if not visited or not samples:
        print(run["tail"])
        return None
    last = samples[-1]
    print(
        f"  overall: {visited / run['seconds']:.1f} DOIs/s, {requests / run['seconds']:.1f} requests/s, "
        f"{requests / visited:.2f} requests/DOI; CPU {last.tree_cpu:.0f} s = {last.tree_cpu * 1000 / visited:.1f} ms "
        f"per DOI for the tree ({last.cpu * 1000 / visited:.1f} ms the Scrapy process), start-up and shutdown in"
    )
    print(
        f"  peak RSS: Scrapy process {mb(max(s.rss for s in samples))}, tree {mb(max(s.tree_rss for s in samples))} "
        f"(PSS {mb(max(s.tree_pss for s in samples))})"
    )
    first = next((e for e in events if e[2] > 0), None)
    steady = None
    if first and events[-1][0] - first[0] >= 10:
        a, b = first[0], events[-1][0]
        mid = (a + b) / 2
        (va, ra), (vm, _), (vb, rb) = at(events, a), at(events, mid), at(events, b)
        early, late = (vm - va) / (mid - a), (vb - vm) / (b - mid)
        sa, sb = sample_at(samples, a), sample_at(samples, b)
        cpu_ms = (sb.tree_cpu - sa.tree_cpu) * 1000 / max(sb.visited - sa.visited, 1)
        half = [x for x in samples if mid <= x.t <= b]
        # A least-squares slope: two readings of RSS alone would be at the allocator's mercy.
        growth = (
            statistics.linear_regression([x.visited for x in half], [x.rss for x in half]).slope
            if len({x.visited for x in half}) > 1
            else 0.0
        )
        steady = {"late": late}
        print(
            f"  visiting, {a:.0f}-{b:.0f} s (before: listing the owners, storing the plan): "
            f"{(vb - va) / (b - a):.1f} DOIs/s, {(rb - ra) / (b - a):.1f} requests/s, "
            f"{cpu_ms:.1f} CPU ms per DOI (tree)"
        )
        print(
            f"  first half {early:.1f} DOIs/s, last half {late:.1f} DOIs/s ({late / early - 1:+.0%}); Scrapy RSS "
            f"{growth * 10_000 / 1e6:+.1f} MB per 10,000 DOIs over the last half"
        )
        if late > 0:
            hours = (a + FULL_RUN / late) / 3600
            print(
                f"  projection: {FULL_RUN:,} DOIs in {hours:.1f} h ({a:.0f} s of listing, then the last half's "
                f"rate); Scrapy RSS ~{mb(sb.rss + growth * (FULL_RUN - vb))} if it grows on as in the last half"
            )
    print(
        f"  {'time':>7} {'visited':>8} {'requests':>9} {'DOIs/s':>7} {'RSS':>8} {'tree RSS':>9} {'tree PSS':>9} "
        f"{'tree CPU':>9}"
    )
    previous = Sample(0, 0, 0, 0, 0, 0, 0, 0)
    for tenth in range(1, 11):
        row = sample_at(samples, last.t * tenth / 10 - 0.5)
        rate = (row.visited - previous.visited) / max(row.t - previous.t, 1e-9)
        print(
            f"  {row.t:6.0f}s {row.visited:8,} {row.requests:9,} {rate:7.1f} {mb(row.rss):>8} {mb(row.tree_rss):>9} "
            f"{mb(row.tree_pss):>9} {row.tree_cpu:8.0f}s"
        )
        previous = row
    return steady


# ---------------------------------------------------------------------------------------------- the reference


async def visit(session, proxy: str, doi: str, tally: dict):
    url = URL(f"https://doi.org/{doi}")
    for hop in range(11):
        async with session.get(url, proxy=proxy, allow_redirects=False) as reply:
            tally["requests"] += 1
            location = reply.headers.get("Location")
            if reply.status in REDIRECTS and location and hop < 10:
                url = url.join(URL(location))
                continue
            body = await reply.read()
            if reply.headers.get("Content-Type", "").startswith("text/html") and body:
                page = lxml.html.document_fromstring(body)
                tally["meta"] += len(page.xpath("//meta[@name or @property]"))
            tally[reply.status] = tally.get(reply.status, 0) + 1
            return


async def reference(proxy: str, dois: list[str], concurrency: int) -> dict:
    tally = {"requests": 0, "meta": 0, "failed": 0}
    queue = iter(dois)

    async def worker(session):
        for doi in queue:
            try:
                await visit(session, proxy, doi, tally)
            except (TimeoutError, aiohttp.ClientError, ValueError, lxml.etree.LxmlError):
                tally["failed"] += 1

    connector = aiohttp.TCPConnector(limit=concurrency, ssl=False)  # the sandbox's certificate is self-signed
    async with aiohttp.ClientSession(
        connector=connector, cookie_jar=aiohttp.DummyCookieJar(), timeout=aiohttp.ClientTimeout(total=30)
    ) as session:
        await asyncio.gather(*(worker(session) for _ in range(concurrency)))
    return tally


def run_reference(proxy: str, dois: list[str], concurrency: int, server: psutil.Process) -> dict:
    server_cpu, own = sum(server.cpu_times()[:2]), resource.getrusage(resource.RUSAGE_SELF)
    started = time.monotonic()
    tally = asyncio.run(reference(proxy, dois, concurrency))
    seconds, after = time.monotonic() - started, resource.getrusage(resource.RUSAGE_SELF)
    cpu = after.ru_utime + after.ru_stime - own.ru_utime - own.ru_stime
    return {"seconds": seconds, "tally": tally, "cpu": cpu, "server_cpu": sum(server.cpu_times()[:2]) - server_cpu}


# ---------------------------------------------------------------------------------------------- main


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


def report_reference(ref: dict, n: int, concurrency: int, steady, quiet=False):
    tally, rate = ref["tally"], n / ref["seconds"]
    if quiet:  # printed once already: only the ratio
        print(f"crawl/reference: {steady['late'] / rate:.2f}")
        return
    statuses = ", ".join(f"{k}:{v}" for k, v in sorted((k, v) for k, v in tally.items() if isinstance(k, int)))
    print(
        f"reference (aiohttp + lxml, concurrency {concurrency}): {n:,} DOIs in {ref['seconds']:.0f} s, "
        f"{rate:.1f} DOIs/s, {tally['requests'] / ref['seconds']:.1f} requests/s, {tally['requests'] / n:.2f} "
        f"requests/DOI; final statuses {statuses}; {tally['failed']} failed"
    )
    print(
        f"  client CPU {ref['cpu']:.0f} s = {ref['cpu'] * 1000 / n:.1f} ms per DOI; sandbox server CPU "
        f"{ref['server_cpu']:.0f} s ({ref['server_cpu'] / ref['seconds']:.0%} of one core)"
    )
    if steady:
        print(f"crawl/reference: {steady['late'] / rate:.2f} (the crawl's last-half rate over the reference's)")


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
    tmp = Path(tempfile.mkdtemp(prefix="landing-fullrun-"))
    directory = Path(opts.world).resolve() if opts.world else tmp / "world"
    server = redis = None
    try:
        generated = ensure_world(directory, opts.owners, opts.seed)
        world = shape(directory, minimum, maximum, opts.seed)
        header(directory, world, generated, opts, minimum, maximum, concurrency, tmp)
        server, proxy = serve(directory, opts.latency_ms, tmp / "serve.log")
        watched = psutil.Process(server.pid)
        extra = [x for pair in opts.set for x in ("-s", pair)]
        rates, visited = {}, 0
        for workers in [int(w) for w in opts.workers.split(",")]:
            scratch, redis_url = tmp / f"crawl-{workers}", None
            scratch.mkdir()
            if workers > 1:
                redis, redis_url = start_redis(scratch)
            run = crawl(
                proxy,
                scratch,
                extra,
                opts.limit_dois,
                opts.time_limit,
                watched,
                workers,
                redis_url,
                opts.cpu_per_worker,
            )
            if redis:
                stop(redis, 10)
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
            reference = run_reference(proxy, dois, concurrency, watched)
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
    finally:
        if server:
            stop(server, 10)
        if redis:
            stop(redis, 10)
        if opts.keep:
            print(f"# kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
