"""The one aggregation over a stream of analysis documents. `Aggregate.add` reads each document once, for all it adds
to: the prefix, domain and member reports (their tallies), the artifacts (pairs, visit ends, times seen) and the
member figures (a member's prefixes, the domains its DOIs ended on, the examples to show). `artifacts()` and
`reports()` read it, as landing.core.publishing.member_figures does for members.jsonl.gz and domains.jsonl.gz.

Memory is bounded by prefixes × domains and by members × (prefixes + domains + examples), never by DOIs.
"""

from collections.abc import Iterator

from landing.core.pids.doi import prefix as doi_prefix
from landing.core.publishing.artifact_sets import Artifacts, known_ra
from landing.core.publishing.sightings import span
from landing.core.publishing.tally import BAD, CONFIRMED, GOOD, Tally
from landing.core.registries.names import Latest, keyed
from landing.core.registries.names import read as names_in
from landing.core.web.failures import CLASSES
from landing.core.web.hostnames import valid_hostname

FOUND_KEYS = ("analysis/doi-in-meta-tags", "analysis/doi-in-text", "analysis/doi-in-hyperlinks")
REACHED = "page"  # the class of a visit that reached a page, beside the failure classes (landing.core.web.failures)
EXAMPLES = 10  # a member's DOIs shown as examples
META_TAGS = 5  # an example's meta tags kept
EXAMPLE_KEYS = ("doi", "url", "domain", "error", "correctness", "meta-tags", "doi-in-meta-tags", "visited")
_WRONG = ("incorrect", "conflict")
# Examples of what went wrong come first, in this order; then ok ones.
ORDER = {name: rank for rank, name in enumerate((*CLASSES, "incorrect", "conflict", "missing"))}


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


def example(doc: dict) -> tuple:
    """What a reader needs to see of one DOI's visit (where it ended, how, what its page stated), as a tuple of
    EXAMPLE_KEYS' values: a member keeps up to ten while the analyses stream by, and a tuple is smaller."""
    urls = doc.get("snapshot/urls") or []
    return (
        doc.get("pid/doi"),
        doc.get("snapshot/final-url") or (urls[-1] if urls else None) or doc.get("snapshot/resource-url"),
        doc.get("snapshot/final-url-domain"),
        doc.get("snapshot/error"),
        doc.get("analysis/meta-tag-correctness"),
        tuple(tuple(pair) for pair in (doc.get("analysis/meta-tags") or [])[:META_TAGS]),
        doc.get("analysis/doi-in-meta-tags"),
        doc.get("snapshot/timestamp"),
    )


def _brief(doc: dict) -> dict:
    """A DOI and the URL its visit ended on (or last tried), as an alert names them."""
    kept = example(doc)
    return {"doi": kept[0], "url": kept[1]}


def _rank(kind: str) -> tuple:
    return ORDER.get(kind, len(ORDER)), kind


class MemberDomain:
    """A member's DOIs that ended on one domain: their tally, the prefixes that led there, and a DOI to show of
    each trouble: a page that states another DOI, one that states none, a visit that failed."""

    __slots__ = ("tally", "prefixes", "wrong", "lacking", "failed")

    def __init__(self):
        # A list: nearly always one prefix, and a one-item list takes a third of a set's memory
        self.tally, self.prefixes, self.wrong, self.lacking, self.failed = Tally(), [], None, None, None

    def note(self, doc: dict) -> None:
        """Keep the first DOI of each trouble: {doi, url}, and the failure class of a visit that failed."""
        correctness = doc.get("analysis/meta-tag-correctness")
        if self.wrong is None and correctness in _WRONG:
            self.wrong = doc.get("pid/doi")
        elif self.lacking is None and correctness == "missing":
            self.lacking = _brief(doc)
        elif self.failed is None and doc.get("snapshot/error"):
            self.failed = {**_brief(doc), "error": doc["snapshot/error"]}


