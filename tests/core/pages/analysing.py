"""Snippets of HTML analysed for one DOI (tests/core/test_analysis*.py)."""

from landing.core.pages.page import Page

DOI = "10.5555/1234"
NOTHING = {
    "analysis/meta-tags": [],
    "analysis/meta-tag-correctness": "missing",
    "analysis/doi-in-text": None,
    "analysis/doi-in-hyperlinks": None,
    "analysis/doi-in-meta-tags": None,
}


def page(head="", body="") -> bytes:
    """A whole HTML page around a head and a body snippet."""
    return f"<!DOCTYPE html><html><head><title>A page</title>{head}</head><body>{body}</body></html>".encode()


def meta(name, content, attribute="name") -> str:
    """One <meta> tag naming itself by name (or property, id)."""
    return f'<meta {attribute}="{name}" content="{content}">'


def analysed(head="", body="", doi=DOI) -> dict:
    """The analysis of such a page for a DOI."""
    return Page(page(head, body)).analysis(doi)
