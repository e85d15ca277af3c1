"""The report directory's words, colours, tables and chart scales, pure: a Contract 2 object in, rows out.

A table is a list of columns (key, heading, kind) and rows keyed the same way; the HTML, CSV and JSON of a table
are all written from these rows, so the three always agree.
"""

from collections.abc import Iterable, Iterator

from landing.core.publishing.proportions import interval
from landing.core.publishing.report_figures import share
from landing.core.publishing.report_keys import CORRECTNESS
from landing.core.web.failures import CLASSES

# One palette for correctness (with "failed": a visit that read no page), another for failure classes; no colour
# means two things anywhere in the report.
CORRECTNESS_COLOURS = {
    "ok": "#2e7d32",
    "incorrect": "#c62828",
    "conflict": "#ef6c00",
    "missing": "#fbc02d",
    "failed": "#455a64",
}
FAILURE_COLOURS = dict(
    zip(
        CLASSES,
        (
            "#1f4e79",
            "#2e75b6",
            "#9dc3e6",
            "#7030a0",
            "#b4a7d6",
            "#8c564b",
            "#c49c94",
            "#17becf",
            "#006d77",
            "#e377c2",
            "#f7b6d2",
            "#6b6b00",
            "#bcbd22",
            "#000000",
            "#9e9e9e",
        ),
        strict=True,
    )
)
OTHER_COLOUR = "#d0d0d0"  # a class this code does not know (a store written by a later version)

CORRECTNESS_MEANINGS = {
    "ok": "every DOI in the page's DOI meta tags is the DOI that led there",
    "incorrect": "the DOI meta tags state one DOI, another one",
    "conflict": "the DOI meta tags state two or more different DOIs",
    "missing": "the page has no DOI meta tag stating a DOI",
    "failed": "no page was read: the visit ended in one of the failure classes below",
}
SHARE_MEANINGS = {
    "ok % of DOIs": "ok among all the DOIs sampled there: a failed visit counts against it (the tables rank by this)",
    "ok % of read": "ok among the pages read: failed visits left out",
}
FAILURE_MEANINGS = {
    "timeout": "the network failed: no answer in time",
    "dns": "the network failed: the host name did not resolve",
    "connection": "the network failed: the connection was refused or broken",
    "http-4xx": "the final response was a 4xx status (after retries)",
    "http-5xx": "the final response was a 5xx status (after retries)",
    "redirect-loop": "the redirect chain came back to a URL it had visited",
    "too-many-redirects": "more than 10 redirects, the resolver's included",
    "too-large": "the page was over 2 MiB",
    "not-html": "the final response was not HTML",
    "robots": "robots.txt disallowed a hop",
    "challenge": "a bot-protection interstitial (403/429/503) answered instead of the page",
    "js-required": "a page with no DOI, almost no text, that only scripts its way elsewhere",
    "cookie-required": "the chain went round a cookie check without the cookie sticking",
    "refused-address": "a hop led to a private, loopback or metadata address, or off the web (file:, ftp:...)",
    "invalid-host": "a URL named a host that is not a hostname, so it was never requested",
}
AGENCY_MEMBERS = {"crossref": "Crossref members", "datacite": "DataCite clients"}
SHOWN = ["dois", "read", *CORRECTNESS, "failed", "ok-of-dois", "ok-share"]
_COUNTS = [
    ("dois", "DOIs", "count"),
    ("read", "read", "count"),
    *((name, name, "count") for name in CORRECTNESS),
    ("failed", "failed", "count"),
    ("ok-of-dois", "ok % of DOIs", "share"),
    ("ok-share", "ok % of read", "share"),
]
# A member's name links to its page as its key does: people look for the name.
MEMBER_COLUMNS = [
    ("member", "member", "member"),
    ("name", "name", "member-name"),
    *_COUNTS,
    ("prefixes", "prefixes", "count"),
]
PREFIX_COLUMNS = [
    ("prefix", "prefix", "text"),
    ("member", "member", "member"),
    ("name", "name", "member-name"),
    *_COUNTS,
]
DOMAIN_COLUMNS = [("domain", "domain", "domain"), *_COUNTS, ("errors", "failure classes", "text")]
MEMBER_PREFIX_COLUMNS = [
    ("prefix", "prefix", "text"),
    *_COUNTS,
    ("errors", "failure classes", "text"),
    ("good-domains", "good domains", "domains"),
    ("bad-domains", "bad domains", "domains"),
]
DOMAIN_MEMBER_COLUMNS = [
    ("member", "member", "member"),
    ("name", "name", "member-name"),
    ("dois", "DOIs", "count"),
    ("prefixes", "prefixes", "text"),
]
EXAMPLE_COLUMNS = [
    ("doi", "DOI", "doi"),
    ("url", "landing URL", "url"),
    ("domain", "domain", "domain"),
    ("ended", "ended", "text"),
    ("doi-in-meta-tags", "DOI in meta tags as", "text"),
    ("meta-tags", "meta tags found", "text"),
]
CHANGE_COLUMNS = [
    ("prefix", "prefix", "text"),
    ("domain", "domain", "text"),
    ("appeared", "appeared", "text"),
    ("disappeared", "disappeared", "text"),
    ("unseen-since", "not seen since", "text"),
]
TREND_COLUMNS = [("version", "version", "text"), *_COUNTS]


