"""Registry deltas: what the registries say changed since the last look (docs/continuous.md "Registry deltas").

A look asks each registry for the DOIs updated in a window, reads each DOI's resource URL's domain, and compares it
with the domains its prefix's DOIs were seen on (the prefix's tally, `prefix/resources`). A DOI on a domain the tally
lacks, or a window that puts many of a prefix's DOIs on a domain that held a minority of it, is a change: the prefix
is signalled (`registry-changed`) and those DOIs kept for a visit first in the next plan (`prefix/registry-dois`).
An update date moves for reasons that are not the owner's (a citation matched): the domain, not the date, is the
signal, so a DOI seen on a known domain changes nothing but the tally.
"""

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from landing.core.continuous.freshness import DOMAIN_CHANGED, REGISTRY_CHANGED, Pick, moment
from landing.core.continuous.schedule import pick_sample
from landing.core.pages.documents import domain
from landing.core.pids.doi import normalise, prefix, well_formed
from landing.core.publishing.current_analysis import current
from landing.core.registries.names import UNKNOWN, Names

TALLY_DOMAINS = 50  # domains a prefix's tally keeps, the most seen: a prefix's DOIs sit on a few
# A share moving: a domain that held a minority of a prefix's tally gets, in one window, at least as many DOIs as its
# whole tally held, and at least this many. Re-indexing touches a prefix's DOIs in proportion to where they are, so a
# minority domain outgrowing its history in one window is a move; a handful of DOIs is not told from a stray deposit.
MOVE_DOIS = 5
# DOIs kept per domain of the updates seen before a prefix's first sample: enough to reach a domain its sample missed.
EARLY_DOIS = 2


@dataclass(frozen=True)
class Window:
    """The updates a look asks a registry for: from `start` to `end`, both inclusive; `capped`: the last look was
    longer ago than the longest window, so updates before `start` are not asked for."""

    start: datetime
    end: datetime
    capped: bool = False


def window(last: str | None, now: datetime, overlap: timedelta, longest: timedelta) -> Window | None:
    """The window of a registry's next look: from its last look's end less `overlap` (the registries index with a
    lag) to `now`, no longer than `longest`; None for a first look (it starts now: no back-fill).

    >>> at = moment("2030-01-02T04:00:00Z")
    >>> w = window("2030-01-02T03:00:00Z", at, timedelta(minutes=60), timedelta(days=7))
    >>> f"{w.start:%H:%M}", f"{w.end:%H:%M}", w.capped
    ('02:00', '04:00', False)
    >>> window("2029-12-01T00:00:00Z", at, timedelta(minutes=60), timedelta(days=7)).start == at - timedelta(days=7)
    True
    >>> window(None, at, timedelta(minutes=60), timedelta(days=7)) is None
    True
    """
    if last is None:
        return None
    start, earliest = moment(last) - overlap, now - longest
    return Window(max(start, earliest), now, start < earliest)


@dataclass(frozen=True)
class Entry:
    """One updated DOI as a look reads it: the DOI, its prefix, its resource URL's domain."""

    doi: str
    prefix: str
    domain: str


def entries(found: Iterable[tuple[str, str | None]]) -> list[Entry]:
    """The (DOI, resource URL) pairs of a page as Entries; a DOI that is not one, or without a URL, is left out.

    >>> entries([("10.1/A", "https://J.example/a"), ("10.1/b", None), ("junk", "https://x.example/")])
    [Entry(doi='10.1/a', prefix='10.1', domain='j.example')]
    """
    read = []
    for doi, url in found:
        bare = normalise(doi)
        host = domain(url) if isinstance(url, str) else None
        if well_formed(bare) and host:
            read.append(Entry(bare, prefix(bare), host))
    return read


