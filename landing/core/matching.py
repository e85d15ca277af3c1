"""The matcher's pure decisions: literal DOIs and PIIs, candidate DOIs in a URL or page, the result's shape."""

import html
import re
from urllib.parse import unquote

from landing.core.analysis import DOI_META_NAMES
from landing.core.doi import RESOLVER_HOST, normalise, prefix, shaped, split_expression, unwrap

# How a DOI was found, cheapest first, and how it was checked, best first (DESIGN.md).
METHODS = ("doi-literal", "pii", "landing-page-url", "landing-page-meta-tag", "landing-page-page-text")
VERIFICATIONS = (
    "literal",
    "lookup",
    "checked-url-exact",
    "checked-url-basic",
    "stated-in-url",
    "registered-title",
    "confirmed-domain-prefix",
    "recognised-domain-prefix",
    "recognised-domain",
)
RESULT_KEYS = ("input", "doi", "method", "verification", "url", "subj_id", "evidence")

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
    return _ONE_SLASH.sub(r"\1://", _ESCAPED.sub(r"\1", text.strip()))


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


def pieces(text: str) -> list[str]:
    """The URLs and DOIs in free text, in order, each once; [] when the input is one piece (no space, no tag).

    >>> pieces('New paper <a href="https://doi.org/10.1234/ab">here</a>, and see 10.5678/cd.')
    ['https://doi.org/10.1234/ab', '10.5678/cd']
    >>> pieces('<a href="https://x.example/a?doi=10.1234/ab&amp;p=2">x</a>')
    ['https://x.example/a?doi=10.1234/ab&p=2']
    >>> pieces("https://example.org/article/10.1234/ab")
    []
    >>> pieces("see 10.1002/(SICI)1522-2594(199911)42:5<952::AID-MRM16>3.0.CO;2-S, p. 3")
    ['10.1002/(SICI)1522-2594(199911)42:5<952::AID-MRM16>3.0.CO;2-S']
    """
    if not _FREE_TEXT.search(text):
        return []
    found, spans = [], []
    for match in _HREF.finditer(text):
        spans.append(match.span())
        href = html.unescape(next(g for g in match.groups() if g is not None))  # `&amp;` in a query
        found.append((match.start(), unwrap(href)))
    for pattern in (_BARE_URL, _DOI_IN_TEXT):  # a DOI inside a URL is the URL's
        for match in pattern.finditer(text):
            if not any(a <= match.start() < b for a, b in spans):
                spans.append(match.span())
                found.append((match.start(), unwrap(match[0])))
    found = dict.fromkeys(piece for _, piece in sorted(found))
    return [piece for piece in found if piece]


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
    if found:
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


# --- landing-page URL ----------------------------------------------------------------------------------------
# Each candidate costs the caller one Handle API request. A real URL gives a handful per DOI in it (at most
# 7 in the tests, SICI and tracking junk included); 20 bounds the cost of a URL packed with DOIs or junk.
MAX_URL_CANDIDATES = 20
# A lookahead, so that a DOI inside the rest of an earlier one (…/10.1234/a?ref=10.5678/b) is found too.
_OCCURRENCE = re.compile(r"(?<![\w.\-])(?=(10\.\d{4,9}/\S*))")
_JSESSIONID = re.compile(r";jsessionid=[^/?#&;]*")  # Java servlet session in the path (Wiley, older Atypon)
# What sites append to a DOI in their URLs; stripped repeatedly from the end, each strip one more candidate.
_SUFFIXES = (
    "/abstract",
    "/full",
    "/pdf",
    "/epdf",
    "/references",
    "/figures",
    "/citedby",
    "/suppinfo",  # Wiley Online Library
    "/fulltext",
    "/metrics",  # Frontiers (/full, /pdf too), Springer's old /fulltext.html
    "/html",  # De Gruyter /document/doi/<doi>/html (and /pdf)
    "/suppl_file",  # ACS, Taylor & Francis: /doi/suppl/<doi>/suppl_file/<name>
    ".full",
    ".abstract",
    ".short",  # HighWire sites (bioRxiv, medRxiv): <doi>v1.full, .abstract
    ".pdf",
    ".html",
    ".htm",
    ".xml",  # files named after the DOI (Springer content/pdf/<doi>.pdf, JATS XML)
    ".supplementary-material",  # HighWire's supplements page
    "+html",  # HighWire's PDF in a frame (<doi>v1.full.pdf+html)
)
_VERSION = re.compile(r"(?<=\d)v\d+$")  # bioRxiv/medRxiv's version (…972935v2); `.v1` of figshare DOIs is kept