def by_member(members: Iterable[dict], others: Iterable[dict]) -> Iterator[tuple[dict, dict | None]]:
    """Each member with the object of `others` for the same member, or None; both streams sorted by "member".

    >>> [(m["member"], o and o["n"]) for m, o in by_member([{"member": "a"}, {"member": "c"}],
    ...                                                       [{"member": "b", "n": 1}, {"member": "c", "n": 2}])]
    [('a', None), ('c', 2)]
    """
    rest = iter(others)
    other = next(rest, None)
    for member in members:
        while other is not None and other["member"] < member["member"]:
            other = next(rest, None)
        yield member, other if other is not None and other["member"] == member["member"] else None


def errors_said(errors: dict) -> str:
    """A row's failure classes as one cell, most first.

    >>> errors_said({"dns": 1, "robots": 3})
    'robots 3, dns 1'
    """
    return ", ".join(f"{name} {n}" for name, n in sorted(errors.items(), key=lambda item: (-item[1], item[0])))


def counted(obj: dict) -> dict:
    """The count columns of a Contract 2 object or a figures row (correctness flattened, shares computed)."""
    correctness = obj.get("correctness") or {}
    dois, read = obj.get("dois", 0), obj.get("read", sum(correctness.get(name, 0) for name in CORRECTNESS))
    errors = obj.get("errors") or {}
    return {
        "dois": dois,
        "read": read,
        **{name: correctness.get(name, 0) for name in CORRECTNESS},
        "failed": obj.get("failed", sum(errors.values())),
        "ok-of-dois": share(correctness.get("ok", 0), dois),
        "ok-share": share(correctness.get("ok", 0), read),
    }


def member_row(member: dict) -> dict:
    """A member's row in the members' table."""
    return {
        "member": member["member"],
        "name": member.get("name"),
        **counted(member),
        "prefixes": len(member.get("prefixes") or ()),
    }


def prefix_rows(member: dict) -> list[dict]:
    """A member's prefixes as rows of the prefixes' table (the member named on each)."""
    return [
        {"prefix": p["prefix"], "member": member["member"], "name": member.get("name"), **counted(p)}
        for p in member.get("prefixes") or ()
    ]


def against_median(member: dict, middle: dict) -> list[dict]:
    """A member's DOIs and shares beside the median member of its agency (landing.core.publishing.report_figures.medians).

    >>> against_median({"dois": 10, "correctness": {"ok": 8}, "read": 10}, {"dois": 4, "ok-of-dois": 0.5,
    ...                "ok-share": 0.75, "members": 3})[1]
    {'measure': 'ok % of DOIs', 'member': '80.0%', 'median': '50.0%'}
    """
    row = counted(member)
    return [
        {"measure": "DOIs sampled", "member": f"{row['dois']:,}", "median": f"{middle['dois']:,g}"},
        {"measure": "ok % of DOIs", "member": percent(row["ok-of-dois"]), "median": percent(middle["ok-of-dois"])},
        {"measure": "ok % of read", "member": percent(row["ok-share"]), "median": percent(middle["ok-share"])},
    ]


