"""The matcher's pure readings: literal DOIs and PIIs, candidate DOIs in a URL or page, evidence records; the
cascade that uses them is landing.core.matching.cascade."""

import html
import re
from bisect import bisect_right, insort
from urllib.parse import unquote, urlsplit

from landing.core.pages.analysis import DOI_META_NAMES

# Re-exported: cutting candidates from a string is the matcher's first step, kept in a module of its own.
from landing.core.pids.candidates import LONGEST, url_candidates
from landing.core.pids.candidates import MAX_URL_CANDIDATES as MAX_URL_CANDIDATES
from landing.core.pids.candidates import names_below as names_below
from landing.core.pids.doi import RESOLVER_HOST, normalise, prefix, split_expression, unwrap
from landing.core.web.hostnames import valid_hostname

# How a DOI was found, cheapest first, and how it was checked, best first: the seeds' seven values, exactly, so a
# consumer filtering on them meets no other (docs/design.md; docs/matching.md "Verification").
METHODS = ("doi-literal", "pii", "landing-page-url", "landing-page-meta-tag", "landing-page-page-text")
VERIFICATIONS = (
    "literal",
    "lookup",
    "checked-url-exact",
    "checked-url-basic",
    "confirmed-domain-prefix",
    "recognised-domain-prefix",
    "recognised-domain",
)
# The project's finer evidence, beside the verification (a result's `checks`): the DOI resolves to the page the input
# led to (its final URL, or its one canonical link) rather than to the input itself; the page's URL names the DOI;
# the page states the DOI's registered title.
CHECKS = ("resolves-to-final-url", "resolves-to-canonical-url", "stated-in-url", "registered-title")


def stronger(a: str | None, b: str | None) -> bool:
    """Whether verification a is better than b (None: no verification at all).

    >>> stronger("checked-url-basic", "confirmed-domain-prefix"), stronger(None, "recognised-domain")
    (True, False)
    """
    rank = lambda v: VERIFICATIONS.index(v) if v else len(VERIFICATIONS)  # noqa: E731
    return rank(a) < rank(b)


# --- the input as written ----------------------------------------------------------------------------------
# Markdown and LaTeX escape punctuation with a backslash (`\_` in BibTeX); no DOI holds a backslash.
_ESCAPED = re.compile(r"\\([_%&#$~^{}\[\]()*.\-])")
_ONE_SLASH = re.compile(r"^(https?):/(?=[^/])", re.IGNORECASE)  # `https:/doi.org/…`, a slash lost in copying
# A host and path without a scheme (`www.jstor.org/stable/…`, `/scitation.org/doi/…`): a top-level domain is
# letters, so a DOI (`10.1234/…`) never passes for one.
_SCHEMELESS = re.compile(r"/*((?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,63}(?::\d+)?/\S*)", re.IGNORECASE)


def cleaned(text: str) -> str:
    r"""The input without the escapes and copying slips around what it names.

    >>> cleaned(" https:/doi.org/10.1007/978-3-642-40328-6\\_47 ")
    'https://doi.org/10.1007/978-3-642-40328-6_47'
    """
    text = text.strip()
    # Each substitution only where it can apply: most inputs hold neither, and a substitution costs a template's read.
    if "\\" in text:
        text = _ESCAPED.sub(r"\1", text)
    return _ONE_SLASH.sub(r"\1://", text) if ":/" in text[:7] else text


def as_url(text: str) -> str | None:
    """The input as an http(s) URL (https when it was written without a scheme), or None for other text.

    >>> as_url("www.jstor.org/stable/10.2307/1234")
    'https://www.jstor.org/stable/10.2307/1234'
    >>> as_url("10.1371/journal.pone.0160617") is None
    True
    """
    if text.lower().startswith(("http://", "https://")):
        return text
    found = _SCHEMELESS.fullmatch(text)
    return "https://" + found[1] if found else None


