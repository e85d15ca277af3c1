"""Continuous sampling's decisions apart from the planner's policy (landing.core.continuous.freshness): what a re-listing
changes in the known prefixes, a pick as a sample of the run's plan, a prefix's document once its sample is visited,
and the schedule kept in the `continuous` state document (exports, day budget, carry). docs/continuous.md."""

import math
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta

from landing.core.continuous import cadence, rotation
from landing.core.continuous.freshness import (
    NEW,
    Pick,
    Prefix,
    ages,
    moment,
    prefix_doc,
    prefix_id,
    signals,
)
from landing.core.registries.names import UNKNOWN, Names, keyed

STATE = ("continuous", "state")  # the state document's kind and id
MEASURED_DOIS = 100  # DOIs visited before the crawl's own requests per DOI replace tuning.REQUESTS_PER_DOI


def listed_prefixes(owners: Iterable[tuple[str, str, int]], prefixes_of: dict) -> dict[tuple[str, str], dict]:
    """{(ra, prefix): {owner: estimated DOIs}} of a listing: an owner's DOI count divided among its listed prefixes
    (neither API counts DOIs per prefix in its listing).

    >>> listed_prefixes([("crossref", "7", 10), ("crossref", "8", 0)], {("crossref", "7"): ["10.1", "10.2", "10.3"],
    ...     ("crossref", "8"): ["10.3"]})
    {('crossref', '10.1'): {'7': 4}, ('crossref', '10.2'): {'7': 3}, ('crossref', '10.3'): {'7': 3, '8': 0}}
    """
    found: dict[tuple[str, str], dict] = {}
    for ra, owner, total in owners:
        names = sorted(set(prefixes_of.get((ra, str(owner))) or ()))
        for n, prefix in enumerate(names):
            share = total // len(names) + (1 if n < total % len(names) else 0)
            found.setdefault((ra, prefix), {})[str(owner)] = share
    return found


def relisted(
    known: dict[str, dict], listing: dict[tuple[str, str], dict], now: str, names: dict | None = None
) -> tuple[list[dict], dict]:
    """(the prefix documents a listing changes, counts {new, moved, resized}): a prefix not known yet is stored
    never sampled; one listed no more under its known owner moves to the first owner now listing it, with the
    signal `new`; a known one whose estimate changed keeps its record. A prefix the listing lacks is kept as it is:
    the list is additive. `names` ((ra, owner) -> landing.core.registries.names.Names), when given: each prefix keeps its
    owner's, and one whose owner was renamed is changed too (counted nowhere).

    >>> known = {"crossref 10.1": prefix_doc(Prefix("crossref", "7", "10.1", 5), "2026-11-01T00:00:00Z")}
    >>> docs, counts = relisted(known, {("crossref", "10.1"): {"9": 5}, ("crossref", "10.2"): {"9": 6}},
    ...     "2026-11-02T00:00:00Z")
    >>> [(d["prefix/prefix"], d["prefix/owner"], d["prefix/signals"], d["prefix/listed"]) for d in docs], counts
    ([('10.1', '9', ['new'], '2026-11-01T00:00:00Z'), ('10.2', '9', [], '2026-11-02T00:00:00Z')], {'new': 1, 'moved': 1, 'resized': 0})
    """
    changed, counts = [], {"new": 0, "moved": 0, "resized": 0}

    def named(doc: dict) -> dict:
        if names is None:
            return doc
        return {**doc, **keyed("prefix", names.get((doc["prefix/ra"], doc["prefix/owner"]), UNKNOWN))}

    for (ra, prefix), owners in sorted(listing.items()):
        doc = known.get(prefix_id(ra, prefix))
        if doc is None:
            owner = min(owners)
            changed.append(named(prefix_doc(Prefix(ra, owner, prefix, owners[owner]), now)))
            counts["new"] += 1
            continue
        owner = doc["prefix/owner"]
        if owner in owners:
            if owners[owner] != doc.get("prefix/dois"):
                changed.append(named({**doc, "prefix/dois": owners[owner]}))
                counts["resized"] += 1
            elif named(doc) != doc:
                changed.append(named(doc))
            continue
        owner = min(owners)
        marks = sorted({*(doc.get("prefix/signals") or ()), NEW})
        changed.append(named({**doc, "prefix/owner": owner, "prefix/dois": owners[owner], "prefix/signals": marks}))
        counts["moved"] += 1
    return changed, counts