class Member:
    """A member's DOIs: their tally (its related keys: the domains they led to), one per prefix, one per domain they
    ended on, and the examples to show; its ra and id as its first analysis gave them."""

    __slots__ = ("ra", "member_id", "tally", "prefixes", "domains", "examples", "oks")

    def __init__(self, ra: str, member_id: str):
        self.ra, self.member_id = ra, member_id
        self.tally = Tally()
        self.prefixes: dict[str, Tally] = {}
        self.domains: dict[str, MemberDomain] = {}
        self.examples: dict[str, tuple] = {}  # failure class or non-ok correctness -> its first example
        self.oks: list[tuple] = []

    def add(self, doc: dict, prefix: str | None, ended: str | None, domain: str | None, reached: bool, found: bool):
        """Count one of its analyses: `ended`, the host its visit ended on; `domain`, the one it was followed to."""
        self.tally.add(doc, domain, reached, found)
        if prefix is not None:
            self.prefixes.setdefault(prefix, Tally()).add(doc, domain, reached, found)
        if ended is not None:
            there = self.domains.get(ended)
            if there is None:
                there = self.domains[ended] = MemberDomain()
            there.tally.add(doc, None, reached, found)
            if prefix is not None and prefix not in there.prefixes:
                there.prefixes.append(prefix)
            there.note(doc)
        self._example(doc)

    def _example(self, doc: dict) -> None:
        """Keep at most EXAMPLES: the first DOI of each kind of trouble (the first kinds in ORDER when there are more),
        then ok ones while there is room."""
        kind = doc.get("snapshot/error") or doc.get("analysis/meta-tag-correctness")
        if kind == "ok":
            if len(self.oks) + len(self.examples) < EXAMPLES:
                self.oks.append(example(doc))
            return
        if kind is None or kind in self.examples:
            return
        if len(self.examples) == EXAMPLES:  # more kinds of trouble than shown: the last in ORDER gives way
            last = max(self.examples, key=_rank)
            if _rank(kind) > _rank(last):
                return
            del self.examples[last]
        self.examples[kind] = example(doc)
        del self.oks[max(0, EXAMPLES - len(self.examples)) :]

    def shown(self) -> list[tuple]:
        """Its examples as shown: the kinds of trouble in ORDER, then ok pages, at most EXAMPLES."""
        wrong = [self.examples[kind] for kind in sorted(self.examples, key=_rank)]
        return (wrong + self.oks)[:EXAMPLES]


class Aggregate:
    """Single-pass accumulator over analysis documents; `.artifacts()`, `.reports()` and the member figures read it."""

    def __init__(self):
        self.ras: dict[str, str] = {}
        self.by_prefix: dict[str, Tally] = {}
        self.by_domain: dict[str, Tally] = {}
        self.by_member: dict[str, Member] = {}
        self.ends: dict[tuple[str, str, str], int] = {}  # (domain, prefix, class) -> DOIs
        self.seen: dict[tuple[str, str], tuple[str, str]] = {}  # (prefix, domain or "") -> (first, last) visit time
        self.names = Latest()  # member -> its names on its latest sampled pid that had any

    def add(self, doc: dict) -> None:
        """Count one analysis document (failures included), for every report, artifact and member figure at once."""
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
        key = doc.get("pid/global-member-id") or (f"{ra}/{member_id}" if ra and member_id else None)
        if key is not None:
            member = self.by_member.get(key)
            if member is None:
                member = self.by_member[key] = Member(ra, member_id or "")
            member.add(doc, prefix, ended, domain, reached, found)
            self.names.add(key, doc.get("pid/timestamp") or "", names_in("pid", doc))

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
                if flags & CONFIRMED:
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
        (a full run has one per prefix, domain and member: as a list they would all be in memory at once)."""
        owner = self.owners()
        for prefix in sorted(self.by_prefix):
            report = self.by_prefix[prefix].report("prefix", prefix, "domains")
            member = owner.get(prefix)
            name = self.names.of(member).name if member else None
            yield {**report, "report/ra": self.ras[prefix], "report/member": member, "report/member-name": name}
        for domain in sorted(self.by_domain):
            yield self.by_domain[domain].report("domain", domain, "prefixes")
        for key in sorted(self.by_member):
            member = self.by_member[key]
            report = member.tally.report("member", key, "domains")
            ids = {"report/ra": member.ra, "report/member-id": member.member_id}
            yield {**report, **ids, **keyed("report", self.names.of(key))}

    def owners(self) -> dict[str, str]:
        """Each prefix's member with most DOIs under it (the first by key of those with as many)."""
        best: dict[str, tuple[int, str]] = {}
        for key, member in self.by_member.items():
            for prefix, tally in member.prefixes.items():
                held = best.get(prefix)
                if held is None or (-tally.dois, key) < (-held[0], held[1]):
                    best[prefix] = (tally.dois, key)
        return {prefix: key for prefix, (_, key) in best.items()}
