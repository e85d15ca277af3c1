"""A fetched page, parsed at most once: every reading of it (analysis, failure classes, a script's hop) takes a Page.

The parts are worked out on first use and kept, so a visit that asks for the script target, the analysis and the
failure class parses the body once, and a page that no reading needs (a PDF, a 404) is never parsed.
"""

from functools import cached_property

from landing.core.pages import analysis
from landing.core.pids.doi import normalise


class Page:
    """A body and its Content-Type; its parsed root and the parts read from it, each worked out once.

    >>> page = Page(b"<html><head><meta name='citation_doi' content='10.1234/A'></head><body><p>Hi</p></body></html>")
    >>> page.meta_tags, page.text.split(), page.scripts
    ([['citation_doi', '10.1234/A']], ['Hi'], [])
    >>> page.analysis("10.1234/a")["analysis/meta-tag-correctness"]
    'ok'
    >>> page.analysis("10.1234/a") is page.analysis("10.1234/A")  # worked out once per DOI
    True
    >>> Page(b"").root is None, Page(b"").text
    (True, '')
    """

    def __init__(self, body: bytes, content_type: str | None = None):
        self.body, self.content_type = body, content_type
        self._analyses = {}

    @cached_property
    def root(self):
        """The parsed document's root element, or None when there is nothing to parse."""
        return analysis.parse(self.body, self.content_type) if self.body else None

    @cached_property
    def text(self) -> str:
        """The visible text, blocks on lines of their own (landing.core.pages.analysis.visible_text)."""
        return "" if self.root is None else analysis.visible_text(self.root)

    @cached_property
    def words(self) -> int:
        return len(self.text.split())

    @cached_property
    def scripts(self) -> list[str]:
        """The text of every `<script>` element, in page order."""
        return [] if self.root is None else ["".join(s.itertext()) for s in self.root.iter("script")]

    @cached_property
    def meta_tags(self) -> list[list[str]]:
        """[name, content] of the page's DOI meta tags (landing.core.pages.analysis.meta_tags)."""
        return [] if self.root is None else analysis.meta_tags(self.root)

    @cached_property
    def hrefs(self) -> list[str]:
        return [] if self.root is None else [a.get("href") or "" for a in self.root.iter("a")]

    def analysis(self, doi: str) -> dict:
        """The analysis/* fields for the DOI the page is meant to be about, worked out once per DOI."""
        own = normalise(doi)
        if own not in self._analyses:
            self._analyses[own] = analysis.analyse(self, own)
        return self._analyses[own]
