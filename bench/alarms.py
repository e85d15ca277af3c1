"""False alarms and detection delay of the publisher alerts and changed pairs, in continuous mode on evolving worlds.

    .venv/bin/python -m bench.alarms [--dois 2000] [--sites 2] [--seed 1] [--days 30] [--speed 4320] [--at 15]
                                     [--latency-ms 200] [--worlds unchanged,planted] [--set NAME=VALUE ...] [--keep]
                                     [--again TMPDIR]

Two worlds of the same size, each crawled as bench/continuous.py crawls one (`LANDING_CONTINUOUS=1` on a compressed
clock, the default driver and schedule, a SIGTERM after `--days`): *unchanged*, an empty timeline (every rate 0),
where any "got worse" item or changed pair is a false alarm; *planted*, whose timeline (`scrapy sandbox evolve
--events`) holds one `meta-tags-lost` on the largest site with meta tags of one member and one `move` of the largest
site of another, both `--at` days in. Read from each exported version: alerts.jsonl (per member, the items of
`worse`), changes.json (its `pairs`) and `scrapy status` run when the version appeared. Printed: a table per world,
the planted members' first alert after their event (with the cause, the fix said) and its delay, and a verdict.
`--keep` keeps each world's folder (world, stores, logs, the status lines in statuses.json); `--again` reads the kept
folders again, so that a changed reading needs no new crawl. bench/README.md "alarms.py" has the figures.
"""

import argparse
import json
import re
import signal
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

from bench.continuous import STOP_GRACE, version_time
from bench.crawls import REAL_PACE
from bench.scratch import scratch
from landing_dev import runner
from landing_dev.sandbox.timeline import moment
from landing_dev.sandbox.world import STAMP

WORLDS = ("unchanged", "planted")
CLOSE_GRACE = 180  # real seconds a SIGTERMed crawl may take to export its last version before a second SIGTERM
STATUS_EVERY = 5  # real seconds between looks for a new version (then `scrapy status` runs once)


def worse_items(alert: dict) -> dict[str, int]:
    """The "got worse" items of one alert by kind: a list counts its items, any other value that is not empty 1.
    Read defensively (alerts.jsonl's `worse` is a dict today; a list of {kind...} is read too).

    >>> worse_items({"worse": {"moved": [{"prefix": "10.1"}], "new-failures": [], "share-drop": {"from": 1, "to": 0.8}}})
    {'moved': 1, 'share-drop': 1}
    >>> worse_items({"worse": [{"kind": "share-drop"}, {"kind": "share-drop"}]}), worse_items({"member": "x"})
    ({'share-drop': 2}, {})
    """
    worse = alert.get("worse") or {}
    if isinstance(worse, list):
        found: dict[str, int] = {}
        for item in worse:
            kind = item.get("kind", "?") if isinstance(item, dict) else "?"
            found[kind] = found.get(kind, 0) + 1
        return found
    if not isinstance(worse, dict):
        return {}
    return {kind: len(v) if isinstance(v, list) else 1 for kind, v in worse.items() if v}


def mentions(value, text: str) -> bool:
    """Whether a piece of an alert (any JSON value) holds `text` in one of its strings.

    >>> mentions({"fix": {"domains-missing-doi": [{"domain": "a.example"}]}}, "a.example"), mentions([1, None], "a")
    (True, False)
    """
    return any(text in said for said in _texts(value))


def _texts(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for k, v in value.items() if k not in ("errors", "class") for t in _texts(v)]
    if isinstance(value, list | tuple):
        return [t for v in value for t in _texts(v)]
    return []