# Free text (a post, a paragraph, an HTML snippet, a reference): its URLs (bare or in an href) and its DOIs.
_HREF = re.compile(r"""\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.IGNORECASE)
_BARE_URL = re.compile(r"https?://[^\s<>\"']+", re.IGNORECASE)
# A SICI holds `<` and `>` (`…(199806)46:4/5<493::AID-PROP493>3.0.CO;2-P`); a tag after a DOI starts `</` or `<a`.
_DOI_IN_TEXT = re.compile(r"(?<![\w./\-])(?:doi:\s*)?10\.\d{4,9}/(?:[^\s<\"']|<(?![a-z/!]))+", re.IGNORECASE)
_FREE_TEXT = re.compile(r"\s|<[a-z/!]", re.IGNORECASE)


def pieces(text: str, limit: int | None = None) -> list[str]:
    """The URLs and DOIs in free text, in order, each once, the first `limit` of them (all: None); [] when the input
    is one piece (no space, no tag).

    >>> pieces('New paper <a href="https://doi.org/10.1234/ab">here</a>, and see 10.5678/cd.')
    ['https://doi.org/10.1234/ab', '10.5678/cd']
    >>> pieces('<a href="https://x.example/a?doi=10.1234/ab&amp;p=2">x</a>')
    ['https://x.example/a?doi=10.1234/ab&p=2']
    >>> pieces("https://example.org/article/10.1234/ab")
    []
    >>> pieces("see 10.1002/(SICI)1522-2594(199911)42:5<952::AID-MRM16>3.0.CO;2-S, p. 3")
    ['10.1002/(SICI)1522-2594(199911)42:5<952::AID-MRM16>3.0.CO;2-S']
    >>> pieces("10.1234/a 10.1234/b 10.1234/a 10.1234/c", limit=2)
    ['10.1234/a', '10.1234/b']
    """
    if not _FREE_TEXT.search(text):
        return []
    first: dict[str, int] = {}  # each piece where it is first seen: a line may repeat one URL 80,000 times
    kept: list[int] = []  # the first `limit` of those places: past the last, nothing more can be among them
    covered: list[tuple[int, int]] = []
    for pattern in (_HREF, _BARE_URL, _DOI_IN_TEXT):  # a DOI inside a URL is the URL's
        spans, read = [], {}
        for match in pattern.finditer(text):
            at = match.start()
            if limit and len(kept) == limit and at > kept[-1]:
                break
            if pattern is not _HREF and _inside(covered, at):
                continue
            spans.append(match.span())
            written = match[0] if pattern is not _HREF else next(g for g in match.groups() if g is not None)
            if written not in read:  # `&amp;` in an href's query
                read[written] = unwrap(html.unescape(written) if pattern is _HREF else written)
            piece = read[written]
            if not piece or first.get(piece, at + 1) <= at:
                continue
            if piece in first and first[piece] in kept:
                kept.remove(first[piece])
            first[piece] = at
            if limit:
                insort(kept, at)
                del kept[limit:]
        # A pass's own matches never overlap: only earlier passes' spans can hold one. Two sorted runs: linear.
        covered = _merged(sorted(covered + spans))
    return sorted(first, key=first.__getitem__)[:limit]


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted spans as disjoint ones covering the same places."""
    out: list[tuple[int, int]] = []
    for start, end in spans:
        if out and start < out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def _inside(spans: list[tuple[int, int]], at: int) -> bool:
    """Whether at falls inside one of sorted, disjoint spans (a bisection: a megabyte of URLs is 80,000 spans)."""
    index = bisect_right(spans, (at, float("inf"))) - 1
    return index >= 0 and spans[index][0] <= at < spans[index][1]


# RFC 9110 4.1 asks senders and recipients to support URIs of 8,000 octets at least; servers refuse longer ones.
MAX_URL_LENGTH = 8000


def malformed(url: str) -> str | None:
    """Why an http(s) URL names no page at all (`no host`, `invalid host`, `invalid port`, `invalid URL`), or None.

    >>> [malformed(u) for u in ("https://", "http://a..b.example/x", "http://x.example:99999/", "https://[::1/")]
    ['no host', 'invalid host', 'invalid port', 'invalid URL']
    >>> malformed("https://journals.plos.org/plosone/article?id=10.1371/journal.pone.0160617") is None
    True
    """
    try:
        parts = urlsplit(url)
    except ValueError:  # an unclosed IPv6 bracket
        return "invalid URL"
    host = parts.hostname  # a property that splits the netloc again at each reading
    if not host:
        return "no host"
    if not valid_hostname(host):
        return "invalid host"
    try:
        _ = parts.port  # urlsplit reads the port only when asked
    except ValueError:  # not a number, or past 65535
        return "invalid port"
    return None


# --- literal -------------------------------------------------------------------------------------------------
# A shortDOI is the handle 10/<code>; written with its `10/` any case is fine (the handle is case-insensitive).
_SHORT = re.compile(rf"(?:(?:https?://)?{RESOLVER_HOST}/|doi\s*:\s*)?10/(?P<code>[a-z0-9]+)", re.IGNORECASE)
# Without `10/` only a lower-case code counts: doi.org's own pages (/Search, /help.html) must not pass for one.
_SHORT_PATH = re.compile(rf"(?i:https?://{RESOLVER_HOST}/)(?P<code>[a-z0-9]+)")
_RESOLVER = re.compile(rf"(?:https?://)?{RESOLVER_HOST}/", re.IGNORECASE)


def literal(text: str) -> tuple[str, str] | None:
    """("doi", bare DOI) or ("short", "10/<code>") when text is one DOI or shortDOI in any form, else None.

    >>> literal("<https://doi.org/10.1371/JOURNAL.pone.0160617?utm_source=x>.")
    ('doi', '10.1371/journal.pone.0160617')
    >>> literal("https://doi.org/cz5b")
    ('short', '10/cz5b')
    >>> literal("https://journals.plos.org/plosone/article?id=10.1371/journal.pone.0160617") is None
    True
    """
    value = unwrap(text)
    if _RESOLVER.match(value):
        # The resolver's query (?utm_source=…) and fragment never name the DOI: its own `?` would be %3F.
        value = re.split(r"[?#]", value, maxsplit=1)[0]
        value = value if value.lower().startswith("http") else "https://" + value
    value = unquote(value) if "%" in value else value
    found = split_expression(value)
    if found and len(found[1]) <= LONGEST:  # no DOI is longer: a megabyte of junk after one is cut as a URL's
        return "doi", found[1]
    short = _SHORT.fullmatch(value) or _SHORT_PATH.fullmatch(value)
    return ("short", "10/" + short["code"].lower()) if short else None


# --- PII -----------------------------------------------------------------------------------------------------
# Unformatted: S + ISSN (check digit may be X) + year (2) + item (5) + check (17 characters); B + ISBN-10
# + item (5) + check, or B + ISBN-13 + item + check (20: ScienceDirect's newer book chapters, /pii/B978…).
_PII_SHAPE = re.compile(r"S\d{7}[\dX]\d{7}[\dX]|B\d{9}[\dX]\d{5}[\dX]|B97[89]\d{15}[\dX]")
# After `pii` (ScienceDirect /pii/S…, pii=, PII:, the Lancet's PIIS…) any mix of the two forms may follow.
_PII_LABELLED = re.compile(r"(?<![a-z])pii[/=:]?\s*([sb][\dx()\-]{16,22})(?![a-z\d])", re.IGNORECASE)
# The formatted S0169-5347(01)02380-1 is distinctive enough to trust anywhere (Cell's /fulltext/S…).
_PII_FORMATTED = re.compile(r"(?<![a-z\d])(s\d{4}-\d{3}[\dx]\(\d{2}\)\d{5}-[\dx])(?![a-z\d])", re.IGNORECASE)


def _unformatted(value: str) -> str | None:
    bare = re.sub(r"[()\-]", "", value).upper()
    return bare if _PII_SHAPE.fullmatch(bare) else None


def pii(url_or_text: str) -> str | None:
    """The Publisher Item Identifier in a URL or text, unformatted, else None.

    >>> pii("https://www.cell.com/trends/ecology-evolution/fulltext/S0169-5347(01)02380-1")
    'S0169534701023801'
    """
    text = unquote(url_or_text) if "%" in url_or_text else url_or_text
    for match in _PII_LABELLED.finditer(text):
        if found := _unformatted(match[1]):
            return found
    if match := _PII_FORMATTED.search(text):
        return _unformatted(match[1])
    # The whole input may be a PII alone, even half-formatted (`S232251141300001-2`, as seen in posts).
    return _unformatted(text.strip()) if re.fullmatch(r"[sSbB][\dxX()\-]{16,22}", text.strip()) else None


def pii_variants(value: str) -> list[str]:
    """The forms a PII may be deposited in as a Crossref alternative-id: unformatted, then formatted.

    >>> pii_variants("https://www.sciencedirect.com/science/article/pii/S0169534701023801")
    ['S0169534701023801', 'S0169-5347(01)02380-1']
    """
    bare = pii(value)
    if bare is None:
        return []
    if bare[0] != "S":
        return [bare]  # a book PII's formatted form hyphenates its ISBN by group, which it does not record
    return [bare, f"S{bare[1:5]}-{bare[5:9]}({bare[9:11]}){bare[11:16]}-{bare[16]}"]


# --- pages ---------------------------------------------------------------------------------------------------
def rank_meta_dois(meta_tags: list[list[str]]) -> list[str]:
    """Distinct DOIs stated by DOI meta tags ([name, content]), in page order.

    >>> rank_meta_dois([["citation_doi", "10.1371/journal.pone.0160617"], ["dc.relation", "10.1000/182"],
    ...                 ["DC.Identifier", "doi:10.1371/JOURNAL.PONE.0160617"]])
    ['10.1371/journal.pone.0160617']
    """
    found = (literal(content) for name, content in meta_tags if name.lower() in DOI_META_NAMES)
    return list(dict.fromkeys(value for kind, value in filter(None, found) if kind == "doi"))


def url_states(doi: str, url: str) -> bool:
    """Whether a page's URL names the DOI itself, or its suffix as a whole token distinctive enough not to be
    there by chance (5 characters or more, a digit among them): a second statement beside the page's meta tag.

    >>> url_states("10.4271/2013-01-9096", "http://papers.sae.org/2013-01-9096/")
    True
    >>> url_states("10.1101/2019.12.11.872580", "https://www.biorxiv.org/content/10.1101/2019.12.11.872580v1.full")
    True
    >>> url_states("10.1234/b.2", "https://site.example/article/b.2")  # too short to tell
    False
    """
    if doi in url_candidates(url):
        return True
    suffix = doi.split("/", 1)[1]
    if len(suffix) < 5 or not any(ch.isdigit() for ch in suffix):
        return False
    text = unquote(url).lower()
    return re.search(rf"(?<![a-z0-9]){re.escape(suffix)}(?![a-z0-9])", text) is not None


def rank_text_dois(text_dois: list[str], domain_prefixes: set[str], cap: int = 20) -> list[str]:
    """DOIs from a page's text: those with a prefix known on this domain first, then page order; capped.

    >>> rank_text_dois(["10.1000/182", "10.1371/journal.pone.0160617"], {"10.1371"})
    ['10.1371/journal.pone.0160617', '10.1000/182']
    """
    dois = list(dict.fromkeys(normalise(d) for d in text_dois))
    known = [d for d in dois if prefix(d) in domain_prefixes]
    return (known + [d for d in dois if prefix(d) not in domain_prefixes])[:cap]


# --- output --------------------------------------------------------------------------------------------------
def attempt(step: str, candidate: str | None, outcome: str, requests: int = 0) -> dict:
    """One evidence record: the step, what it tried, what came of it, and how many requests it made."""
    return {"step": step, "candidate": candidate, "outcome": outcome, "requests": requests}


def capped(evidence: list[dict], cap: int) -> list[dict]:
    """The evidence with at most cap records: past it the middle attempts are folded into one record that counts
    them and their requests, so the first tries and the deciding last ones stay (cap is at least 3).

    >>> [e["outcome"] for e in capped([attempt("doi-literal", str(n), "not-found", 1) for n in range(6)], 4)]
    ['not-found', '3 more attempts not listed', 'not-found', 'not-found']
    """
    if len(evidence) <= cap:
        return evidence
    head, tail = (cap - 1) // 2, cap - 1 - (cap - 1) // 2
    folded = evidence[head : len(evidence) - tail]
    record = attempt(
        "evidence-cap", None, f"{len(folded)} more attempts not listed", sum(e["requests"] for e in folded)
    )
    return [*evidence[:head], record, *evidence[len(evidence) - tail :]]