def _cuts(doi: str) -> set[str]:
    """doi, and doi cut at each place where URL junk may start after the DOI's own slash."""
    head, _, tail = doi.partition("/")
    out = {doi}
    for separator in "#?&;":
        out.add(head + "/" + tail.split(separator, 1)[0])
    out.add(head + "/" + re.split(r"[^\x21-\x7e]", tail, maxsplit=1)[0])  # an emoji or other symbol after it
    out.add(unwrap(doi))  # a sentence's full stop, a closing bracket it did not open
    out.add(head + "/" + tail.rsplit(";", 1)[0])  # SICIs hold `;` themselves: keep all but the last part
    for cut in list(out):
        h, _, t = cut.partition("/")
        out.update({h + "/" + t.split("/", 1)[0], h + "/" + t.rsplit("/", 1)[0]})
    return out


def _stripped(doi: str) -> set[str]:
    out, changed = {doi}, True
    while changed:
        changed = False
        for suffix in _SUFFIXES:
            if doi.endswith(suffix) and len(doi) - len(suffix) > doi.index("/") + 1:
                doi, changed = doi[: -len(suffix)], True
                out.add(doi)
        if _VERSION.search(doi):
            doi, changed = _VERSION.sub("", doi), True
            out.add(doi)
    return out


def _variants(rest: str) -> list[str]:
    found = set()
    for cut in _cuts(_JSESSIONID.sub("", rest)):  # a session id is never part of a DOI
        found.update(normalise(c) for c in _stripped(cut))
    good = {c for c in found if shaped(c) and not c.endswith("/")}
    return sorted(good, key=lambda c: (-len(c), c))


def url_candidates(url: str) -> list[str]:
    """Candidate DOIs embedded in a landing-page URL, or in text (a DOI with junk after it, a sentence, a
    reference): per DOI occurrence, longest first; capped.

    >>> url_candidates("https://www.biorxiv.org/content/10.1101/2020.03.02.972935v2.full")
    ['10.1101/2020.03.02.972935v2.full', '10.1101/2020.03.02.972935v2', '10.1101/2020.03.02.972935']
    >>> url_candidates("Foo bar 10.1088/1748-9326/11/4/048002. Foo bar")[:2]
    ['10.1088/1748-9326/11/4/048002.', '10.1088/1748-9326/11/4/048002']
    """
    once = unquote(url)
    out: dict[str, None] = {}
    for text in dict.fromkeys((url, once, unquote(once))):  # as written, decoded, double-decoded
        for match in _OCCURRENCE.finditer(text):
            out.update(dict.fromkeys(_variants(match[1].lower())))
    return list(out)[:MAX_URL_CANDIDATES]


def names_below(doi: str, url: str) -> bool:
    """Whether the URL goes on past the DOI to a path of its own (a book's chapter, a reference work's entry),
    beyond the tails sites append to a work's own page: then the URL is about something the DOI only contains.

    >>> names_below("10.1093/acrefore/9780190201098.001.0001",
    ...             "https://oxfordre.com/view/10.1093/acrefore/9780190201098.001.0001/acrefore-9780190201098-e-1357")
    True
    >>> names_below("10.1002/ab.1", "https://x.example/doi/10.1002/ab.1/abstract?x=1")
    False
    """
    text = re.split(r"[?#]", unquote(url).lower(), maxsplit=1)[0]
    at = text.find(doi)
    if at < 0:
        return False
    rest = _JSESSIONID.sub("", text[at + len(doi) :])
    return rest.startswith("/") and bool(rest.strip("/")) and doi not in _stripped(doi + rest)


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


def result(
    input: str,
    doi: str | None,
    method: str | None,
    verification: str | None,
    url: str | None,
    subj_id: str | None,
    evidence: list[dict],
) -> dict:
    """The matcher's output object for one input; method and verification must be known names or None."""
    if method is not None and method not in METHODS:
        raise ValueError(f"unknown method {method!r}; known: {', '.join(METHODS)}")
    if verification is not None and verification not in VERIFICATIONS:
        raise ValueError(f"unknown verification {verification!r}; known: {', '.join(VERIFICATIONS)}")
    return dict(zip(RESULT_KEYS, (input, doi, method, verification, url, subj_id, list(evidence))))
