"""A full run's crawl as the benchmarks run and read it: fresh stores, the real web's pace, one crawl process or
several sharing a frontier in Redis, each held to a CPU share if asked; then its figures over time."""

import os
import statistics
from pathlib import Path

from bench.cgroups import cpu_cap
from landing import settings as defaults
from landing_dev import runner
from landing_dev.runner import Sample

FULL_RUN = 500_000
# The real web's pace: under a sandbox a crawl starts its hosts at no delay and its DOIs at no rate
# (landing.crawl.endpoints).
REAL_PACE = {
    "AUTOTHROTTLE_START_DELAY": defaults.AUTOTHROTTLE_START_DELAY,
    "LANDING_RESOLVER_RATE": defaults.LANDING_RESOLVER_RATE,
}


def mb(n: float) -> str:
    return f"{n / 1e6:,.0f} MB"


def crawl(
    proxy: str,
    scratch: Path,
    extra: list[str],
    limit: int | None,
    time_limit: float | None,
    server: runner.SandboxProcess,
    workers: int = 1,
    redis_url: str | None = None,
    cores: float | None = None,
) -> dict:
    """One crawl process, or `workers` sharing the frontier in Redis at redis_url; figures summed over them."""
    settings = {"LANDING_PROGRESS_INTERVAL": 5, **REAL_PACE}
    if redis_url:
        settings |= {"LANDING_FRONTIER_REDIS": redis_url, "LANDING_WORKERS": workers}
    command = runner.crawl_command(proxy, runner.Stores.under(scratch), settings, extra)
    print(f"crawl ({workers} process{'es' if workers > 1 else ''}):", " ".join(command), flush=True)
    server_cpu = server.cpu()
    caps = [cpu_cap(f"landing-bench-{os.getpid()}-{i}", cores) if cores else None for i in range(workers)]
    try:
        crawls = [
            runner.Crawl(command, scratch / f"crawl-{i}.log", preexec_fn=cap[1] if cap else None)
            for i, cap in enumerate(caps)
        ]
        seen = runner.watch(crawls, limit, time_limit)
    finally:
        for cap in caps:
            if cap:
                try:
                    cap[0].rmdir()  # empty once its processes have ended
                except OSError as error:
                    print(f"# could not remove {cap[0]}: {error}", flush=True)
    texts = [c.text() for c in crawls]
    return {
        "events": seen.events,
        "samples": seen.samples,
        "seconds": seen.seconds,
        "stopped": seen.stopped,
        "code": max(seen.codes),
        "server_cpu": server.cpu() - server_cpu,
        "errors": sum(runner.stat(text, "log_count/ERROR") for text in texts),
        "browser": sum(runner.stat(text, "landing/browser/sent") for text in texts),
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
