"""What a generated page states about its DOI, read off its spec (not its HTML): the truth's analysis fields.

The rules are the ones docs/sandbox.md gives for the truth fields; the project's own analysis (core/pages/analysis.py)
must reach the same answers from the HTML alone.
"""

import re

from landing.core.pids.doi import best_expression, normalise

# Meta tag names (compared lower-case) whose content states the page's DOI.
DOI_META_NAMES = frozenset(
    {
        "citation_doi",
        "dc.identifier",
        "dc.identifier.doi",
        "prism.doi",
        "prism:doi",
        "dc.source",
        "dc:identifier",
        "publication_doi",
        "doi",
        "bepress_citation_doi",
        "wkhealth_doi",
    }
)
_DOI = re.compile(r"^10\.\d{4,9}/\S+$")


def expression_of(value: str) -> str:
    """How a value that holds a DOI writes it: one of core.doi.EXPRESSIONS."""
    lowered = value.strip().lower()
    if lowered.startswith("doi: "):
        return "non-url"  # "DOI: 10.x/y" is a label, not the doi: URI scheme
    for start, name in (
        ("https://doi.org/", "https-doi"),
        ("https://dx.doi.org/", "https-dx-doi"),
        ("http://doi.org/", "http-doi"),
        ("http://dx.doi.org/", "http-dx-doi"),
        ("doi:", "doi-scheme"),
    ):
        if lowered.startswith(start):
            return name
    return "non-url"


def _own(value: str, doi: str) -> bool:
    return normalise(value) == doi.lower()


def page_truth(doi: str, page: dict) -> dict:
    """meta-tag-correctness and doi-in-* for a page spec, as the truth records them."""
    pairs = [
        (m.get("name", ""), m.get("content", "")) if isinstance(m, dict) else (m[0], m[1]) for m in page.get("meta", [])
    ]
    tags = [[name, content] for name, content in pairs if name.lower() in DOI_META_NAMES]
    stated = {normalise(content) for _, content in tags if _DOI.match(normalise(content))}
    own = doi.lower()
    if not stated:
        correctness = "missing"
    elif len(stated) > 1:
        correctness = "conflict"
    else:
        correctness = "ok" if stated == {own} else "incorrect"
    links = [link[0] if isinstance(link, list) else link for link in page.get("links", [])]
    labels = [link[1] for link in page.get("links", []) if isinstance(link, list)]
    texts = [t for t in page.get("text", []) + labels if _own(t, doi)]
    return {
        "meta_tag_correctness": correctness,
        "doi_in_text": best_expression(expression_of(t) for t in texts),
        "doi_in_hyperlinks": best_expression(expression_of(h) for h in links if _own(h, doi)),
        "doi_in_meta_tags": best_expression(expression_of(c) for _, c in tags if normalise(c) == own),
        "meta_tags": tags,
    }