def caused(alert: dict, event: dict) -> tuple[bool, bool]:
    """(the alert names the event's cause, it says how to fix it). A meta-tag loss: its domain among the domains
    whose pages lack the DOI (`fix`) or in a `worse` item; the fix: a meta tag to add (`<meta` or `citation_doi`). A
    move: its new domain in a `worse` item; the fix: a redirect named (not a class such as too-many-redirects). The fix is looked for in every text of the
    alert but failure classes (`errors`, `class`), wherever a rule puts it.

    >>> lost = {"kind": "meta-tags-lost", "domain": "a.example"}
    >>> caused({"fix": {"domains-missing-doi": [{"domain": "a.example"}]}, "summary": "Add <meta ...>"}, lost)
    (True, True)
    >>> caused({"worse": {"moved": [{"prefix": "10.1", "to": ["b.example"]}]}, "summary": "Moved"},
    ...        {"kind": "move", "to": "b.example"})
    (True, False)
    """
    said = " ".join(_texts(alert)).lower()
    if event["kind"] == "move":
        return mentions(alert.get("worse"), event["to"]), re.search(
            r"(?<![\w-])redirect(s|ing|ion)?(?![\w-])", said
        ) is not None
    domain = event.get("domain") or event["host"]
    named = mentions((alert.get("fix") or {}).get("domains-missing-doi"), domain) or mentions(
        alert.get("worse"), domain
    )
    return named, "<meta" in said or "citation_doi" in said


def planted(sites, owners: list[dict], at: str) -> list[dict]:
    """The two events of the planted world: a meta-tag loss on the largest site with meta tags of a member holding
    no other owner's pages, and a move of the largest such site of another member (`sites_and_owners`' output).

    >>> from landing_dev.sandbox.evolution import Site
    >>> def site(n, meta): return Site(f"s{n}.example", frozenset({("crossref", f"10.{n}")}),
    ...                                frozenset({("crossref", str(n))}), meta)
    >>> owners = [{"ra": "crossref", "owner": str(n), "dois": {f"10.{n}": n}} for n in (1, 2, 3)]
    >>> [(e["kind"], e["host"]) for e in planted([site(1, True), site(2, True), site(3, False)], owners, "T")]
    [('meta-tags-lost', 's2.example'), ('move', 's3.example')]
    """
    dois = {(o["ra"], o["owner"]): o["dois"] for o in owners}

    def size(site) -> int:
        (owner,) = site.owners
        return sum(dois.get(owner, {}).get(p, 0) for _, p in site.prefixes)

    own = sorted((s for s in sites if len(s.owners) == 1), key=lambda s: (-size(s), s.host))
    lost = next(s for s in own if s.meta)
    moved = next(s for s in own if s.owners != lost.owners)
    return [
        {"at": at, "kind": "meta-tags-lost", "host": lost.host},
        {"at": at, "kind": "move", "host": moved.host},
    ]


