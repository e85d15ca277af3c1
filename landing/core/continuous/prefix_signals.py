"""What a prefix's latest sample shows against its earlier visits: the signals that make continuous sampling
recheck it sooner and deeper (landing.core.continuous.freshness). Analysis documents in, a set of names out.
"""

from collections import Counter
from collections.abc import Iterable, Sequence

from landing.core.publishing.alerts import MIN_READ, SHARE_DROP
from landing.core.publishing.current_analysis import current

NEW = "new"  # the listing names the prefix under an owner it was not known under (set by the listing's diff)
DOMAIN_CHANGED = "domain-changed"  # a visit reached a domain no earlier visit of the prefix reached
FAILING = "failing"  # most of the latest visits failed, most earlier ones did not
META_TAGS_CHANGED = "meta-tags-changed"  # the prefix's usual meta-tag correctness is no longer the same
SHARE_FELL = "share-fell"  # the share of correct pages fell on too few pages to tell: sampled deeper, not alerted
# The registries updated DOIs of the prefix onto a domain it was not seen on (landing.core.continuous.registry_deltas):
# set by a registry delta, not by a sample, and gone once those DOIs are picked for a visit.
REGISTRY_CHANGED = "registry-changed"
SIGNALS = (NEW, DOMAIN_CHANGED, FAILING, META_TAGS_CHANGED, SHARE_FELL, REGISTRY_CHANGED)
NO_SIGNALS: frozenset[str] = frozenset()


def signals(earlier: Iterable[dict], latest: Iterable[dict]) -> frozenset[str]:
    """What a prefix's latest sample shows against its earlier visits (analysis documents; a DOI visited by both
    drivers counts once, as in reports). Nothing when there is nothing earlier to compare with.

    >>> def visit(doi, domain, error=None, correctness="ok"):
    ...     return {"pid/doi": doi, "snapshot/final-url-domain": domain, "snapshot/error": error,
    ...             "snapshot/timestamp": "2026-11-01T00:00:00Z", "analysis/meta-tag-correctness": correctness}
    >>> before = [visit("10.1/a", "old.example"), visit("10.1/b", "old.example")]
    >>> sorted(signals(before, [visit("10.1/c", "new.example", correctness="missing")]))
    ['domain-changed', 'meta-tags-changed']
    >>> sorted(signals(before, [visit("10.1/c", "old.example", error="http-5xx", correctness=None)]))
    ['failing']
    >>> signals(before, [visit("10.1/c", "old.example")]), signals([], before)
    (frozenset(), frozenset())
    >>> fell = [visit("10.1/c", "old.example"), visit("10.1/d", "old.example"),
    ...         visit("10.1/e", "old.example", correctness="missing")]
    >>> signals(before, fell)  # 2 of 3 read state their DOI, all did: too few to tell, sampled deeper
    frozenset({'share-fell'})
    """
    old, new = _per_doi(earlier), _per_doi(latest)
    if not old or not new:
        return frozenset()
    found = set()
    known = {doc.get("snapshot/final-url-domain") for doc in old} - {None}
    if known and any(doc.get("snapshot/final-url-domain") not in known | {None} for doc in new):
        found.add(DOMAIN_CHANGED)
    if _mostly_failed(new) and not _mostly_failed(old):
        found.add(FAILING)
    habit_before, habit_now = _habit(old), _habit(new)
    if habit_before and habit_now and habit_before != habit_now:
        found.add(META_TAGS_CHANGED)
    (ok_before, read_before), (ok_now, read_now) = _correct(old), _correct(new)
    if META_TAGS_CHANGED not in found and read_before and 0 < read_now < MIN_READ:
        if ok_now / read_now <= ok_before / read_before - SHARE_DROP:
            found.add(SHARE_FELL)
    return frozenset(found)


def _per_doi(docs: Iterable[dict]) -> list[dict]:
    return list(current(sorted(docs, key=lambda doc: doc.get("pid/doi") or "")))


def _mostly_failed(docs: Sequence[dict]) -> bool:
    return sum(doc.get("snapshot/error") is not None for doc in docs) * 2 > len(docs)


def _correct(docs: Sequence[dict]) -> tuple[int, int]:
    """(pages whose meta tags state their DOI correctly, pages read), as the report counts them."""
    read = [d.get("analysis/meta-tag-correctness") for d in docs if d.get("snapshot/error") is None]
    read = [correctness for correctness in read if correctness]
    return read.count("ok"), len(read)


def _habit(docs: Sequence[dict]) -> str | None:
    """The most common meta-tag correctness of the pages reached (ties: the first in name order)."""
    counts = Counter(doc.get("analysis/meta-tag-correctness") for doc in docs if doc.get("snapshot/error") is None)
    counts.pop(None, None)
    return min(counts, key=lambda value: (-counts[value], value)) if counts else None