@dataclass
class Look:
    """What one look saw so far, per prefix: its DOIs per domain, and those of a domain that may be a change (not a
    majority of the prefix's tally), at most `keep` of each. `tallies`: each prefix's tally ({} when it has none
    yet), None for a prefix not known (it is left out)."""

    keep: int
    seen: dict[str, Counter] = field(default_factory=dict)
    kept: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    dois: int = 0

    def add(self, found: Iterable[Entry], tallies: Mapping[str, Mapping[str, int] | None]) -> None:
        """Count a page's entries, given the tallies of their prefixes.

        >>> look = Look(keep=2)
        >>> look.add(entries([("10.1/a", "https://old.example/a"), ("10.1/b", "https://new.example/b"),
        ...     ("10.9/c", "https://x.example/c")]), {"10.1": {"old.example": 9}, "10.9": None})
        >>> look.dois, look.seen, look.kept
        (3, {'10.1': Counter({'old.example': 1, 'new.example': 1})}, {'10.1': {'new.example': ['10.1/b']}})
        >>> look.add(entries([("10.2/a", "https://a.example/a")]), {"10.2": {}})  # no tally yet: every domain kept
        >>> look.kept["10.2"]
        {'a.example': ['10.2/a']}
        """
        for entry in found:
            self.dois += 1
            tally = tallies.get(entry.prefix)
            if tally is None:
                continue
            self.seen.setdefault(entry.prefix, Counter())[entry.domain] += 1
            if not tally or not _majority(tally, entry.domain):
                dois = self.kept.setdefault(entry.prefix, {}).setdefault(entry.domain, [])
                if len(dois) < self.keep and entry.doi not in dois:
                    dois.append(entry.doi)


def _majority(tally: Mapping[str, int], name: str) -> bool:
    return tally.get(name, 0) * 2 >= sum(tally.values())


def tally_of(doc: dict) -> dict[str, int]:
    """A prefix document's tally: {domain: DOIs seen there}."""
    return dict(doc.get("prefix/resources") or {})


def tallied(tally: Mapping[str, int], seen: Mapping[str, int]) -> dict[str, int]:
    """A tally with more DOIs seen, the TALLY_DOMAINS most seen kept (ties: in name order).

    >>> tallied({"a.example": 3}, {"b.example": 1, "a.example": 1})
    {'a.example': 4, 'b.example': 1}
    """
    total = Counter(tally)
    total.update(seen)
    kept = sorted(total.items(), key=lambda item: (-item[1], item[0]))[:TALLY_DOMAINS]
    return dict(kept)


def changes(tally: Mapping[str, int], seen: Mapping[str, int]) -> list[str]:
    """The domains of a window that are a change to a prefix with this tally: one the tally lacks (with MOVE_DOIS
    DOIs when the tally is full: the domain may be one it dropped), or a minority one that got at least as many DOIs
    in the window as the tally held, and MOVE_DOIS. A prefix with no tally yet learns its first domains without a
    change.

    >>> changes({"old.example": 90, "side.example": 10}, {"old.example": 40, "new.example": 1, "side.example": 4})
    ['new.example']
    >>> changes({"old.example": 90, "side.example": 10}, {"side.example": 12}), changes({}, {"new.example": 3})
    (['side.example'], [])
    """
    if not tally:
        return []
    full = len(tally) >= TALLY_DOMAINS
    return sorted(
        name
        for name, count in seen.items()
        if (name not in tally and (not full or count >= MOVE_DOIS))
        or (name in tally and not _majority(tally, name) and count >= max(MOVE_DOIS, tally[name]))
    )


def observed(doc: dict, seen: Mapping[str, int], kept: Mapping[str, list[str]], limit: int) -> tuple[dict, int]:
    """(a prefix document once a look saw its DOIs, how many DOIs it keeps for a visit now): the tally grown;
    when a domain is a change (`changes`) and the prefix was sampled, the signal `registry-changed` and the
    change's DOIs kept, at most `limit` in all. A prefix never sampled is sampled first anyway: no signal, but a few
    DOIs of each domain it has no majority of kept (`prefix/registry-early`) for `first_sampled` to weigh.

    >>> doc = {"prefix/sampled": "2030-01-01T00:00:00Z", "prefix/signals": [], "prefix/resources": {"old.example": 9}}
    >>> after, new = observed(doc, {"new.example": 2}, {"new.example": ["10.1/a", "10.1/b"]}, limit=30)
    >>> after["prefix/signals"], after["prefix/registry-dois"], after["prefix/resources"], new
    (['registry-changed'], ['10.1/a', '10.1/b'], {'old.example': 9, 'new.example': 2}, 2)
    >>> observed(doc, {"old.example": 2}, {}, limit=30)[0]["prefix/signals"]
    []
    >>> never = {"prefix/sampled": None, "prefix/signals": []}
    >>> after, new = observed(never, {"new.example": 3}, {"new.example": ["10.1/a", "10.1/b", "10.1/c"]}, limit=30)
    >>> after["prefix/registry-early"], after["prefix/signals"], new
    ({'new.example': ['10.1/a', '10.1/b']}, [], 0)
    """
    tally = tally_of(doc)
    doc = {**doc, "prefix/resources": tallied(tally, seen)}
    if doc.get("prefix/sampled") is None:
        return {**doc, "prefix/registry-early": early(doc.get("prefix/registry-early") or {}, kept, limit)}, 0
    moved = [doi for name in changes(tally, seen) for doi in kept.get(name, ())]
    before = list(doc.get("prefix/registry-dois") or ())
    dois = list(dict.fromkeys(before + moved))[: max(limit, len(before))]
    if len(dois) == len(before):
        return doc, 0
    signals = sorted({*(doc.get("prefix/signals") or ()), REGISTRY_CHANGED})
    return {**doc, "prefix/registry-dois": dois, "prefix/signals": signals}, len(dois) - len(before)