def pick_sample(
    run_id: str,
    order: int,
    pick: Pick,
    panel: Sequence[str],
    planned: str,
    names: Names = UNKNOWN,
    drawn: str = "",
) -> dict:
    """A pick as a sample document of the continuous run's plan, with its owner's `names` (its prefix document's). A
    pick no larger than its `panel` revisits it, no sample query asked; a larger one asks for the prefix's sample,
    twice its size once the prefix was sampled (`sample/ask`), to keep the panel first and then DOIs not in the
    record of those `drawn` (landing.core.continuous.rotation.drawn_fresh).

    >>> from landing.core.continuous.freshness import STALE
    >>> pick = Pick(Prefix("crossref", "7", "10.1", 50), 2, STALE, 7)
    >>> s = pick_sample("continuous", 3, pick, ["10.1/a", "10.1/b"], "2026-11-02T00:00:00Z")
    >>> s["sample/dois"], s["sample/size"], s["sample/reason"], s["sample/timestamp"]
    (['10.1/a', '10.1/b'], 2, 'stale', '2026-11-02T00:00:00Z')
    >>> pick_sample("continuous", 3, pick, [], "2026-11-02T00:00:00Z")["sample/dois"] is None
    True
    >>> s = pick_sample("continuous", 3, Pick(pick.prefix, 10, STALE, 31), ["10.1/a"], "2026-11-02T00:00:00Z")
    >>> s["sample/dois"], s["sample/size"], s["sample/ask"], s["sample/drawn"]
    (None, 10, 20, '')
    """
    p, panel = pick.prefix, list(panel)
    revisit = bool(panel) and pick.dois <= len(panel)
    rotating = not revisit and bool(panel or drawn)
    return {
        "sample/run": run_id,
        "sample/order": order,
        "sample/ra": p.ra,
        "sample/owner": p.owner,
        "sample/total": p.dois,
        "sample/size": len(panel) if revisit else pick.dois,
        "sample/prefixes": [p.prefix],
        "sample/per-prefix": 0,
        "sample/dois": panel if revisit else None,
        "sample/timestamp": planned if revisit else None,
        "sample/prefix": p.prefix,
        "sample/reason": pick.reason,
        "sample/planned": planned,
        "sample/panel": panel,
        **({"sample/ask": 2 * pick.dois, "sample/drawn": drawn} if rotating else {}),
        **keyed("sample", names),
    }


def sampled(doc: dict, sample: dict, analyses: Iterable[dict]) -> dict:
    """A prefix's document once its sample's visits are stored: sampled when the round planned it, its signals
    what the visits show against the earlier ones (the panel's DOIs the round visited only, once it has a panel:
    like with like), and what the round adds to its sites, panel and DOIs drawn (rotation.learnt). `analyses`:
    every stored analysis of the prefix's DOIs.

    >>> def visit(doi, domain, at):
    ...     return {"pid/doi": doi, "snapshot/final-url-domain": domain, "snapshot/error": None,
    ...             "snapshot/timestamp": at, "analysis/meta-tag-correctness": "ok"}
    >>> doc = prefix_doc(Prefix("crossref", "7", "10.1", 5), "2026-11-01T00:00:00Z", panel=["10.1/a"])
    >>> sample = {"sample/planned": "2026-11-09T00:00:00Z", "sample/dois": ["10.1/a"]}
    >>> after = sampled(doc, sample, [visit("10.1/a", "old.example", "2026-11-02T01:00:00Z"),
    ...     visit("10.1/a", "new.example", "2026-11-09T01:00:00Z")])
    >>> after["prefix/sampled"], after["prefix/signals"], after["prefix/changed"]
    ('2026-11-09T00:00:00Z', ['domain-changed'], '2026-11-09T00:00:00Z')
    """
    planned, dois = sample["sample/planned"], sample["sample/dois"] or []
    visited = set(dois)
    compared = (set(doc.get("prefix/panel") or ()) & visited) or visited
    earlier, latest, round_ = [], [], []
    for analysis in analyses:
        doi, now = analysis.get("pid/doi"), analysis.get("snapshot/timestamp", "") >= planned
        if doi in compared:
            (latest if now else earlier).append(analysis)
        if now and doi in visited:
            round_.append(analysis)
    found = sorted(signals(earlier, latest))
    return {
        **doc,
        "prefix/sampled": planned,
        "prefix/signals": found,
        "prefix/changed": planned if found else doc.get("prefix/changed"),
        **rotation.learnt(doc, sample, round_),
    }


