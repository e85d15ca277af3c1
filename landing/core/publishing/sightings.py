"""First and last seen: the times (UTC, ISO 8601) of the first and last visits that saw a prefix, or a prefix on a
domain, and their artifact file beside the lists, `prefix,domain,first-seen,last-seen` (domain "" for the prefix)."""

from collections.abc import Iterable

SEEN_CSV = "prefixes-domains-seen.csv"
SEEN_FIELDS = ("prefix", "domain", "first-seen", "last-seen")


def span(a: tuple[str, str] | None, b: tuple[str, str] | None) -> tuple[str, str]:
    """From the first of two spans to the last (an empty time is unknown, not earliest).

    >>> span(("2026-01-02", "2026-01-05"), ("", "2026-03-04"))
    ('2026-01-02', '2026-03-04')
    """
    firsts = [each[0] for each in (a, b) if each and each[0]]
    lasts = [each[1] for each in (a, b) if each and each[1]]
    return min(firsts, default=""), max(lasts, default="")


def merged(spans: Iterable[tuple[str, str, str, str]]) -> frozenset:
    """One (prefix, domain, first, last) per pair, widened over every span given for it."""
    widest: dict[tuple[str, str], tuple[str, str]] = {}
    for prefix, domain, first, last in spans:
        widest[(prefix, domain)] = span(widest.get((prefix, domain)), (first, last))
    return frozenset((prefix, domain, first, last) for (prefix, domain), (first, last) in widest.items())
