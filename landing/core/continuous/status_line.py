"""`scrapy status`'s one line, from what the store and the artifacts directory hold: a continuous run's freshness,
last version, budget, registry deltas and health, or a full run's progress. docs/operations.md "Status"."""

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from landing.core.continuous import health, rotation
from landing.core.continuous.freshness import ages, prefix_of
from landing.core.continuous.freshness import moment as stamp_moment
from landing.core.continuous.retention import version_time


@dataclass(frozen=True)
class Version:
    """The latest artifact version: its name, and how many (prefix, domain) pairs its changes.json lists."""

    name: str
    changed: int | None


@dataclass(frozen=True)
class Bounds:
    """What the status judges against: LANDING_REFRESH_DAYS, LANDING_BUDGET, twice LANDING_EXPORT_EVERY."""

    refresh_days: float
    budget: float
    export_hours: float


def moment(stamp) -> datetime | None:
    """A stored stamp as an aware UTC datetime; None for none or for text that is no stamp.

    >>> moment("2026-11-26T01:00:00Z"), moment(None), moment("soon"), moment("2026-11-26")
    (datetime.datetime(2026, 11, 26, 1, 0, tzinfo=datetime.timezone.utc), None, None, None)
    """
    if not isinstance(stamp, str) or len(stamp) != len("2026-11-26T01:00:00Z") or not stamp.endswith("Z"):
        return None
    try:
        return stamp_moment(stamp)
    except ValueError:
        return None


def continuous(state: dict, prefixes: Iterable[dict], version: Version | None, now: datetime, bounds: Bounds):
    """(the line, the health checks) of a continuous run: `state` its `continuous` document, `prefixes` every
    `prefix` document, `version` the latest in the artifacts directory."""
    known, listed, unreadable, drawn, sites = [], [], 0, 0, 0
    for doc in prefixes:
        try:
            known.append(prefix_of(doc))
            seen = rotation.seen(doc)
        except (KeyError, TypeError, ValueError):
            unreadable += 1  # said in the line, never a traceback: the rest still tell the operator something
            continue
        listed.append(moment(doc.get("prefix/listed")))
        drawn, sites = drawn + seen[0], sites + seen[1]
    found = ages(known, now)
    last = version_time(version.name) if version else None
    stamps = (moment(state.get(f"continuous/{name}")) for name in ("exported", "updated", "listed"))
    went_back = health.clock([last, *stamps, *(p.sampled for p in known)], now)
    parts = [f"continuous run {state.get('continuous/run') or '-'}: {len(known):,} prefixes"]
    if not went_back.ok:  # an age measured from a clock gone back would be negative
        parts[0] += ", ages unknown"
    elif found["max"] is not None:
        parts[0] += ", age " + " ".join(f"{q} {health.days(found[q])}" for q in ("p50", "p95", "max"))
    parts[0] += f" (refresh {health.days(bounds.refresh_days)}), {found['never']:,} never sampled"
    if drawn:
        parts[0] += f", {drawn:,} DOIs drawn, {sites:,} sites seen"
    if unreadable:
        parts[0] += f", {unreadable:,} prefix documents unreadable"

    # The artifacts directory names the last version; the state's stamp stands in where that directory is elsewhere.
    if last:
        parts.append(f"last version {version.name} ({_ago(last, now)}{_changed(version)})")
    elif last := moment(state.get("continuous/exported")):
        parts.append(f"last version {state.get('continuous/version') or '?'} ({_ago(last, now)})")
    else:
        parts.append("no version exported yet")

    counted_today = state.get("continuous/day") == now.date().isoformat()  # an older day's count is spent
    today = int(state.get("continuous/requests-today") or 0) if counted_today else 0
    if bounds.budget > 0:
        parts.append(f"budget {today / bounds.budget:.0%} of today's ({today:,} requests)")
    if looked := moment(state.get("continuous/delta-looked")):
        parts.append(deltas(state, looked, now))
    # With no version yet, the export check counts from the first listing: when continuous sampling began.
    since = min((t for t in listed if t), default=None) or moment(state.get("continuous/listed")) or now
    checks = [health.freshness(found["max"], bounds.refresh_days), health.export(last, since, now, bounds.export_hours)]
    checks.append(went_back)
    parts.append(f"health {health.verdict(checks)}")
    return "; ".join(parts), checks


def deltas(state: dict, looked: datetime, now: datetime) -> str:
    """The registry deltas' part of the line: when the registries were last looked at, and what that look found.

    >>> from datetime import UTC
    >>> state = {"continuous/delta-dois": 3400, "continuous/delta-changes": 5, "continuous/delta-signalled": 2}
    >>> deltas(state, datetime(2026, 11, 26, 3, 48, tzinfo=UTC), datetime(2026, 11, 26, 4, tzinfo=UTC))
    'registries read 12 min ago (3,400 DOIs updated, 5 moved, 2 prefixes signalled)'
    """
    figures = [int(state.get(f"continuous/delta-{name}") or 0) for name in ("dois", "changes", "signalled")]
    return (
        f"registries read {_ago(looked, now)} ({figures[0]:,} DOIs updated, {figures[1]:,} moved, "
        f"{figures[2]:,} prefix{'' if figures[2] == 1 else 'es'} signalled)"
    )


def _ago(moment_: datetime, now: datetime) -> str:
    # A version after now is the clock's fault (the clock check says so), not one made "0 min ago".
    return f"{health.span(now - moment_)} ago" if moment_ <= now else "after now"


def full_run(run: dict, owners_sampled: int, visited: int, version: Version | None, now: datetime) -> str:
    """The line of a full run (its `run` document): owners sampled of those planned, DOIs visited of those planned.

    >>> from datetime import UTC
    >>> run = {"run/id": "2026-11-26T00:00:00Z", "run/state": "visiting", "run/owners": 200, "run/dois-planned": 5000}
    >>> full_run(run, 120, 3400, None, datetime(2026, 11, 26, 3, tzinfo=UTC))
    'full run 2026-11-26T00:00:00Z (visiting): 120 of 200 owners sampled, 3,400 of 5,000 planned DOIs visited; no version exported yet'
    """
    owners = run.get("run/owners")
    line = f"full run {run.get('run/id')} ({run.get('run/state')}): "
    line += f"{owners_sampled:,} of {owners:,} owners sampled" if owners is not None else "listing owners"
    line += f", {visited:,} of {run.get('run/dois-planned') or 0:,} planned DOIs visited"
    when = version_time(version.name) if version else None
    if when:
        return line + f"; last version {version.name} ({health.span(now - when)} ago{_changed(version)})"
    return line + "; no version exported yet"


def _changed(version: Version) -> str:
    if version.changed is None:
        return ""
    return f", {version.changed:,} pair{'' if version.changed == 1 else 's'} changed"
