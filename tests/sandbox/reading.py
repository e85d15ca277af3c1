"""An independent reading of a served HTML page with lxml: what it says about a DOI.

Follows the rules landing_dev/sandbox/analysis_truth.py states for the truth fields, but works from the HTML
the sandbox sends rather than from the page spec it was rendered from:
- DOI meta tags are <meta name=...> whose name (lower-cased) is one of the DOI meta names;
- hyperlinks are <a href>;
- text is the visible text of <body>, script and style excluded, percent-escapes decoded;
- a DOI is found in text only on a boundary: not followed by a character that could continue a DOI.
"""

import re
from urllib.parse import unquote

import lxml.html

from landing_dev.sandbox.analysis_truth import DOI_META_NAMES

# Best first (docs/design.md); each with the start it writes before the bare DOI.
EXPRESSIONS = (
    ("https-doi", "https://doi.org/"),
    ("https-dx-doi", "https://dx.doi.org/"),
    ("http-doi", "http://doi.org/"),
    ("http-dx-doi", "http://dx.doi.org/"),
    ("doi-scheme", "doi:"),
)
_ORDER = [name for name, _ in EXPRESSIONS] + ["non-url"]
_BARE_DOI = re.compile(r"^10\.\d{4,9}/\S+$")
_DOI_CHAR = re.compile(r"[A-Za-z0-9._;()/:\-]")


def document(body: bytes):
    return lxml.html.document_fromstring(body.decode("utf-8", "replace"))


def meta_tags(doc) -> list:
    """[name, content] of every DOI meta tag, in page order."""
    return [
        [m.get("name"), m.get("content")] for m in doc.xpath("//meta[@name]") if m.get("name").lower() in DOI_META_NAMES
    ]


def hrefs(doc) -> list:
    return [a.get("href") for a in doc.xpath("//a[@href]")]


def visible_text(doc) -> str:
    pieces = doc.xpath("//body//text()[not(ancestor::script) and not(ancestor::style)]")
    return " ".join(pieces)


def split_value(value: str):
    """(expression, bare DOI) of a value that is one DOI written in some form (meta content, href)."""
    lowered = unquote(value).strip().lower()
    if lowered.startswith("doi: "):
        return "non-url", lowered[len("doi: ") :].strip()  # a "DOI: " label, not the doi: scheme
    for name, start in EXPRESSIONS:
        if lowered.startswith(start):
            return name, lowered[len(start) :].strip()
    return "non-url", lowered


def best(expressions):
    found = set(expressions)
    ranked = [e for e in _ORDER if e in found]
    return ranked[0] if ranked else None


def doi_in_text_expressions(text: str, doi: str) -> list:
    """The expression of every occurrence of doi in text that ends on a boundary."""
    haystack = unquote(text).lower()
    needle = doi.lower()
    found = []
    start = haystack.find(needle)
    while start != -1:
        end = start + len(needle)
        if end == len(haystack) or not _DOI_CHAR.match(haystack[end]):
            before = haystack[:start]
            found.append(next((name for name, prefix in EXPRESSIONS if before.endswith(prefix)), "non-url"))
        start = haystack.find(needle, start + 1)
    return found


def analyse(body: bytes, doi: str) -> dict:
    """The truth's analysis fields, read off the HTML."""
    doc = document(body)
    own = doi.lower()
    tags = meta_tags(doc)
    read = [split_value(content or "") for _, content in tags]
    stated = {bare for _, bare in read if _BARE_DOI.match(bare)}
    if not stated:
        correctness = "missing"
    elif len(stated) > 1:
        correctness = "conflict"
    else:
        correctness = "ok" if stated == {own} else "incorrect"
    links = [split_value(h) for h in hrefs(doc)]
    return {
        "meta_tags": tags,
        "meta_tag_correctness": correctness,
        "doi_in_meta_tags": best(e for e, bare in read if bare == own),
        "doi_in_hyperlinks": best(e for e, bare in links if bare == own),
        "doi_in_text": best(doi_in_text_expressions(visible_text(doc), doi)),
    }
