"""Reports and artifacts from a stream of analysis documents; additive merge, render, parse, diff.

One accumulator (`Aggregate`) is the only place the rules live: its `artifacts` and its `reports` both read it. The
decision structure's file is written and read by its model (landing.core.decisions.Decisions).
"""

import csv
import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from landing.core.decisions import Decisions, made
from landing.core.decisions import excluding as vouching
from landing.core.doi import prefix as doi_prefix
from landing.core.exclusions import excluded
from landing.core.hostnames import valid_hostname
from landing.core.labels import printable
from landing.core.names import KEYS, Latest, keyed
from landing.core.names import read as names_in
from landing.core.seen import SEEN_CSV, SEEN_FIELDS, merged, span
from landing.core.spreadsheet import writer

GOOD_CSV = "prefixes-domains.csv"
BAD_CSV = "prefixes-domains-bad.csv"
DECISIONS_JSON = "domain-decision-structure.json"
FILENAMES = (GOOD_CSV, BAD_CSV, DECISIONS_JSON, SEEN_CSV)

CORRECTNESS = ("ok", "incorrect", "conflict", "missing")
FOUND_KEYS = ("analysis/doi-in-meta-tags", "analysis/doi-in-text", "analysis/doi-in-hyperlinks")
GOOD, BAD, _CONFIRMED = 1, 2, 4  # a report key's flags for a related key
# The Percolator's `prefix,domain,ra`. A header is tolerated on input only: render writes none.
_HEADER = ("prefix", "domain", "ra")
_DATED = 5  # this project's versions of 2026-11 wrote first-seen and last-seen after the three: still read
# Every key a report document has (`Tally.report`, `Aggregate.reports`), spelled here once: the stores map them.
REPORT_KEYS = (
    "report/kind",
    "report/key",
    "report/ra",
    "report/member-id",
    "report/dois",
    "report/errors",
    "report/correctness",
    "report/good-domains",
    "report/bad-domains",
    "report/good-prefixes",
    "report/bad-prefixes",
    *KEYS["report"],  # a member report's names (landing.core.names)
    "report/member",  # a prefix report's member with most DOIs under it, and its name
    "report/member-name",
)


class ArtifactError(ValueError):
    """An artifact that cannot be read, the one error of every artifact reader: which (`name`: its file name or path)
    and what is wrong with it, in one printable line, `name: what` unless `said` words it otherwise."""

    def __init__(self, name, what: str, said: str | None = None):
        super().__init__(printable(f"{name}: {what}" if said is None else said))
        self.name, self.what = name, what


@dataclass(frozen=True)
class Artifacts:
    """good/bad: (prefix, domain, ra); prefixes: (prefix, ra), one ra each ("" = unknown);
    recognised/confirmed: (domain, prefix); ends: (domain, prefix, class, DOIs), how the visits of the prefix's
    DOIs that led to the domain ended; seen: (prefix, domain or "" for the prefix itself, first-seen, last-seen),
    the times (UTC, ISO 8601) of the first and last visits that saw it. Every prefix named anywhere is also in
    `prefixes`."""

    good: frozenset = field(default_factory=frozenset)
    bad: frozenset = field(default_factory=frozenset)
    prefixes: frozenset = field(default_factory=frozenset)
    recognised: frozenset = field(default_factory=frozenset)
    confirmed: frozenset = field(default_factory=frozenset)
    ends: frozenset = field(default_factory=frozenset)
    seen: frozenset = field(default_factory=frozenset)


REACHED = "page"  # the class of a visit that reached a page, beside the failure classes (landing.core.failures)


def known_ra(ras: dict[str, str], prefix: str, ra: str) -> None:
    """Note a prefix's registration agency in `ras`: the first non-empty one wins, so a stray value later on never
    flips a prefix's agency ("" only while none is known).

    >>> ras = {}
    >>> for ra in ("", "crossref", "datacite"):
    ...     known_ra(ras, "10.1", ra)
    >>> ras
    {'10.1': 'crossref'}
    """
    if not ras.get(prefix):
        ras[prefix] = ra


def followed_domain(doc: dict) -> str | None:
    """The domain a DOI's visit led to, whatever the visit's class: None when it never left the resolver (no
    resource URL), ended nowhere or on a host that is no hostname, or where the guard refused to go (a private
    address is no publisher's)."""
    domain = ended_on(doc)
    if domain is None or doc.get("snapshot/resource-url") is None or doc.get("snapshot/error") == "refused-address":
        return None
    return domain


def ended_on(doc: dict) -> str | None:
    """The host the visit ended on, None when none or when it is no hostname (a formula, a control character...)."""
    domain = doc.get("snapshot/final-url-domain") or None
    return domain if valid_hostname(domain) else None