def member_prefix_rows(member: dict) -> list[dict]:
    """A member's prefixes as rows of its own page: with their failure classes and domains."""
    return [
        {
            "prefix": p["prefix"],
            **counted(p),
            "errors": errors_said(p.get("errors") or {}),
            "good-domains": list(p.get("good-domains") or []),
            "bad-domains": list(p.get("bad-domains") or []),
        }
        for p in member.get("prefixes") or ()
    ]


def domain_row(domain: dict) -> dict:
    """A domain's row: its counts and failure classes."""
    return {"domain": domain["domain"], **counted(domain), "errors": errors_said(domain.get("errors") or {})}


def example_row(example: dict) -> dict:
    """An example DOI: where it led and what was found there."""
    tags = "; ".join(f"{name}={content}" for name, content in example.get("meta-tags") or ())
    return {
        "doi": example.get("doi"),
        "url": example.get("url"),
        "domain": example.get("domain"),
        "ended": example.get("error") or example.get("correctness") or "",
        "doi-in-meta-tags": example.get("doi-in-meta-tags") or "",
        "meta-tags": tags,
    }


def domain_member_rows(domain: dict) -> list[dict]:
    """The members whose prefixes lead to a domain."""
    return [
        {"member": m["member"], "name": m.get("name"), "dois": m.get("dois", 0), "prefixes": " ".join(m["prefixes"])}
        for m in domain.get("members") or ()
    ]


def change_rows(changes: dict | None) -> list[dict]:
    """A version's changes.json as rows (labels joined, + appeared, - disappeared)."""
    return [
        {
            "prefix": row["prefix"],
            "domain": row["domain"],
            "appeared": " ".join(f"+{x}" for x in row["appeared"]),
            "disappeared": " ".join(f"-{x}" for x in row["disappeared"]),
            "unseen-since": row.get("unseen-since") or "",
        }
        for row in (changes or {}).get("pairs", ())
    ]


def percent(value: float | None) -> str:
    """A share as people read it.

    >>> percent(0.9734), percent(None), percent(1.0)
    ('97.3%', '–', '100.0%')
    """
    return "–" if value is None else f"{value * 100:.1f}%"


def estimate(hits: int, of: int) -> str:
    """A share with its sample and 95% Wilson interval, as a page says it.

    >>> estimate(12, 14), estimate(0, 0)
    ('85.7% of 14 (95% interval 60.1–96.0%)', '– of 0')
    """
    if not of:
        return "– of 0"
    low, high = interval(hits, of)
    return f"{percent(hits / of)} of {of:,} (95% interval {percent(low)[:-1]}–{percent(high)})"


def parts_alt(what: str, parts: list[tuple[str, int]]) -> str:
    """The alt text of a bar of parts: what it shows, then each part's count and share.

    >>> parts_alt("Meta-tag correctness of 10 DOIs", [("ok", 9), ("failed", 1), ("missing", 0)])
    'Meta-tag correctness of 10 DOIs: ok 9 (90.0%), failed 1 (10.0%).'
    """
    whole = sum(n for _, n in parts)
    said = ", ".join(f"{name} {n:,} ({percent(share(n, whole))})" for name, n in parts if n)
    return f"{what}: {said or 'none'}."


def trend_alt(what: str, points: list[tuple[str, float | None, int]]) -> str:
    """The alt text of a trend: every version's share and its sample size (the last 12 when there are more).

    >>> trend_alt("ok % of read", [("v1", 1.0, 14), ("v2", 0.8571, 14), ("v3", None, 0)])
    'ok % of read per version, axis from 0 to 100%: v1 100.0% of 14, v2 85.7% of 14, v3 – of 0.'
    """
    said = ", ".join(f"{name} {percent(value)} of {of:,}" for name, value, of in points[-12:])
    more = f" (the last 12 of {len(points)})" if len(points) > 12 else ""
    return f"{what} per version, axis from 0 to 100%{more}: {said}."
