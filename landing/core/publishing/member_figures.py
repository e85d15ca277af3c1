"""The report's data per member and per domain (members.jsonl.gz, domains.jsonl.gz beside each version), read from the
one aggregation (landing.core.publishing.aggregation) that makes the report documents and the artifacts, so a member's DOIs,
correctness and errors are its member report's, a domain's its domain report's. An Aggregate in, JSON-ready dicts out.
"""

import heapq
from collections.abc import Iterator

from landing.core.publishing.aggregation import EXAMPLE_KEYS, Aggregate, Member
from landing.core.publishing.tally import BAD, GOOD, Tally

MEMBER_DOMAINS = 50  # a member's domains with most DOIs, and a domain's members with most DOIs, that are listed
PREFIX_DOMAINS = 20  # good and bad domains listed per prefix


def share(ok: int, read: int) -> float | None:
    """ok / read rounded to 4 places, None when nothing was read.

    >>> share(1, 3), share(0, 0)
    (0.3333, None)
    """
    return round(ok / read, 4) if read else None


def counts(tally: Tally) -> dict:
    """A tally's figures in Contract 2's order: dois, read, correctness, errors, failed, ok-share."""
    correctness = tally.correctness_in_order()
    read = sum(correctness.values())
    return {
        "dois": tally.dois,
        "read": read,
        "correctness": correctness,
        "errors": dict(sorted(tally.errors.items())),
        "failed": sum(tally.errors.values()),
        "ok-share": share(correctness["ok"], read),
    }


def _shown(kept: tuple) -> dict:
    found = dict(zip(EXAMPLE_KEYS, kept))
    found["meta-tags"] = [list(pair) for pair in found["meta-tags"]]
    return found


def members(aggregate: Aggregate) -> Iterator[dict]:
    """members.jsonl.gz's objects, sorted by member."""
    for key in sorted(aggregate.by_member):
        yield _member(aggregate, key, aggregate.by_member[key])


def _member(aggregate: Aggregate, key: str, member: Member) -> dict:
    ra, _, member_id = key.partition("/")
    name, provider_id, provider_name = aggregate.names.of(key)
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
        "examples": [_shown(kept) for kept in member.shown()],
    }


def domains(aggregate: Aggregate) -> Iterator[dict]:
    """domains.jsonl.gz's objects, sorted by domain, each with the members whose DOIs ended there."""
    there: dict[str, list] = {}  # domain -> a bounded heap of (dois, -rank, member) with most DOIs
    totals: dict[str, int] = {}
    for rank, key in enumerate(sorted(aggregate.by_member)):
        member = aggregate.by_member[key]
        for domain, found in member.domains.items():
            totals[domain] = totals.get(domain, 0) + 1
            heap = there.setdefault(domain, [])
            entry = (found.tally.dois, -rank, key)
            if len(heap) < MEMBER_DOMAINS:
                heapq.heappush(heap, entry)
            elif entry > heap[0]:
                heapq.heapreplace(heap, entry)
    for domain in sorted(aggregate.by_domain):
        listed = []
        for dois, _, key in sorted(there.get(domain, []), reverse=True):
            member = aggregate.by_member[key]
            listed.append(
                {
                    "member": key,
                    "name": aggregate.names.of(key).name,
                    "dois": dois,
                    "prefixes": sorted(member.domains[domain].prefixes),
                }
            )
        yield {
            "domain": domain,
            **counts(aggregate.by_domain[domain]),
            "members": listed,
            "members-total": totals.get(domain, 0),
        }
