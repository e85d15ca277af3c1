"""The report's data per member and per domain (members.jsonl.gz, domains.jsonl.gz beside each version), from the
stream of current analyses that the Aggregate reads, in the same pass. Documents in, JSON-ready dicts out.

Counted with the report documents' own tally (landing.core.artifacts), so a member's DOIs, correctness and errors
are its member report's. Memory is bounded by members × (prefixes + domains + examples), never by DOIs.
"""

import heapq
from collections.abc import Iterator

# One copy of the rules: the tally and the domain a visit ended on are the report documents' own.
from landing.core.artifacts import BAD, CORRECTNESS, FOUND_KEYS, GOOD, Tally, ended_on, followed_domain
from landing.core.doi import prefix as doi_prefix
from landing.core.failures import CLASSES
from landing.core.names import Latest
from landing.core.names import read as names_in

MEMBER_DOMAINS = 50  # a member's domains with most DOIs, and a domain's members with most DOIs, that are listed
PREFIX_DOMAINS = 20  # good and bad domains listed per prefix
EXAMPLES = 10
META_TAGS = 5
_WRONG = ("incorrect", "conflict")
# Examples of what went wrong come first, in this order; then ok ones.
_ORDER = {name: rank for rank, name in enumerate((*CLASSES, "incorrect", "conflict", "missing"))}


def share(ok: int, read: int) -> float | None:
    """ok / read rounded to 4 places, None when nothing was read.

    >>> share(1, 3), share(0, 0)
    (0.3333, None)
    """
    return round(ok / read, 4) if read else None


def counts(tally: Tally) -> dict:
    """A tally's figures in Contract 2's order: dois, read, correctness, errors, failed, ok-share."""
    correctness = {name: tally.correctness.get(name, 0) for name in CORRECTNESS}
    correctness.update(sorted((k, v) for k, v in tally.correctness.items() if k not in correctness))
    read = sum(correctness.values())
    return {
        "dois": tally.dois,
        "read": read,
        "correctness": correctness,
        "errors": dict(sorted(tally.errors.items())),
        "failed": sum(tally.errors.values()),
        "ok-share": share(correctness["ok"], read),
    }


_EXAMPLE_KEYS = ("doi", "url", "domain", "error", "correctness", "meta-tags", "doi-in-meta-tags", "visited")


def example(doc: dict) -> tuple:
    """What a reader needs to see of one DOI's visit (where it ended, how, what its page stated), as a tuple of
    `_EXAMPLE_KEYS`' values: a member keeps up to ten while the analyses stream by, and a tuple is smaller."""
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


def _shown(kept: tuple) -> dict:
    found = dict(zip(_EXAMPLE_KEYS, kept))
    found["meta-tags"] = [list(pair) for pair in found["meta-tags"]]
    return found


class _Domain:
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


def _brief(doc: dict) -> dict:
    """A DOI and the URL its visit ended on (or last tried), as an alert names them."""
    kept = example(doc)
    return {"doi": kept[0], "url": kept[1]}


class _Member:
    __slots__ = ("tally", "prefixes", "domains", "examples", "oks")

    def __init__(self):
        self.tally = Tally()
        self.prefixes: dict[str, Tally] = {}
        self.domains: dict[str, _Domain] = {}
        self.examples: dict[str, tuple] = {}  # failure class or non-ok correctness -> its first example
        self.oks: list[tuple] = []


