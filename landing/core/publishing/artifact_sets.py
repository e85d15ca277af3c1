"""The artifacts as a value: their sets of pairs, prefixes, visit ends and times seen, merged additively from one
version to the next, with the excluded domains only followed, and what a version added. Their files' format is
landing.core.publishing.artifact_format; what one aggregation over the analyses makes of them, landing.core.publishing.aggregation."""

from collections.abc import Iterable
from dataclasses import dataclass, field

from landing.core.matching.decisions import Decisions, made
from landing.core.matching.decisions import excluding as vouching
from landing.core.matching.exclusions import excluded
from landing.core.publishing.sightings import merged


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


def one_ra_per_prefix(pairs: Iterable[tuple[str, str]]) -> frozenset:
    """Keep the first non-empty ra given for each prefix ("" only when none is known).

    >>> sorted(one_ra_per_prefix([("10.1", ""), ("10.1", "datacite"), ("10.2", "crossref"), ("10.1", "crossref")]))
    [('10.1', 'datacite'), ('10.2', 'crossref')]
    """
    ras: dict[str, str] = {}
    for prefix, ra in pairs:
        known_ra(ras, prefix, ra)
    return frozenset(ras.items())


def decisions(a: Artifacts) -> Decisions:
    """The decision structure of the artifacts: their pairs, each with its visit ends and when it was seen."""
    return made((p for p, _ in a.prefixes), a.recognised, a.confirmed, a.ends, a.seen)


def excluding(a: Artifacts, exclusions: frozenset[str]) -> Artifacts:
    """The artifacts with every excluded domain (landing.core.matching.exclusions) kept only as followed: a good pair there
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
        prefixes=one_ra_per_prefix(sorted(old.prefixes) + sorted(new.prefixes)),
        recognised=old.recognised | new.recognised,
        confirmed=old.confirmed | new.confirmed,
        ends=new.ends | {end for end in old.ends if end[:2] not in counted},
        seen=merged((*old.seen, *new.seen)),
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