class Tally:
    """Counts and related keys for one report key; sized by distinct pairs, not by docs."""

    # A full run holds one per prefix, domain and member (~130,000) while the crawl closes. Each related key is one
    # dict entry with its flags (three sets were ~650 bytes a tally before any key), and the dicts stay empty,
    # so unallocated, until used: less than half the memory a tally took before (bench/README.md).
    __slots__ = ("dois", "correctness", "errors", "related")

    def __init__(self):
        self.dois = 0
        self.correctness = {}
        self.errors = {}
        self.related = {}  # other key -> GOOD | BAD, and _CONFIRMED

    def add(self, doc: dict, other: str | None, reached: bool, found: bool):
        self.dois += 1
        correctness = doc.get("analysis/meta-tag-correctness")
        if correctness is not None:
            self.correctness[correctness] = self.correctness.get(correctness, 0) + 1
        error = doc.get("snapshot/error")
        if error is not None:
            self.errors[error] = self.errors.get(error, 0) + 1
        if other is not None:  # followed there: a page that states the DOI is good, anything else bad
            flags = GOOD if reached and found else BAD
            flags |= _CONFIRMED if reached and correctness == "ok" else 0
            self.related[other] = self.related.get(other, 0) | flags

    def having(self, flag: int) -> list[str]:
        """The related keys with `flag`, sorted."""
        return sorted(other for other, flags in self.related.items() if flags & flag)

    def report(self, kind: str, key: str, related: str) -> dict:
        correctness = {name: self.correctness.get(name, 0) for name in CORRECTNESS}
        correctness.update(sorted((k, v) for k, v in self.correctness.items() if k not in correctness))
        return {
            "report/kind": kind,
            "report/key": key,
            "report/dois": self.dois,
            f"report/good-{related}": self.having(GOOD),
            f"report/bad-{related}": self.having(BAD),
            "report/correctness": correctness,
            "report/errors": dict(sorted(self.errors.items())),
        }


class Aggregate:
    """Single-pass accumulator over analysis documents; `.artifacts()` and `.reports()` read it."""

    def __init__(self):
        self.ras: dict[str, str] = {}
        self.by_prefix: dict[str, Tally] = {}
        self.by_domain: dict[str, Tally] = {}
        self.by_member: dict[str, Tally] = {}
        self.members: dict[str, tuple[str, str]] = {}
        self.ends: dict[tuple[str, str, str], int] = {}  # (domain, prefix, class) -> DOIs
        self.seen: dict[tuple[str, str], tuple[str, str]] = {}  # (prefix, domain or "") -> (first, last) visit time
        self.names = Latest()  # member -> its names on its latest sampled pid that had any
        self.owned: dict[tuple[str, str], int] = {}  # (prefix, member) -> DOIs

    def add(self, doc: dict) -> None:
        """Count one analysis document (failures included)."""
        prefix = doc.get("pid/doi-prefix") or (doi_prefix(doc["pid/doi"]) if doc.get("pid/doi") else None)
        ra = doc.get("pid/ra") or ""
        ended = ended_on(doc)
        domain = followed_domain(doc)
        reached = doc.get("snapshot/error") is None and domain is not None
        found = any(doc.get(key) is not None for key in FOUND_KEYS)
        if prefix is not None:
            known_ra(self.ras, prefix, ra)
            self.by_prefix.setdefault(prefix, Tally()).add(doc, domain, reached, found)
            if domain is not None:
                end = (domain, prefix, doc.get("snapshot/error") or REACHED)
                self.ends[end] = self.ends.get(end, 0) + 1
            when = doc.get("snapshot/timestamp") or ""
            if when:
                for key in ((prefix, ""), (prefix, domain)) if domain else ((prefix, ""),):
                    self.seen[key] = span(self.seen.get(key), (when, when))
        if ended is not None:  # the domain's own report counts every visit that ended there, refused ones too
            self.by_domain.setdefault(ended, Tally()).add(doc, prefix if domain else None, reached, found)
        member_id = doc.get("pid/member-id")
        member = doc.get("pid/global-member-id") or (f"{ra}/{member_id}" if ra and member_id else None)
        if member is not None:
            self.members.setdefault(member, (ra, member_id or ""))
            self.by_member.setdefault(member, Tally()).add(doc, domain, reached, found)
            self.names.add(member, doc.get("pid/timestamp") or "", names_in("pid", doc))
            if prefix is not None:
                self.owned[(prefix, member)] = self.owned.get((prefix, member), 0) + 1

    def listed(self, prefix: str, ra: str) -> None:
        """A prefix its owner's listing names: known (a `prefix,,ra` line until a DOI of it leads somewhere)."""
        known_ra(self.ras, prefix, ra)

    def artifacts(self) -> Artifacts:
        """The artifact sets implied by everything added so far."""
        good, bad, recognised, confirmed = set(), set(), set(), set()
        for prefix, tally in self.by_prefix.items():
            ra = self.ras[prefix]
            for domain, flags in tally.related.items():
                if flags & GOOD:
                    good.add((prefix, domain, ra))
                if flags & BAD:
                    bad.add((prefix, domain, ra))
                recognised.add((domain, prefix))
                if flags & _CONFIRMED:
                    confirmed.add((domain, prefix))
        ends = frozenset((domain, prefix, end, n) for (domain, prefix, end), n in self.ends.items())
        seen = frozenset((prefix, domain, first, last) for (prefix, domain), (first, last) in self.seen.items())
        return Artifacts(
            frozenset(good),
            frozenset(bad),
            frozenset(self.ras.items()),
            frozenset(recognised),
            frozenset(confirmed),
            ends,
            seen,
        )

    def reports(self) -> Iterator[dict]:
        """Per prefix, per domain, per member report documents, each group sorted by key, made as they are read
        (a full run has ~130,000: as a list they would all be in memory at once)."""
        owner = self.owners()
        for prefix in sorted(self.by_prefix):
            report = self.by_prefix[prefix].report("prefix", prefix, "domains")
            member = owner.get(prefix)
            name = self.names.of(member).name if member else None
            yield {**report, "report/ra": self.ras[prefix], "report/member": member, "report/member-name": name}
        for domain in sorted(self.by_domain):
            yield self.by_domain[domain].report("domain", domain, "prefixes")
        for member in sorted(self.by_member):
            ra, member_id = self.members[member]
            report = self.by_member[member].report("member", member, "domains")
            yield {**report, "report/ra": ra, "report/member-id": member_id, **keyed("report", self.names.of(member))}

    def owners(self) -> dict[str, str]:
        """Each prefix's member with most DOIs under it (the first by key of those with as many)."""
        best: dict[str, tuple[int, str]] = {}
        for (prefix, member), dois in self.owned.items():
            held = best.get(prefix)
            if held is None or (-dois, member) < (-held[0], held[1]):
                best[prefix] = (dois, member)
        return {prefix: member for prefix, (_, member) in best.items()}