def new_state(run_id: str, now: str) -> dict:
    """The state of a continuous run that has planned nothing yet."""
    return {
        "continuous/run": run_id,
        "continuous/listed": None,
        "continuous/exported": None,
        "continuous/version": None,
        "continuous/exports": 0,
        "continuous/changes": 0,
        "continuous/sampled-since": 0,
        "continuous/carry": 0.0,
        "continuous/pruned": None,
        "continuous/day": now[:10],
        "continuous/requests-today": 0,
        "continuous/requests": 0,
        "continuous/dois": 0,
        "continuous/rounds": 0,
        "continuous/planned": None,
        "continuous/open": [],
        "continuous/updated": now,
    }


def due(last: str | None, now: datetime, hours: float) -> bool:
    """Whether a step done last at `last` (a stamp; None: never) is due again `hours` later.

    >>> at = moment("2026-11-02T00:00:00Z")
    >>> due(None, at, 24), due("2026-11-01T00:00:00Z", at, 24), due("2026-11-01T00:00:01Z", at, 24)
    (True, True, False)
    """
    return last is None or now - moment(last) >= timedelta(hours=hours)


def export_due(state: dict, now: datetime, every_hours: float, visited: int = 0) -> datetime | None:
    """The boundary a new artifact version is due for (landing.core.continuous.cadence: every `every_hours` on the
    clock), when a round closed since the last version or `visited` DOIs were since (a round still open); else None.

    >>> state = {**new_state("continuous", "2026-11-01T00:00:00Z"), "continuous/exported": "2026-11-01T00:00:00Z"}
    >>> at = moment("2026-11-01T23:59:59Z")
    >>> export_due({**state, "continuous/sampled-since": 3}, at, 24) is None
    True
    >>> export_due({**state, "continuous/sampled-since": 3}, at + timedelta(seconds=1), 24)
    datetime.datetime(2026, 11, 2, 0, 0, tzinfo=datetime.timezone.utc)
    >>> export_due({**state, "continuous/sampled-since": 0}, at + timedelta(seconds=1), 24) is None
    True
    >>> export_due({**state, "continuous/sampled-since": 0}, at + timedelta(seconds=1), 24, visited=5)
    datetime.datetime(2026, 11, 2, 0, 0, tzinfo=datetime.timezone.utc)
    """
    if not state.get("continuous/sampled-since") and not visited:
        return None
    last = state.get("continuous/exported")
    return cadence.version_due(last and moment(last), now, timedelta(hours=every_hours))


def exported(state: dict, version: str, now: str) -> dict:
    """The state once a version is exported at `now` (on the cadence: its boundary, which names it): the changes and
    samples since it start again from 0."""
    return {
        **state,
        "continuous/exported": now,
        "continuous/version": version,
        "continuous/exports": state.get("continuous/exports", 0) + 1,
        "continuous/changes": 0,
        "continuous/sampled-since": 0,
        "continuous/updated": now,
    }


def counted(state: dict, now: datetime, requests: int) -> dict:
    """The state with `requests` more made at `now`: counted in its simulated UTC day, a new day starting from 0.

    >>> state = new_state("continuous", "2026-11-01T00:00:00Z")
    >>> state = counted(state, moment("2026-11-01T23:00:00Z"), 40)
    >>> later = counted(state, moment("2026-11-02T00:30:00Z"), 5)
    >>> state["continuous/requests-today"], later["continuous/day"], later["continuous/requests-today"]
    (40, '2026-11-02', 5)
    """
    day = now.strftime("%Y-%m-%d")
    today = state.get("continuous/requests-today", 0) if state.get("continuous/day") == day else 0
    return {**state, "continuous/day": day, "continuous/requests-today": today + requests}


