"""The truth of an evolving world over time, for the tests and the benchmarks: where each prefix's DOIs land at a
simulated moment, which (prefix, domain) pairs were ever true, which moves the registries show (registry-visible:
the owner re-registered its DOIs' URLs) and which only a visit sees, each prefix's share of DOIs per site, and when
the artifacts first showed each move.

Read from the world's truth.jsonl (where each DOI lands in the world as generated) and timeline.jsonl (what changed,
when: landing_dev.sandbox.evolution); the server applies the same events (landing_dev.sandbox.evolving).
"""

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from statistics import median
from urllib.parse import urlsplit

from landing_dev.sandbox.world import STAMP, TIMELINE

_ENDS = ("final_url", "cookie_final_url", "browser_final_url", "end_url", "landing_url")


def moment(stamp: str) -> datetime:
    """A timeline stamp as an aware datetime.

    >>> moment("2030-01-02T03:04:05Z").isoformat()
    '2030-01-02T03:04:05+00:00'
    """
    return datetime.strptime(stamp, STAMP).replace(tzinfo=UTC)


@dataclass(frozen=True)
class Doi:
    """What the truth says of one DOI: its owner and prefix, every host a visit of it may end on, and the site its
    landing page lives on (None: it has none)."""

    ra: str
    owner: str
    prefix: str
    hosts: frozenset
    site: str | None = None
    registered: str | None = None  # the host of its registered URL: a redirector's, when its owner runs one


def doi_of(record: dict) -> Doi:
    """A truth.jsonl record's DOI: the hosts of its final URLs (the three reference clients), and where the http
    client stopped (a failing visit still names its domain in the artifacts)."""
    hosts = {urlsplit(record[key]).hostname for key in _ENDS if record.get(key)}
    site = urlsplit(record.get("landing_url") or "").hostname
    registered = (urlsplit(record.get("resource_url") or "").hostname or "").lower() or None
    return Doi(record["ra"], str(record["member_id"]), record["prefix"], frozenset(hosts - {None}), site, registered)


class Timeline:
    """An evolving world's truth: its DOIs and its events (each with `at` a datetime), queried at a moment."""

    def __init__(self, dois: Iterable[Doi], events: Iterable[dict]):
        self.dois = list(dois)
        self.events = sorted(({**e, "at": moment(e["at"])} for e in events), key=lambda e: e["at"])
        self.owner_since = {(e["ra"], str(e["owner"])): e["at"] for e in self.events if e["kind"] == "new-owner"}
        self.prefix_since = {e["prefix"]: e["at"] for e in self.events if e["kind"] == "new-prefix"}

    @classmethod
    def load(cls, directory) -> "Timeline":
        directory = Path(directory)
        with (directory / "truth.jsonl").open(encoding="utf-8") as lines:
            dois = [doi_of(json.loads(line)) for line in lines if line.strip()]
        path = directory / TIMELINE
        lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
        return cls(dois, [json.loads(line) for line in lines if line.strip()])

    def of_kind(self, kind: str) -> list[dict]:
        return [e for e in self.events if e["kind"] == kind]

    def moves(self, registry: bool) -> list[dict]:
        """The registry-visible moves (True) or the registry-silent ones (False); a move that does not say is
        registry-visible, as the server takes it."""
        return [e for e in self.of_kind("move") if e.get("registry", True) == registry]

    def registry_shows(self, move: dict, prefix: str) -> bool:
        """Whether the registries show `move` for `prefix`: it is registry-visible and a DOI of the prefix on the moved
        site is registered there (a DOI registered on its owner's redirector keeps its URL: only a visit sees it)."""
        host = move["host"].lower()
        return move.get("registry", True) and any(
            d.prefix == prefix and d.registered == host and move["host"] in d.hosts for d in self.dois
        )

    def registry_split(self, found: list["Detection"]) -> tuple[list["Detection"], list["Detection"], int]:
        """(the pairs the registries show, the others, how many of the others are of a registry-visible move): each
        moved pair of `found` (detections) by `registry_shows`."""
        moves = {(m["at"], m["to"]): m for m in self.of_kind("move")}
        shown, silent = [], []
        for d in found:
            (shown if self.registry_shows(moves[(d.moved, d.domain)], d.prefix) else silent).append(d)
        return shown, silent, sum(moves[(d.moved, d.domain)].get("registry", True) for d in silent)

    def site_of(self, domain: str) -> str:
        """The site a domain serves: a moved site's new domains count as the site itself."""
        return next((e["host"] for e in self.of_kind("move") if e["to"] == domain), domain)

    def site_shares(self) -> dict[str, dict[str, float]]:
        """Per prefix, the share of its DOIs (those with a landing page) on each site."""
        counts: dict[str, dict[str, int]] = {}
        for doi in self.dois:
            if doi.site:
                sites = counts.setdefault(doi.prefix, {})
                sites[doi.site] = sites.get(doi.site, 0) + 1
        return {p: {s: n / sum(sites.values()) for s, n in sites.items()} for p, sites in counts.items()}

    def moved(self, t: datetime) -> dict[str, str]:
        """Base host -> the domain it serves from at t, for the sites that moved by then."""
        return {e["host"]: e["to"] for e in self.events if e["kind"] == "move" and e["at"] <= t}

    def visible(self, doi: Doi, t: datetime) -> bool:
        """Whether the registries list the DOI at t (its owner and prefix have appeared)."""
        since = max(self.owner_since.get((doi.ra, doi.owner), _EPOCH), self.prefix_since.get(doi.prefix, _EPOCH))
        return since <= t

    def pairs_at(self, t: datetime) -> set[tuple[str, str]]:
        """Every (prefix, domain) true at t: a DOI listed then, ending on that domain."""
        moved = self.moved(t)
        return {(d.prefix, moved.get(h, h)) for d in self.dois if self.visible(d, t) for h in d.hosts}

    def domains_at(self, prefix: str, t: datetime) -> set[str]:
        """The domains a prefix's DOIs land on at t."""
        return {domain for p, domain in self.pairs_at(t) if p == prefix}

    def pairs_until(self, t: datetime) -> set[tuple[str, str]]:
        """Every pair true at some moment up to t: only moves and appearances change it, so the truth at each."""
        moments = [e["at"] for e in self.events if e["at"] <= t and e["kind"] in _CHANGING]
        found = set()
        for when in [_EPOCH, *moments]:
            found |= self.pairs_at(when)
        return found


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_CHANGING = ("move", "new-owner", "new-prefix")