def report_id(doc: dict) -> str:
    """Derived id of a report document, so re-running a report overwrites rather than duplicates."""
    return f"{doc['report/kind']}:{doc['report/key']}"


def _one_ra_per_prefix(pairs: Iterable[tuple[str, str]]) -> frozenset:
    """Keep the first non-empty ra given for each prefix ("" only when none is known)."""
    ras: dict[str, str] = {}
    for prefix, ra in pairs:
        known_ra(ras, prefix, ra)
    return frozenset(ras.items())


def excluding(a: Artifacts, exclusions: frozenset[str]) -> Artifacts:
    """The artifacts with every excluded domain (landing.core.exclusions) kept only as followed: a good pair there
    is bad (a DOI led there, but the domain vouches for nothing), and its decisions are pruned as the matcher's are."""
    kept = vouching(decisions(a), exclusions)
    moved = {row for row in a.good if excluded(row[1], exclusions)}
    return Artifacts(
        good=a.good - moved,
        bad=a.bad | moved,
        prefixes=a.prefixes,
        recognised=kept.recognised,
        confirmed=kept.confirmed,
        ends=frozenset(end for end in a.ends if end[1] in kept.by_domain.get(end[0], ())),
        seen=a.seen,
    )


def merge(old: Artifacts, new: Artifacts) -> Artifacts:
    """Union of two versions; never removes an entry. A prefix keeps old's ra, or takes new's if unknown. A pair's
    visit ends are new's when new has the pair (an export counts every DOI of its store), else old's."""
    counted = {(domain, prefix) for domain, prefix, _, _ in new.ends}
    return Artifacts(
        good=old.good | new.good,
        bad=old.bad | new.bad,
        prefixes=_one_ra_per_prefix(sorted(old.prefixes) + sorted(new.prefixes)),
        recognised=old.recognised | new.recognised,
        confirmed=old.confirmed | new.confirmed,
        ends=new.ends | {end for end in old.ends if end[:2] not in counted},
        seen=merged((*old.seen, *new.seen)),
    )


def _csv(rows: Iterable[tuple[str, ...]]) -> str:
    buffer = io.StringIO()
    writer(buffer).writerows(sorted(rows))
    return buffer.getvalue()