def slice_carry(carry: float, share: float, spent_today: float, budget: float) -> float:
    """The carry a slice's plan starts with: the previous plan's overdraft, lowered so that the slice spends no more
    than what is left of the day's budget.

    >>> slice_carry(-5, 100, 0, 2400), slice_carry(0, 100, 2350, 2400), slice_carry(0, 100, 2500, 2400)
    (-5, -50, -200)
    """
    return min(carry, 0.0, (budget - spent_today) - share)


def per_doi(state: dict, default: float) -> float:
    """Requests one DOI's visit costs: the crawl's own measure once it visited MEASURED_DOIS, else `default`.

    >>> per_doi({"continuous/requests": 290, "continuous/dois": 100}, 3.0), per_doi({"continuous/dois": 5}, 3.0)
    (2.9, 3.0)
    """
    dois = state.get("continuous/dois", 0)
    if dois < MEASURED_DOIS:
        return default
    return max(state.get("continuous/requests", 0) / dois, 1.0)


def slice_span(last_planned: str | None, now: datetime, minutes: float) -> timedelta:
    """The span a plan spends the budget of: since the last plan (a round may outlast its slice), at least one
    slice, at most a day.

    >>> at = moment("2026-11-01T05:00:00Z")
    >>> slice_span(None, at, 60), slice_span("2026-11-01T02:00:00Z", at, 60), slice_span("2026-10-01T00:00:00Z", at, 60)
    (datetime.timedelta(seconds=3600), datetime.timedelta(seconds=10800), datetime.timedelta(days=1))
    """
    least = timedelta(minutes=minutes)
    if last_planned is None:
        return least
    return min(max(now - moment(last_planned), least), timedelta(days=1))


def age_stats(prefixes: Sequence[Prefix], now: datetime) -> dict:
    """The age figures continuous mode sets as stats (days; -1 when nothing was sampled yet)."""
    found = ages(prefixes, now)
    return {
        "prefixes": len(prefixes),
        "never_sampled": found["never"],
        **{f"age_{k}_days": -1 if found[k] is None else round(found[k], 3) for k in ("p50", "p95", "max")},
    }


def latest_record(prefixes: Sequence[Prefix], state: dict) -> str:
    """The latest moment the run recorded (a prefix's sample, its last export), as a stamp; "" when none: a moment
    after now means the clock went back (landing.core.continuous.health.clock).

    >>> from datetime import UTC
    >>> at = datetime(2026, 11, 30, tzinfo=UTC)
    >>> latest_record([Prefix("crossref", "1", "10.1", 5, at)], {"continuous/exported": "2026-11-29T00:00:00Z"})
    '2026-11-30T00:00:00Z'
    """
    found = [p.sampled for p in prefixes if p.sampled is not None]
    if exported := state.get("continuous/exported"):
        found.append(moment(exported))
    return max(found).strftime("%Y-%m-%dT%H:%M:%SZ") if found else ""


def finite(value: float) -> float:
    """A figure a stat can hold (an infinite keeps_days is -1)."""
    return value if math.isfinite(value) else -1.0


def plannable(known: Iterable[Prefix], open_rounds: Sequence[dict], backlog: bool = False) -> list[Prefix]:
    """The prefixes a slice may plan: those in no open round (a refresh waits for the last to close), and every
    prefix whose DOIs the registries moved, whatever is still open of it: a move waits for nothing. While sampled DOIs
    still wait for the frontier (`backlog`), only the moved ones: a slice plans no refresh the crawl cannot start yet,
    or the open rounds would grow faster than the crawl visits them.

    >>> a, b = Prefix("crossref", "7", "10.1", 5), Prefix("crossref", "7", "10.2", 5, registry=2)
    >>> [p.prefix for p in plannable([a, b], [{"prefixes": ["crossref 10.1", "crossref 10.2"]}])]
    ['10.2']
    >>> [p.prefix for p in plannable([a, b], [])], [p.prefix for p in plannable([a, b], [], backlog=True)]
    (['10.1', '10.2'], ['10.2'])
    """
    busy = {name for round_ in open_rounds for name in round_["prefixes"]}
    return [p for p in known if p.registry or not backlog and prefix_id(p.ra, p.prefix) not in busy]
