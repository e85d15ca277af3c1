"""Continuous sampling over an evolving world: how soon moves show in the artifacts, and what a simulated day costs.

    .venv/bin/python -m bench.continuous [--dois 20000] [--sites 5] [--seed 1] [--days 30] [--speed 1440] [--latency-ms 200]
                                         [--moves 0.01] [--registry-moves 0.5] [--new-owners 2] [--new-prefixes 1]
                                         [--every 2]
                                         [--set NAME=VALUE ...] [--world DIR] [--keep] [--crawl-from DIR]

Generates an evolving world (`scrapy sandbox generate --evolve`: sites moving, owners and prefixes appearing, pages
losing meta tags, outages), serves it and runs `scrapy crawl doi_sampler -s LANDING_CONTINUOUS=1` through it, both
on one compressed clock (LANDING_CLOCK, LANDING_CLOCK_SPEED, LANDING_CLOCK_SINCE), for `--days` simulated days; then
a SIGTERM, which exports a last version. Sampled every `--every` real seconds: the crawl's RSS, the sizes of the
document store, the blobs and the artifacts, and the requests the sandbox answered. Printed: each move's delay until
a version names its (prefix, new domain) pairs, against LANDING_REFRESH_DAYS, and apart for the registry-visible
pairs (within 1 day: the registries list a DOI of the prefix on the new domain) and the others (within
LANDING_REFRESH_DAYS); new prefixes' delay until a version
names them; pairs the artifacts name that were never true; the prefixes' ages at the end; the hours between
versions and whether every version's files are still there; per prefix, the sites its visits reached against the
sites holding 5% of its DOIs or more, and its refresh rounds; requests (the crawl's and the sandbox's) and growth
per simulated day; RSS, second tenth against last tenth. bench/README.md "continuous.py" has the figures.
"""

import argparse
import os
import signal
import statistics
import subprocess
import sys
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import NamedTuple

import psutil

from bench.continuous_store import Served, gaps, intact, reached, rounds
from bench.crawls import REAL_PACE, mb
from bench.scratch import scratch
from landing import settings as defaults
from landing_dev import runner
from landing_dev.sandbox.timeline import Detection, Timeline, coverage, detections, moment, summary, wrong_pairs

STOP_GRACE = 600  # real seconds a SIGTERMed crawl may take to export its last version before it is killed
VISIBLE_DAYS = 1  # a registry-visible move should show within this many simulated days
LEAST_SHARE = 0.05  # a site holding this share of a prefix's DOIs should be seen by its visits


class Sizes(NamedTuple):
    at: datetime  # simulated time
    rss: int  # the crawl's process tree
    docs: int
    blobs: int
    artifacts: int
    served: int = 0  # requests the sandbox answered so far