def decisions(a: Artifacts) -> Decisions:
    """The decision structure of the artifacts: their pairs, each with its visit ends and when it was seen."""
    return made((p for p, _ in a.prefixes), a.recognised, a.confirmed, a.ends, a.seen)


def render(a: Artifacts) -> dict[str, str]:
    """Filename -> text of the four artifact files; sorted, deterministic, no CSV header."""
    with_good = {prefix for prefix, _, _ in a.good}
    good_rows = set(a.good) | {(p, "", ra) for p, ra in a.prefixes if p not in with_good}
    return {
        GOOD_CSV: _csv(good_rows),
        BAD_CSV: _csv(a.bad),
        DECISIONS_JSON: decisions(a).to_json(),
        SEEN_CSV: _csv(a.seen),
    }


def _rows(name: str, text: str, header: tuple[str, ...], widths: tuple[int, ...]) -> list[tuple[str, ...]]:
    """The lines of a CSV file but a header, each of one of `widths` fields; ArtifactError naming the file and the
    line otherwise."""
    reader = csv.reader(io.StringIO(text), strict=True)
    rows = []
    try:
        for row in map(tuple, reader):
            if row and row[: len(header)] != header:
                if len(row) not in widths:
                    what = f"{len(row)} fields, expected {','.join(header)}"
                    raise ArtifactError(name, f"line {reader.line_num}: {what}")
                rows.append(row)
    except csv.Error as error:
        raise ArtifactError(name, f"line {reader.line_num}: {error}") from None
    return rows


def _host(domain: str) -> bool:
    """Whether a domain read back is a hostname, or "" (an older version's may be neither)."""
    return not domain or valid_hostname(domain)


def parse(files: dict[str, str]) -> Artifacts:
    """Inverse of `render`; a missing file counts as empty, so the JSON alone is enough. A pair whose domain is no
    hostname (written before domains were checked) is left out; ArtifactError for a file that cannot be read."""
    good_rows, bad_rows = (_rows(name, files.get(name, ""), _HEADER, (3, _DATED)) for name in (GOOD_CSV, BAD_CSV))
    read = Decisions()
    if files.get(DECISIONS_JSON):
        try:
            read = Decisions.read(files[DECISIONS_JSON])
        except ValueError as error:
            raise ArtifactError(DECISIONS_JSON, str(error).removeprefix("domain-decision-structure: ")) from None
    # CSV lines carry the ra; the JSON only names prefixes, so its ra is unknown ("").
    known = [(row[0], row[2]) for row in (*good_rows, *bad_rows)]  # a prefix stays known when its domain is left out
    known += [(p, "") for p in sorted(read.prefixes)]
    good_rows, bad_rows = ([row for row in rows if _host(row[1])] for rows in (good_rows, bad_rows))
    spans = [row[:2] + row[3:] for row in (*good_rows, *bad_rows) if len(row) == _DATED and (row[3] or row[4])]
    spans += [row for row in _rows(SEEN_CSV, files.get(SEEN_CSV, ""), SEEN_FIELDS, (4,)) if _host(row[1])]
    return Artifacts(
        good=frozenset(row[:3] for row in good_rows if row[1]),
        bad=frozenset(row[:3] for row in bad_rows),
        prefixes=_one_ra_per_prefix(known),
        recognised=frozenset(pair for pair in read.recognised if _host(pair[0])),
        confirmed=frozenset(pair for pair in read.confirmed if _host(pair[0])),
        ends=frozenset(end for end in read.ends() if _host(end[0])),
        seen=merged(spans),
    )


def diff(old: Artifacts, new: Artifacts) -> dict[str, int]:
    """How many entries `new` has that `old` lacks, per artifact set (prefixes counted by name)."""
    return {
        "good": len(new.good - old.good),
        "bad": len(new.bad - old.bad),
        "recognised": len(new.recognised - old.recognised),
        "confirmed": len(new.confirmed - old.confirmed),
        "prefixes": len({p for p, _ in new.prefixes} - {p for p, _ in old.prefixes}),
    }


def current(analyses: Iterable[dict]) -> Iterator[dict]:
    """One analysis per DOI from a stream in id order (a DOI's documents are adjacent): the latest visit that
    reached a page, else the latest visit. A DOI visited by both drivers, or on several days, counts once."""
    best = None
    for doc in analyses:
        if best is not None and doc["pid/doi"] != best["pid/doi"]:
            yield best
            best = None
        if best is None or _rank(doc) > _rank(best):
            best = doc
    if best is not None:
        yield best


def _rank(doc: dict) -> tuple:
    return doc.get("snapshot/error") is None, doc.get("snapshot/timestamp") or ""