def early(before: Mapping[str, list[str]], kept: Mapping[str, list[str]], limit: int) -> dict[str, list[str]]:
    """The DOIs kept before a prefix's first sample, per domain, grown by a look's: EARLY_DOIS a domain, the domains
    met first kept while the whole holds at most `limit` DOIs.

    >>> early({"a.example": ["10.1/a"]}, {"a.example": ["10.1/b", "10.1/c"], "b.example": ["10.1/d"]}, limit=3)
    {'a.example': ['10.1/a', '10.1/b'], 'b.example': ['10.1/d']}
    >>> early({"a.example": ["10.1/a", "10.1/b"]}, {"b.example": ["10.1/d"]}, limit=2)
    {'a.example': ['10.1/a', '10.1/b']}
    """
    grown = {name: list(dois) for name, dois in before.items()}
    room = limit - sum(len(dois) for dois in grown.values())
    for name, dois in kept.items():
        have = grown.get(name, [])
        more = [doi for doi in dois if doi not in have][: max(0, min(room, EARLY_DOIS - len(have)))]
        if more:
            grown[name] = have + more
            room -= len(more)
    return grown


def first_sampled(doc: dict, sample: dict, analyses: Iterable[dict]) -> dict:
    """A prefix's document once its first sample's visits are stored: the DOIs the registries put on domains that
    sample did not reach (`prefix/registry-early`) kept for a visit (`prefix/registry-dois`, signalled), the others
    dropped. A move before the first sample is otherwise seen only by a refresh that draws the moved site.

    >>> doc = {"prefix/signals": [], "prefix/registry-early": {"a.example": ["10.1/x"], "b.example": ["10.1/y"]}}
    >>> sample = {"sample/planned": "2030-01-05T00:00:00Z", "sample/dois": ["10.1/a"]}
    >>> after = first_sampled(doc, sample, [{"pid/doi": "10.1/a", "snapshot/resource-url": "https://a.example/1",
    ...     "snapshot/timestamp": "2030-01-05T01:00:00Z"}])
    >>> after["prefix/registry-dois"], after["prefix/signals"], "prefix/registry-early" in after
    (['10.1/y'], ['registry-changed'], False)
    """
    found = doc.get("prefix/registry-early")
    doc = {name: value for name, value in doc.items() if name != "prefix/registry-early"}
    if not found:
        return doc
    planned, drawn = sample["sample/planned"], set(sample.get("sample/dois") or ())
    reached = resources(a for a in analyses if a.get("snapshot/timestamp", "") >= planned and a.get("pid/doi") in drawn)
    # A DOI the sample drew and visited before its site moved is visited again: its domain was not reached.
    missed = [doi for name, dois in found.items() if name not in reached for doi in dois]
    if not missed:
        return doc
    dois = list(dict.fromkeys([*(doc.get("prefix/registry-dois") or ()), *missed]))
    return {
        **doc,
        "prefix/registry-dois": dois,
        "prefix/signals": sorted({*(doc.get("prefix/signals") or ()), REGISTRY_CHANGED}),
    }


def resources(analyses: Iterable[dict]) -> Counter:
    """The resource URLs' domains of a round's visits, a DOI counted once (its current analysis).

    >>> resources([{"pid/doi": "10.1/a", "snapshot/resource-url": "https://a.example/1"},
    ...     {"pid/doi": "10.1/b", "snapshot/resource-url": None}])
    Counter({'a.example': 1})
    """
    return Counter(
        host
        for doc in current(sorted(analyses, key=lambda doc: doc.get("pid/doi") or ""))
        if (host := domain(doc.get("snapshot/resource-url") or None)) is not None
    )