def disk(path: Path) -> int:
    """Bytes of the files under a folder, or of a file and its SQLite companions (-wal, -shm)."""
    if path.is_dir():  # os.walk passes over a folder gone meanwhile (an export or a prune moves versions as it runs)
        return sum(_size(Path(root, name)) for root, _, names in os.walk(path) for name in names)
    return sum(_size(p) for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")))


def _size(path: Path) -> int:
    """A file's bytes; 0 for a folder or a file gone meanwhile."""
    try:
        return path.stat().st_size if path.is_file() else 0
    except FileNotFoundError:
        return 0


def version_time(name: str) -> datetime:
    """The simulated time a version's name gives (landing.artifacts.artifact_files: `YYYYMMDDTHHMMSSZ`, `-N` for the same
    second).

    >>> version_time("20300102T030405Z-1").isoformat()
    '2030-01-02T03:04:05+00:00'
    """
    return datetime.strptime(name.partition("-")[0], "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)


def per_day(series: list[tuple[datetime, float]], start: datetime, days: int) -> list[float | None]:
    """How much a growing figure grew each simulated day from `start`: its last value at or before each day's end
    less the one at or before its start (0 before the first reading); None for a day the readings do not reach.

    >>> t = datetime(2030, 1, 1, tzinfo=UTC)
    >>> per_day([(t + timedelta(hours=6), 10), (t + timedelta(hours=30), 25), (t + timedelta(hours=49), 40)], t, 3)
    [10, 15, None]
    """

    def at(moment: datetime) -> float:
        seen = [value for when, value in series if when <= moment]
        return seen[-1] if seen else 0

    reached = max((when for when, _ in series), default=start)
    return [
        at(start + timedelta(days=d + 1)) - at(start + timedelta(days=d))
        if reached >= start + timedelta(days=d + 1)
        else None
        for d in range(days)
    ]


def tenths(values: list[float]) -> tuple[float | None, float | None]:
    """The mean of the second tenth of a run's readings and of its last tenth (None when there are too few).

    >>> tenths(list(range(100)))
    (14.5, 94.5)
    """
    n = len(values)
    if n < 10:
        return None, None
    second, last = values[n // 10 : 2 * n // 10], values[9 * n // 10 :]
    return statistics.mean(second), statistics.mean(last)


def appearances(timeline: Timeline, versions: list[tuple[datetime, set]]) -> list[Detection]:
    """For each owner or prefix that appears, each of its prefixes: the first version at or after it naming the
    prefix (`versions`: (time, the prefixes the version names))."""
    ordered = sorted(versions, key=lambda v: v[0])
    found = []
    for event in timeline.events:
        if event["kind"] not in ("new-owner", "new-prefix"):
            continue
        named = event.get("prefixes", []) if event["kind"] == "new-owner" else [event["prefix"]]
        for prefix in named:
            shown = next((when for when, seen in ordered if when >= event["at"] and prefix in seen), None)
            found.append(Detection(event["at"], prefix, "", shown))
    return found


def by_move(found: list[Detection]) -> dict[tuple[datetime, str], list[Detection]]:
    """Detections grouped by move: (its time, the new domain) -> its prefixes' detections."""
    grouped: dict = {}
    for detection in found:
        grouped.setdefault((detection.moved, detection.domain), []).append(detection)
    return grouped


def site_coverage(timeline: Timeline, seen: dict[str, set[str]], end: datetime, share: float = 0.05) -> tuple[int, int]:
    """(sites seen, sites) over the sampled prefixes (`seen`: prefix -> the domains its document names), counting
    each site that holds at least `share` of its prefix's DOIs at `end`; a moved site is seen under either name."""
    moved, held, dois = timeline.moved(end), {}, Counter()
    for doi in timeline.dois:
        if doi.prefix in seen:
            dois[doi.prefix] += 1
            held.setdefault(doi.prefix, Counter()).update(doi.hosts)
    covered = total = 0
    for prefix, hosts in held.items():
        for host, n in hosts.items():
            if n >= share * dois[prefix]:
                total += 1
                covered += bool({host, moved.get(host, host)} & seen[prefix])
    return covered, total


def days(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f} d"


def _world(directory: Path, opts) -> None:
    if (directory / "timeline.jsonl").exists():
        print(f"# reusing the evolving world in {directory}", flush=True)
        return
    started = time.monotonic()
    args = [
        "sandbox",
        "generate",
        directory,
        "--dois",
        opts.dois,
        "--sites",
        opts.sites,
        "--seed",
        opts.seed,
        "--evolve",
    ]
    args += ["--start", opts.start, "--days", opts.days, "--moves", opts.moves, "--new-owners", opts.new_owners]
    args += ["--new-prefixes", opts.new_prefixes, "--registry-moves", opts.registry_moves]
    done = subprocess.run(runner.scrapy_command(*args), cwd=runner.PROJECT, capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"generate failed ({done.returncode}):\n{done.stderr[-2000:]}")
    print(done.stdout.strip(), f"\n# generated in {time.monotonic() - started:.0f} s", flush=True)


def run(opts, tmp: Path) -> None:
    directory = Path(opts.world).resolve() if opts.world else tmp / "world"
    _world(directory, opts)
    timeline = Timeline.load(directory)
    start, speed = moment(opts.start), opts.speed
    refresh = float(setting(opts.set, "LANDING_REFRESH_DAYS"))
    budget = float(setting(opts.set, "LANDING_BUDGET"))
    kinds = {}
    for event in timeline.events:
        kinds[event["kind"]] = kinds.get(event["kind"], 0) + 1
    print(f"# timeline: {kinds}; {len(timeline.dois):,} DOIs", flush=True)
    since = time.time() + 2  # the real moment the simulated start stands for: the server and the crawl share it
    clock = {"LANDING_CLOCK": opts.start, "LANDING_CLOCK_SPEED": speed, "LANDING_CLOCK_SINCE": f"{since:.3f}"}
    stores = runner.Stores.under(tmp / "stores")
    # The default driver (auto, Chromium where a page needs it) and the default schedule: only the clock is compressed.
    settings = {"LANDING_CONTINUOUS": True, "LANDING_PROGRESS_INTERVAL": 2, **REAL_PACE}

    def simulated(wall: float) -> datetime:
        return start + timedelta(seconds=(wall - since) * speed)

    server = crawl = None
    samples: list[Sizes] = []
    try:
        server = runner.SandboxProcess(directory, opts.latency_ms, tmp / "serve.log", settings=clock, requests=True)
        served = Served(tmp / "serve.log")
        command = runner.crawl_command(
            server.proxy, stores, {**settings, **clock}, [x for s in opts.set for x in ("-s", s)]
        )
        print("crawl:", " ".join(map(str, command)), flush=True)
        checkout = Path(opts.crawl_from).resolve() if opts.crawl_from else runner.PROJECT
        if opts.crawl_from:  # another checkout's crawl (its own virtualenv) on the same world: an A/B of two versions
            command = [str(checkout / ".venv" / "bin" / "python"), *command[1:]]
        crawl = runner.Crawl(command, tmp / "crawl.log", cwd=checkout)
        wall_of = time.time() - time.monotonic()
        watched, ends = psutil.Process(crawl.process.pid), since + opts.days * 86400 / speed
        while crawl.running() and time.time() < ends:
            rss = runner.tree_rss(watched)
            samples.append(Sizes(simulated(time.time()), rss, *_sizes(stores), served()))
            time.sleep(opts.every)
        stopped = time.time()
        crawl.process.send_signal(signal.SIGTERM)
        try:
            code = crawl.wait(STOP_GRACE)
        except subprocess.TimeoutExpired:
            crawl.kill()
            code = crawl.wait()
        print(
            f"# crawl: exit {code}; stopped at {simulated(stopped):%Y-%m-%d %H:%M} simulated, "
            f"closed in {time.time() - stopped:.0f} s",
            flush=True,
        )
    finally:
        if crawl:
            crawl.kill()
        if server:
            server.close()
    end = simulated(stopped)
    samples.append(Sizes(end, 0, *_sizes(stores), served()))
    report(opts, timeline, stores, samples, crawl, wall_of, simulated, start, end, refresh, budget)


def _sizes(stores: runner.Stores) -> tuple[int, int, int]:
    return (
        disk(Path(stores.docs.removeprefix("sqlite:///"))),
        disk(Path(stores.blobs.removeprefix("file://"))),
        disk(stores.artifacts),
    )


def setting(extra: list[str], name: str):
    values = [e.split("=", 1)[1] for e in extra if e.startswith(name + "=")]
    return values[-1] if values else getattr(defaults, name)


def report(opts, timeline, stores, samples, crawl, wall_of, simulated, start, end, refresh, budget) -> None:
    from landing.artifacts.artifact_files import load_version, versions
    from landing.core.continuous import freshness
    from landing.stores import open_docs

    # The last version is exported while the crawl closes, and the clock runs on meanwhile: it shows what was
    # visited by the stop, so it counts at the stop.
    every = versions(stores.artifacts)
    whole = [path for path in every if intact(path)]
    found = [(min(version_time(path.name), end), load_version(path)) for path in whole]
    pairs = [(when, {(p, d) for p, d, _ in a.good | a.bad}) for when, a in found]
    print(f"\nversions: {len(found)}:", ", ".join(f"{when:%m-%d %H:%M}" for when, _ in found))
    # Every version but the stop's is named for its boundary on the clock: the gaps should all be LANDING_EXPORT_EVERY.
    least, most = gaps([version_time(path.name) for path in every][:-1])
    print(
        f"versions apart (the stop's left out): {'-' if least is None else f'{least:.2f}'} to {'-' if most is None else f'{most:.2f}'} h "
        f"(LANDING_EXPORT_EVERY={setting(opts.set, 'LANDING_EXPORT_EVERY')}); every version's files still there: "
        f"{'yes' if len(whole) == len(every) else 'no'} ({len(whole)} of {len(every)})"
    )
    moved = detections(timeline, pairs)
    # A pair is registry-visible when the registries list one of its DOIs on the new domain: a move the world calls
    # registry-visible shows nothing there for a prefix whose DOIs on the site are registered on a redirector.
    shown, silent, redirected = timeline.registry_split(moved)
    for registry, label, bound in ((True, "registry-visible", VISIBLE_DAYS), (False, "registry-silent", refresh)):
        split = summary(shown if registry else silent, bound, until=end)
        print(
            f"{label} pairs: {split['pairs']}, {split['shown']} shown; within {bound:g} d: "
            f"{split['within'] or 0:.0%} ({split['pending']} pending); median {days(split['median_days'])}, "
            f"max {days(split['max_days'])}"
            + (
                f" ({redirected} of a registry-visible move, their DOIs registered on a redirector)"
                if redirected and not registry
                else ""
            )
        )
    figures = summary(moved, refresh, until=end)
    print(
        f"moves: {len(timeline.of_kind('move'))}, {figures['pairs']} (prefix, new domain) pairs, {figures['shown']} "
        f"shown; median {days(figures['median_days'])}, max {days(figures['max_days'])}; within "
        f"LANDING_REFRESH_DAYS={refresh:g}: {figures['within'] or 0:.0%} of the pairs whose bound the run reached "
        f"({figures['pending']} pending: moved within {refresh:g} days of the stop, not shown yet)"
    )
    grouped = by_move(moved)
    whole = [max(d.days for d in ds) for ds in grouped.values() if all(d.days is not None for d in ds)]
    print(
        f"moves whose every prefix showed within {refresh:g} days: {sum(w <= refresh for w in whole)} of {len(grouped)}"
    )
    for (when, domain), found_pairs in grouped.items():
        delays = [d.days for d in found_pairs if d.days is not None]
        print(
            f"  {when:%m-%d %H:%M} -> {domain}: {len(found_pairs)} prefixes, {len(delays)} shown, "
            f"the last after {days(max(delays)) if len(delays) == len(found_pairs) else 'never'}"
        )
    appeared = summary(appearances(timeline, [(when, {p for p, _ in a.prefixes}) for when, a in found]), refresh)
    print(
        f"new prefixes: {appeared['pairs']}, {appeared['shown']} named by a version; median "
        f"{days(appeared['median_days'])}, max {days(appeared['max_days'])}"
    )
    named = set().union(*(p for _, p in pairs)) if pairs else set()
    wrong = wrong_pairs(timeline, named, end)
    print(f"wrong pairs (never true): {len(wrong)} of {len(named)}", sorted(wrong)[:10] if wrong else "")
    docs = open_docs(stores.docs)
    try:
        prefix_docs = list(docs.scan("prefix"))
        state = docs.get("continuous", "state") or {}
        sites, refreshed = reached(timeline, docs), rounds(docs)
    finally:
        docs.close()
    ages = freshness.ages([freshness.prefix_of(doc) for doc in prefix_docs], end)
    print(f"prefix ages at the end (days): {ages}; state: requests-today {state.get('continuous/requests-today')}")
    shares = timeline.site_shares()
    covered, held = coverage(shares, sites, LEAST_SHARE)
    after4 = {p: s for p, s in shares.items() if refreshed.get(p, 0) >= 4}
    covered4, held4 = coverage(after4, sites, LEAST_SHARE)
    counts = sorted(refreshed.get(p, 0) for p in shares)
    print(
        f"sites holding >= {LEAST_SHARE:.0%} of a prefix's DOIs that its visits reached: {covered} of {held} "
        f"({covered / held if held else 0:.1%}); after 4 or more rounds: {covered4} of {held4} "
        f"({covered4 / held4 if held4 else 0:.1%}); rounds per prefix: min {counts[0] if counts else '-'}, "
        f"median {statistics.median(counts) if counts else '-'}, max {counts[-1] if counts else '-'}"
    )
    seen = {
        doc["prefix/prefix"]: set(doc.get("prefix/sites") or ()) for doc in prefix_docs if doc.get("prefix/sampled")
    }
    covered, total = site_coverage(timeline, seen, end)
    drawn = sum(int(doc.get("prefix/drawn") or 0) for doc in prefix_docs)
    print(
        f"the same by the prefix documents' sites (prefix/sites): {covered} of {total} "
        f"({covered / total if total else 0:.1%}); DOIs drawn {drawn:,}"
    )
    span = int((end - start) / timedelta(days=1))
    requests = per_day([(simulated(t + wall_of), r) for t, _, _, r in crawl.events], start, span)
    print(f"requests per simulated day (LANDING_BUDGET={budget:g}):", [r for r in requests if r is not None])
    answered = per_day([(s.at, s.served) for s in samples], start, span)
    print("requests the sandbox answered per simulated day:", [r for r in answered if r is not None])
    for name in ("docs", "blobs", "artifacts"):
        growth = per_day([(s.at, getattr(s, name)) for s in samples], start, span)
        kept = [g for g in growth if g is not None]
        total = getattr(samples[-1], name)
        print(
            f"{name}: {mb(total)} at the end; growth per simulated day: median "
            f"{mb(statistics.median(kept)) if kept else '-'}, last {mb(kept[-1]) if kept else '-'}"
        )
    second, last = tenths([s.rss for s in samples[:-1]])
    if second is not None:
        print(f"crawl RSS: {mb(second)} in the second tenth of the run, {mb(last)} in the last")
    print(f"# load average at the end {os.getloadavg()[0]:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dois", type=int, default=20_000, help="DOIs in the world (20,000: about 200 owners)")
    parser.add_argument("--sites", type=int, default=5, help="journal sites an owner (5: about 1,000 sites)")
    parser.add_argument("--seed", type=int, default=1, help="world and timeline seed (1)")
    parser.add_argument("--start", default="2030-01-01T00:00:00Z", help="the simulated start (LANDING_CLOCK)")
    parser.add_argument("--days", type=float, default=30, help="simulated days to run, and the timeline's horizon")
    parser.add_argument(
        "--speed", type=float, default=1440, help="simulated seconds a real second (1440: a day a minute)"
    )
    parser.add_argument("--latency-ms", type=float, default=200, help="sandbox latency per reply (200)")
    parser.add_argument("--moves", type=float, default=0.01, help="share of the sites moving per 30 days (0.01)")
    parser.add_argument(
        "--registry-moves", type=float, default=0.5, help="share of the moves the registries show (0.5)"
    )
    parser.add_argument("--new-owners", type=float, default=2, help="owners appearing per week (2)")
    parser.add_argument("--new-prefixes", type=float, default=1, help="prefixes added per week (1)")
    parser.add_argument("--every", type=float, default=2, help="real seconds between readings of RSS and sizes (2)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a crawl setting (repeat)")
    parser.add_argument("--world", help="an evolving world to reuse; generated (and kept) there if it holds none")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (world, stores, logs)")
    parser.add_argument("--crawl-from", metavar="DIR", help="run the crawl from this checkout (its .venv): an A/B")
    opts = parser.parse_args()
    with scratch("landing-continuous-", opts.keep) as tmp:
        try:
            run(opts, tmp)
        except RuntimeError as error:  # a sandbox that did not start
            sys.exit(f"continuous: {error}")


if __name__ == "__main__":
    main()