class MemberFigures:
    """Single-pass accumulator beside the Aggregate: `add` each current analysis, then read `members()` and
    `domains()`, each sorted by key."""

    def __init__(self):
        self.by_member: dict[str, _Member] = {}
        self.by_domain: dict[str, Tally] = {}
        self.names = Latest()  # as the member report documents take them: the latest sampled pid's

    def add(self, doc: dict) -> None:
        """Count one analysis document, as Aggregate.add counts it for the member and domain reports."""
        ra, member_id = doc.get("pid/ra") or "", doc.get("pid/member-id")
        key = doc.get("pid/global-member-id") or (f"{ra}/{member_id}" if ra and member_id else None)
        prefix = doc.get("pid/doi-prefix") or (doi_prefix(doc["pid/doi"]) if doc.get("pid/doi") else None)
        domain = followed_domain(doc)
        ended = domain if domain is not None else ended_on(doc)  # a followed domain is where the visit ended
        reached = doc.get("snapshot/error") is None and domain is not None
        found = any(doc.get(name) is not None for name in FOUND_KEYS)
        if ended is not None:
            self.by_domain.setdefault(ended, Tally()).add(doc, None, reached, found)
        if key is None:
            return
        member = self.by_member.get(key)
        if member is None:
            member = self.by_member[key] = _Member()
        member.tally.add(doc, None, reached, found)  # its counts only: its domains are listed apart
        self.names.add(key, doc.get("pid/timestamp") or "", names_in("pid", doc))
        if prefix is not None:
            member.prefixes.setdefault(prefix, Tally()).add(doc, domain, reached, found)
        if ended is not None:
            there = member.domains.get(ended)
            if there is None:
                there = member.domains[ended] = _Domain()
            there.tally.add(doc, None, reached, found)
            if prefix is not None and prefix not in there.prefixes:
                there.prefixes.append(prefix)
            there.note(doc)
        self._example(member, doc)

    @staticmethod
    def _example(member: _Member, doc: dict) -> None:
        """Keep at most EXAMPLES: the first DOI of each kind of trouble (the first kinds in _ORDER when there are more),
        then ok ones while there is room."""
        kind = doc.get("snapshot/error") or doc.get("analysis/meta-tag-correctness")
        if kind == "ok":
            if len(member.oks) + len(member.examples) < EXAMPLES:
                member.oks.append(example(doc))
            return
        if kind is None or kind in member.examples:
            return
        if len(member.examples) == EXAMPLES:  # more kinds of trouble than shown: the last in _ORDER gives way
            last = max(member.examples, key=lambda k: (_ORDER.get(k, len(_ORDER)), k))
            if (_ORDER.get(kind, len(_ORDER)), kind) > (_ORDER.get(last, len(_ORDER)), last):
                return
            del member.examples[last]
        member.examples[kind] = example(doc)
        del member.oks[max(0, EXAMPLES - len(member.examples)) :]

    def members(self) -> Iterator[dict]:
        """members.jsonl.gz's objects, sorted by member."""
        for key in sorted(self.by_member):
            yield self._member(key, self.by_member[key])

    def _member(self, key: str, member: _Member) -> dict:
        ra, _, member_id = key.partition("/")
        name, provider_id, provider_name = self.names.of(key)
        prefixes = []
        for prefix in sorted(member.prefixes):
            tally = member.prefixes[prefix]
            good, bad = tally.having(GOOD), tally.having(BAD)
            prefixes.append(
                {
                    "prefix": prefix,
                    **counts(tally),
                    "good-domains": good[:PREFIX_DOMAINS],
                    "bad-domains": bad[:PREFIX_DOMAINS],
                }
            )
        most = heapq.nsmallest(MEMBER_DOMAINS, member.domains.items(), key=lambda item: (-item[1].tally.dois, item[0]))
        wrong = [member.examples[k] for k in sorted(member.examples, key=lambda k: (_ORDER.get(k, len(_ORDER)), k))]
        return {
            "member": key,
            "ra": ra,
            "id": member_id,
            "name": name,
            "provider": {"id": provider_id, "name": provider_name} if provider_id or provider_name else None,
            **counts(member.tally),
            "prefixes": prefixes,
            "domains": [
                {
                    "domain": domain,
                    **counts(there.tally),
                    "wrong-example": there.wrong,
                    "missing-example": there.lacking,
                    "failed-example": there.failed,
                }
                for domain, there in most
            ],
            "domains-total": len(member.domains),
            "examples": [_shown(kept) for kept in (wrong + member.oks)[:EXAMPLES]],
        }

    def domains(self) -> Iterator[dict]:
        """domains.jsonl.gz's objects, sorted by domain, each with the members whose DOIs ended there."""
        there: dict[str, list] = {}  # domain -> a bounded heap of (dois, -rank, member) with most DOIs
        totals: dict[str, int] = {}
        for rank, key in enumerate(sorted(self.by_member)):
            member = self.by_member[key]
            for domain, found in member.domains.items():
                totals[domain] = totals.get(domain, 0) + 1
                heap = there.setdefault(domain, [])
                entry = (found.tally.dois, -rank, key)
                if len(heap) < MEMBER_DOMAINS:
                    heapq.heappush(heap, entry)
                elif entry > heap[0]:
                    heapq.heapreplace(heap, entry)
        for domain in sorted(self.by_domain):
            listed = []
            for dois, _, key in sorted(there.get(domain, []), reverse=True):
                member = self.by_member[key]
                listed.append(
                    {
                        "member": key,
                        "name": self.names.of(key).name,
                        "dois": dois,
                        "prefixes": sorted(member.domains[domain].prefixes),
                    }
                )
            yield {
                "domain": domain,
                **counts(self.by_domain[domain]),
                "members": listed,
                "members-total": totals.get(domain, 0),
            }