def resourced(doc: dict, sample: dict, analyses: Iterable[dict]) -> dict:
    """A prefix's document with its tally grown by the resource URLs of its sample's visits (those since the round
    was planned).

    >>> sample = {"sample/planned": "2030-01-05T00:00:00Z", "sample/dois": ["10.1/a"]}
    >>> resourced({"prefix/resources": {"a.example": 2}}, sample, [{"pid/doi": "10.1/a",
    ...     "snapshot/resource-url": "https://a.example/1", "snapshot/timestamp": "2030-01-05T01:00:00Z"}])
    {'prefix/resources': {'a.example': 3}}
    """
    planned = sample["sample/planned"]
    latest = [a for a in analyses if a.get("snapshot/timestamp", "") >= planned]
    return {**doc, "prefix/resources": tallied(tally_of(doc), resources(latest))}


def visited(doc: dict, sample: dict, analyses: Iterable[dict]) -> dict:
    """A prefix's document once the visits of its registry pick are stored: its tally grown by their resource URLs,
    `domain-changed` added when one reached a domain no earlier visit of the prefix did (the next plan samples it
    deeper), `registry-changed` gone; when it was last sampled stays (a few DOIs are no refresh).

    >>> def visit(doi, final, at):
    ...     return {"pid/doi": doi, "snapshot/final-url-domain": final, "snapshot/resource-url": f"https://{final}/",
    ...             "snapshot/timestamp": at}
    >>> doc = {"prefix/sampled": "2030-01-01T00:00:00Z", "prefix/signals": ["registry-changed"]}
    >>> sample = {"sample/planned": "2030-01-05T00:00:00Z", "sample/dois": ["10.1/b"]}
    >>> after = visited(doc, sample, [visit("10.1/a", "old.example", "2030-01-01T01:00:00Z"),
    ...     visit("10.1/b", "new.example", "2030-01-05T01:00:00Z")])
    >>> after["prefix/signals"], after["prefix/sampled"], after["prefix/resources"]
    (['domain-changed'], '2030-01-01T00:00:00Z', {'new.example': 1})
    """
    planned, dois = sample["sample/planned"], set(sample.get("sample/dois") or ())
    earlier, latest = [], []
    for analysis in analyses:
        if analysis.get("snapshot/timestamp", "") >= planned and analysis.get("pid/doi") in dois:
            latest.append(analysis)
        elif analysis.get("snapshot/timestamp", "") < planned:
            earlier.append(analysis)
    known = {a.get("snapshot/final-url-domain") for a in earlier} - {None}
    reached = {a.get("snapshot/final-url-domain") for a in latest} - {None}
    signals = set(doc.get("prefix/signals") or ()) - {REGISTRY_CHANGED}
    if reached - known:
        signals.add(DOMAIN_CHANGED)
    found = sorted(signals)
    return {
        **doc,
        "prefix/resources": tallied(tally_of(doc), resources(latest)),
        "prefix/signals": found,
        "prefix/changed": planned if DOMAIN_CHANGED in found else doc.get("prefix/changed"),
    }


def sample(run_id: str, order: int, pick: Pick, dois: list[str], planned: str, names: Names = UNKNOWN) -> dict:
    """A registry pick as a sample document of the continuous run's plan: exactly the DOIs its prefix keeps, no
    sample query asked (as a panel's revisit).

    >>> from landing.core.continuous.freshness import REGISTRY, Prefix
    >>> s = sample("continuous", 4, Pick(Prefix("crossref", "7", "10.1", 50), 2, REGISTRY, 6), ["10.1/a", "10.1/b"],
    ...     "2030-01-05T00:00:00Z")
    >>> s["sample/dois"], s["sample/size"], s["sample/reason"], s["sample/timestamp"]
    (['10.1/a', '10.1/b'], 2, 'registry', '2030-01-05T00:00:00Z')
    """
    # A pick no larger than its panel is a revisit of it: the panel here is the kept DOIs, never the prefix's.
    revisit = pick_sample(run_id, order, replace(pick, dois=len(dois)), list(dois), planned, names)
    return {**revisit, "sample/panel": []}


def picked(doc: dict) -> dict:
    """A prefix's document once its registry pick is in the plan: its kept DOIs cleared, its signal gone."""
    signals = sorted(set(doc.get("prefix/signals") or ()) - {REGISTRY_CHANGED})
    return {**doc, "prefix/registry-dois": [], "prefix/signals": signals}