def _scrapy(*args, settings=None, check=True) -> subprocess.CompletedProcess:
    done = subprocess.run(
        runner.scrapy_command(*args, settings=settings), cwd=runner.PROJECT, capture_output=True, text=True
    )
    if check and done.returncode:
        sys.exit(f"{' '.join(map(str, args[:2]))} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return done


def _world(directory: Path, kind: str, opts) -> list[dict]:
    from landing_dev.sandbox.evolution import sites_and_owners

    started = time.monotonic()
    _scrapy("sandbox", "generate", directory, "--dois", opts.dois, "--sites", opts.sites, "--seed", opts.seed)
    at = (moment(opts.start) + timedelta(days=opts.at)).strftime(STAMP)
    events = planted(*sites_and_owners(directory), at) if kind == "planted" else []
    (directory / "events.json").write_text(json.dumps(events), "utf-8")
    evolve = ["sandbox", "evolve", directory, "--start", opts.start, "--days", opts.days]
    _scrapy(*evolve, "--events", directory / "events.json")
    timeline = _read_jsonl(directory / "timeline.jsonl")
    print(f"# {kind} world: {opts.dois:,} DOIs, generated in {time.monotonic() - started:.0f} s; events {timeline}")
    return timeline


def _status(stores: runner.Stores, clock: dict) -> str:
    done = _scrapy("status", settings={**stores.as_settings(), **clock}, check=False)  # failing health exits non-zero
    lines = (done.stdout.strip() or done.stderr.strip()).splitlines()
    return lines[-1] if lines else ""


def status_said(line: str) -> str:
    """What `scrapy status` said of the latest version's changed pairs and of the health, from its line.

    >>> status_said("continuous run x: ...; last version 2030 (0 min ago, 11 pairs changed); budget ...; health OK")
    '11 pairs changed, health OK'
    >>> status_said("status: no store")
    '?'
    """
    changed = re.search(r"([\d,]+) pairs? changed", line)
    health = re.search(r"health (\w+)", line)
    said = [changed.group(0) if changed else "", health.group(0) if health else ""]
    return ", ".join(s for s in said if s) or "?"


def changed_pairs(changes: dict | None, expected: set[str]) -> dict[str, int]:
    """The pairs a version's changes.json lists, by how they changed (appeared, disappeared, unseen: one of each a
    pair at most, in that order), those of the `expected` prefixes (a planted event's) counted apart, and those the
    file marks as no news (`"news": false`: likely sampling, landing.core.publishing.changes) apart as `sampling`.

    >>> rows = [{"prefix": "10.1", "domain": "a", "appeared": ["good"]}, {"prefix": "10.2", "domain": "b",
    ...         "appeared": [], "disappeared": [], "unseen-since": "2030-01-01T00:00:00Z"},
    ...         {"prefix": "10.3", "domain": "c", "unseen-since": "2030-01-01T00:00:00Z", "news": False}]
    >>> changed_pairs({"pairs": rows}, {"10.2"}), changed_pairs(None, set())
    ({'appeared': 1, 'expected': 1, 'sampling': 1}, {})
    """
    found: dict[str, int] = {}
    for row in (changes or {}).get("pairs") or []:
        if not isinstance(row, dict):
            continue
        kind = "appeared" if row.get("appeared") else "disappeared" if row.get("disappeared") else "unseen"
        kind = "expected" if row.get("prefix") in expected else "sampling" if row.get("news") is False else kind
        found[kind] = found.get(kind, 0) + 1
    return found


def crawl(directory: Path, tmp: Path, opts) -> tuple[runner.Stores, dict[str, str], datetime]:
    """Serve and crawl one world for `--days` simulated days; the stores, `scrapy status` per version, the stop."""
    start, speed = moment(opts.start), opts.speed
    since = time.time() + 2
    clock = {"LANDING_CLOCK": opts.start, "LANDING_CLOCK_SPEED": speed, "LANDING_CLOCK_SINCE": f"{since:.3f}"}
    stores = runner.Stores.under(tmp / "stores")
    settings = {"LANDING_CONTINUOUS": True, "LANDING_PROGRESS_INTERVAL": 5, **REAL_PACE}
    statuses: dict[str, str] = {}
    server = process = None
    try:
        server = runner.SandboxProcess(directory, opts.latency_ms, tmp / "serve.log", settings=clock)
        extra = [x for s in opts.set for x in ("-s", s)]
        command = runner.crawl_command(server.proxy, stores, {**settings, **clock}, extra)
        print("crawl:", " ".join(map(str, command)), flush=True)
        process = runner.Crawl(command, tmp / "crawl.log")
        ends = since + opts.days * 86400 / speed
        from landing.artifacts.artifact_files import versions

        while process.running() and time.time() < ends:
            found = versions(stores.artifacts) if stores.artifacts.exists() else []
            if found and found[-1].name not in statuses:
                statuses[found[-1].name] = _status(stores, clock)
            time.sleep(STATUS_EVERY)
        stopped = time.time()
        process.process.send_signal(signal.SIGTERM)
        forced = ""
        try:
            code = process.wait(CLOSE_GRACE)
        except subprocess.TimeoutExpired:  # a close that hangs: Scrapy's second signal forces it
            process.process.send_signal(signal.SIGTERM)
            forced = f", forced by a second SIGTERM after {CLOSE_GRACE} s"
            try:
                code = process.wait(STOP_GRACE)
            except subprocess.TimeoutExpired:
                process.kill()
                code = process.wait()
        print(f"# crawl: exit {code}, closed in {time.time() - stopped:.0f} s{forced}", flush=True)
    finally:
        if process:
            process.kill()
        if server:
            server.close()
    found = versions(stores.artifacts)
    if found and found[-1].name not in statuses:
        statuses[found[-1].name] = _status(stores, clock)
    return stores, statuses, start + timedelta(seconds=(stopped - since) * speed)


def _changes(path: Path) -> dict | None:
    try:
        found = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def _read_jsonl(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def report(kind: str, stores, statuses: dict, end: datetime, timeline: list[dict], opts) -> dict:
    """Print one world's table and its planted members' detection; the figures the verdict reads."""
    from landing.artifacts.artifact_files import versions

    start = moment(opts.start)
    targets = [(e, e["owners"][0]) for e in timeline]
    first: dict[int, tuple] = {}  # planted event -> its first alert at or after it that got worse or is new
    before: dict[int, bool] = {}  # planted event -> whether the member's last alert before it named its cause
    figures = {"versions": 0, "alarmed": 0, "items": 0, "changed": 0, "members": 0}
    print(
        f"\n{kind}: version (simulated day) | alerts | members with 'got worse' | items by kind | changed pairs | status"
    )
    for path in versions(stores.artifacts):
        when = min(version_time(path.name), end)
        alerts = _read_jsonl(path / "alerts.jsonl")
        planted_members = {m for e, m in targets if when >= moment(e["at"])}  # before its event, noise too
        worse = {a.get("member"): worse_items(a) for a in alerts if worse_items(a)}
        noise = {m: w for m, w in worse.items() if m not in planted_members}
        kinds: dict[str, int] = {}
        for items in noise.values():
            for k, n in items.items():
                kinds[k] = kinds.get(k, 0) + n
        expected = {p for e, _ in targets if when >= moment(e["at"]) for p in e.get("prefixes", [])}
        pairs = changed_pairs(_changes(path / "changes.json"), expected)
        changed = sum(n for k, n in pairs.items() if k not in ("expected", "sampling"))
        figures["versions"] += 1
        figures["alarmed"] += bool(noise)
        figures["members"] += len(noise)
        figures["items"] += sum(kinds.values())
        if figures["versions"] > 1:  # the first version's pairs all appear from nothing: a start, not a change
            figures["changed"] += changed
        day = (when - start) / timedelta(days=1)
        print(
            f"  {path.name} ({day:5.2f}) | {len(alerts):3} | {len(noise):3} | {kinds or '-'} | {pairs or 0} | "
            f"{status_said(statuses.get(path.name, '-'))}"
        )
        by_member = {a.get("member"): a for a in alerts}
        for number, (event, member) in enumerate(targets):
            alert = by_member.get(member)
            if alert is None or number in first:
                continue
            cause, fix = caused(alert, event)
            if when < moment(event["at"]):
                before[number] = cause  # a site lacking some tags from the start is named before its loss
            elif member in worse or (cause and not before.get(number)):
                first[number] = (path.name, when, cause, fix, member in worse, alert.get("summary", ""))
    figures["detected"] = []
    made = [version_time(p.name) for p in versions(stores.artifacts)]
    if targets and not any(t < moment(targets[0][0]["at"]) for t in made):
        print("  no version before the planted events, so nothing can get worse: lower --speed or plant later (--at)")
    for number, (event, member) in enumerate(targets):
        if number not in first:
            print(f"  {event['kind']} on {event['host']} ({member}): never alerted")
            figures["detected"].append(None)
            continue
        name, when, cause, fix, got_worse, said = first[number]
        delay = (when - moment(event["at"])) / timedelta(days=1)
        after = sum(1 for p in versions(stores.artifacts) if moment(event["at"]) <= version_time(p.name) <= when)
        print(
            f"  {event['kind']} on {event.get('domain') or event['host']} ({member}) at {event['at']}: first alerted in "
            f"{name}, version {after} after it, {delay:.2f} simulated days later; 'got worse' {got_worse}, cause named "
            f"{cause}, fix said {fix}"
        )
        print(f"    summary: {said[:400]}")
        figures["detected"].append((delay, cause, fix))
    return figures


def verdict(figures: dict) -> str:
    """One line: false alarms of the unchanged world, and whether the planted events were alerted with the cause.

    >>> verdict({"unchanged": {"versions": 20, "alarmed": 0, "members": 0, "changed": 0},
    ...          "planted": {"detected": [(1.5, True, True), (2.0, True, False)]}})
    'unchanged: 0 of 20 versions alarmed (0 member alerts, 0 changed pairs); planted: 2 of 2 alerted with the cause, 1 with the fix: FAIL'
    """
    parts, ok = [], True
    if "unchanged" in figures:
        f = figures["unchanged"]
        parts.append(
            f"unchanged: {f['alarmed']} of {f['versions']} versions alarmed ({f['members']} member alerts, "
            f"{f['changed']} changed pairs)"
        )
        ok &= f["members"] == 0 and f["changed"] == 0
    if "planted" in figures:
        found = figures["planted"]["detected"]
        named = sum(1 for d in found if d and d[1])
        fixed = sum(1 for d in found if d and d[1] and d[2])
        parts.append(f"planted: {named} of {len(found)} alerted with the cause, {fixed} with the fix")
        ok &= fixed == len(found)
        if "members" in figures["planted"]:
            f = figures["planted"]
            parts[-1] += f" (elsewhere {f['members']} member alerts, {f['changed']} changed pairs)"
    return "; ".join(parts) + (": PASS" if ok else ": FAIL")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dois", type=int, default=2000, help="DOIs in each world (2,000: about 20 owners)")
    parser.add_argument("--sites", type=int, default=2, help="journal sites an owner (2)")
    parser.add_argument("--seed", type=int, default=1, help="world seed (1)")
    parser.add_argument("--start", default="2030-01-01T00:00:00Z", help="the simulated start (LANDING_CLOCK)")
    parser.add_argument("--days", type=float, default=30, help="simulated days to run, and the timeline's horizon")
    parser.add_argument(
        "--speed", type=float, default=4320, help="simulated seconds a real second (4320: a day in 20 s)"
    )
    parser.add_argument(
        "--at", type=float, default=15, help="the planted events' simulated day (15: after the first version)"
    )
    parser.add_argument("--latency-ms", type=float, default=200, help="sandbox latency per reply (200)")
    parser.add_argument("--worlds", default=",".join(WORLDS), help="which worlds to run, in turn (both)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a crawl setting (repeat)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folders (worlds, stores, logs)")
    parser.add_argument("--again", metavar="TMPDIR", help="read the kept run under TMPDIR again, crawl nothing")
    opts = parser.parse_args()
    figures = {}
    for kind in opts.worlds.split(","):
        if kind not in WORLDS:
            sys.exit(f"alarms: world {kind!r}: use {' or '.join(WORLDS)}")
        if opts.again:  # a kept run's folder: read again, crawl nothing
            tmp = max(Path(opts.again).glob(f"landing-alarms-{kind}-*"), key=lambda p: p.stat().st_mtime)
            kept = json.loads((tmp / "statuses.json").read_text("utf-8"))
            timeline = _read_jsonl(tmp / "world" / "timeline.jsonl")
            end = datetime.fromisoformat(kept["end"])
            stores = runner.Stores.under(tmp / "stores")
            figures[kind] = report(kind, stores, kept["statuses"], end, timeline, opts)
            continue
        with scratch(f"landing-alarms-{kind}-", opts.keep) as tmp:
            timeline = _world(tmp / "world", kind, opts)
            try:
                stores, statuses, end = crawl(tmp / "world", tmp, opts)
            except RuntimeError as error:  # a sandbox that did not start
                sys.exit(f"alarms: {error}")
            kept = {"end": end.isoformat(), "statuses": statuses}
            (tmp / "statuses.json").write_text(json.dumps(kept), "utf-8")
            figures[kind] = report(kind, stores, statuses, end, timeline, opts)
    print("\n" + verdict(figures))


if __name__ == "__main__":
    main()