def domains_at(world, prefix: str, t: datetime) -> set[str]:
    """The domains a prefix's DOIs land on at t, in a world directory (or a loaded Timeline)."""
    return (world if isinstance(world, Timeline) else Timeline.load(world)).domains_at(prefix, t)


@dataclass(frozen=True)
class Detection:
    """One moved (prefix, domain) pair and the first artifact version that showed it (None: none did)."""

    moved: datetime
    prefix: str
    domain: str
    shown: datetime | None

    @property
    def days(self) -> float | None:
        return None if self.shown is None else (self.shown - self.moved).total_seconds() / 86400


def detections(timeline: Timeline, versions: list[tuple[datetime, set]], moves=None) -> list[Detection]:
    """For each move (of `moves`, default all), each prefix it took to the new domain (listed at the move): when a
    version first showed the pair.

    `versions`: (the version's time, its (prefix, domain) pairs), any order. A version made before the move does not
    count, even if it names the pair.
    """
    ordered = sorted(versions, key=lambda v: v[0])
    found = []
    for move in timeline.of_kind("move") if moves is None else moves:
        listed = {d.prefix for d in timeline.dois if move["host"] in d.hosts and timeline.visible(d, move["at"])}
        for prefix in sorted(listed):
            pair = (prefix, move["to"])
            shown = next((when for when, pairs in ordered if when >= move["at"] and pair in pairs), None)
            found.append(Detection(move["at"], prefix, move["to"], shown))
    return found


def summary(found: list[Detection], within_days: float, until: datetime | None = None) -> dict:
    """Median and max days to detection, the share detected within `within_days`, and how many were never shown.
    A pair not shown yet that moved less than `within_days` before `until` (the run's end) is `pending`: the run
    ended before its bound, so it counts in no share.

    >>> t = moment("2030-01-01T00:00:00Z")
    >>> summary([Detection(t, "10.1", "a", moment("2030-01-03T00:00:00Z")), Detection(t, "10.2", "a", None)], 7)
    {'pairs': 2, 'shown': 1, 'median_days': 2.0, 'max_days': 2.0, 'within': 0.5, 'pending': 0}
    >>> summary([Detection(t, "10.2", "a", None)], 7, until=moment("2030-01-05T00:00:00Z"))["pending"]
    1
    """
    pending = [
        d
        for d in found
        if d.shown is None and until is not None and (until - d.moved).total_seconds() < within_days * 86400
    ]
    judged = [d for d in found if d not in pending]
    days = [d.days for d in found if d.days is not None]
    within = sum(d.days is not None and d.days <= within_days for d in judged)
    return {
        "pairs": len(found),
        "shown": len(days),
        "median_days": median(days) if days else None,
        "max_days": max(days) if days else None,
        "within": within / len(judged) if judged else None,
        "pending": len(pending),
    }


def coverage(shares: dict[str, dict[str, float]], seen: dict[str, set], least: float = 0.05) -> tuple[int, int]:
    """Of the (prefix, site) pairs where the site holds at least `least` of the prefix's DOIs: how many the visits
    reached (`seen`: prefix -> the sites its visits ended on), and how many there are.

    >>> coverage({"10.1": {"a": 0.9, "b": 0.07, "c": 0.03}, "10.2": {"d": 1.0}}, {"10.1": {"a", "c"}})
    (1, 3)
    """
    held = [(prefix, site) for prefix, sites in shares.items() for site, share in sites.items() if share >= least]
    return sum(site in seen.get(prefix, ()) for prefix, site in held), len(held)


def wrong_pairs(timeline: Timeline, pairs: set, until: datetime) -> set:
    """The pairs an artifact names that were never true up to `until`."""
    return set(pairs) - timeline.pairs_until(until)
