"""Page analysis: what a landing page's HTML says about its own DOI (meta tags, hyperlinks, visible text)."""

from lxml import etree
from w3lib.encoding import html_to_unicode

from landing.core.pages.titles import TITLE_META_NAMES, stated
from landing.core.pids.doi import best_expression, find_expressions, normalise, split_expression

# Meta names (compared lower-case) whose content states the page's own DOI, with the evidence for each.
# The first eleven are the sandbox's (sandbox/analysis_truth.py); numbers are the corpus's pages (docs/testing.md).
DOI_META_NAMES = frozenset(
    {
        "citation_doi",  # Highwire / Google Scholar tag, the most common (041 writes doi:10.x)
        "dc.identifier",  # Dublin Core, any case (bare, doi:10.x or a DOI URL)
        "dc.identifier.doi",  # OJS (001, 037)
        "dc:identifier",  # Dublin Core, colon spelling (Thieme 056)
        "dc.source",  # Atypon writes the DOI URL here (005, 012, 023, 024, 030, 061)
        "prism.doi",  # PRISM (Springer, BMC, Nature: 006, 028, 029, 036)
        "prism:doi",  # PRISM, colon spelling (Thieme 056)
        "publication_doi",  # Atypon (SAGE 051, ACM 060, PsychiatryOnline 061)
        "doi",  # Springer, BMC, Nature; D-Lib writes <meta id="DOI"> (039)
        "bepress_citation_doi",  # bepress Digital Commons' copy of citation_doi (none in the corpus)
        "wkhealth_doi",  # Wolters Kluwer / LWW (058)
        "dcterms.identifier",  # DCMI Terms spelling of dc.identifier (none in the corpus; common extractors read it)
        "eprints.id_number",  # EPrints repositories put the item's DOI here (none in the corpus; other ids ignored)
    }
)
# Not DOI names, though they hold DOIs: citation_reference (cited works), dc.relation (related works),
# itemprop sameAs (PeerJ's info:doi/ copy, but sameAs lists other versions too), and URLs that merely
# contain the DOI (og:url, citation_pdf_url, prism.url, Atypon's pbContext).

# Elements whose text a reader never sees; `head` holds title and metas, read separately.
_INVISIBLE = ("head", "script", "style", "noscript", "template")
# Elements a browser lays out on their own line: their text must not run into the next element's.
_BLOCKS = (
    "address",
    "article",
    "aside",
    "blockquote",
    "br",
    "dd",
    "div",
    "dl",
    "dt",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "table",
    "td",
    "th",
    "tr",
    "ul",
)
# A link's label ends the DOI it shows (ScienceDirect puts the next link right after its doi.org link);
# its start does not: `doi:<a>10.x/y</a>` is still the doi: scheme.
_ENDS = ("a",)
_PARSER = etree.HTMLParser(remove_comments=True, remove_pis=True)
_UTF8_PARSER = etree.HTMLParser(remove_comments=True, remove_pis=True, encoding="utf-8")


def parse(body: bytes, content_type: str | None):
    """The page's root element, or None when there is nothing to parse."""
    _, text = html_to_unicode(content_type, body)
    try:
        return etree.fromstring(text, _PARSER)
    except ValueError:  # an XML declaration or a NUL in a str upsets lxml; utf-8 bytes it takes
        return etree.fromstring(text.encode("utf-8", "replace"), _UTF8_PARSER)


# Real pages carry a handful of DOI meta tags; a hostile page of thousands would make a huge analysis document
# (bench/README.md "Figures behind choices in the code"). Past this many, the rest are not read.
MAX_META_TAGS = 100


def meta_tags(root) -> list[list[str]]:
    """[name, content] of the first MAX_META_TAGS DOI meta tags in page order; the name is `name`, else
    `property`, else `id`."""
    tags = []
    for meta in root.iter("meta"):
        name = meta.get("name") or meta.get("property") or meta.get("id") or ""
        if name.lower() in DOI_META_NAMES:
            tags.append([name, meta.get("content") or ""])
            if len(tags) == MAX_META_TAGS:
                break
    return tags


def visible_text(root) -> str:
    """Body text as a reader sees it: the text of the root's document, blocks on lines of their own."""
    return str(_VISIBLE_TEXT(root))


# The text in one pass in C (libxslt): the loop it replaces, which wrote a line break into every block's text and
# tail from Python, was slower (bench/README.md "Figures behind choices in the code"). The whole
# document is read, as a browser does: content after </html> (Cambridge Core's dialogs) ends up beside the root, not
# in it.
_BREAK = "<xsl:text>&#10;</xsl:text>"
_VISIBLE_TEXT = etree.XSLT(
    etree.XML(f"""\
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
  <xsl:output method="text" encoding="utf-8"/>
  <xsl:template match="{"|".join(_INVISIBLE)}"/>
  <xsl:template match="{"|".join(_BLOCKS)}">{_BREAK}<xsl:apply-templates/>{_BREAK}</xsl:template>
  <xsl:template match="{"|".join(_ENDS)}"><xsl:apply-templates/>{_BREAK}</xsl:template>
</xsl:stylesheet>""")
)


def _correctness(stated: set, own: str) -> str:
    if not stated:
        return "missing"
    if len(stated) > 1:
        return "conflict"
    return "ok" if stated == {own} else "incorrect"


def analyse(page, doi: str) -> dict:
    """The analysis/* fields of a page (a landing.core.pages.page.Page: ask its `analysis`) for the DOI it is meant to be
    about."""
    own = normalise(doi)
    tags, hrefs, text = page.meta_tags, page.hrefs, page.text
    in_tags = [found for found in map(split_expression, (content for _, content in tags)) if found]
    # A page links dozens of other works' DOIs: only an href naming this one (maybe %-encoded) is worth a look.
    in_links = [split_expression(href) for href in hrefs if "%" in href or own in href.lower()]
    return {
        "analysis/meta-tags": tags,
        "analysis/meta-tag-correctness": _correctness({bare for _, bare in in_tags}, own),
        "analysis/doi-in-text": best_expression(find_expressions(text, own)),
        "analysis/doi-in-hyperlinks": best_expression(found[0] for found in in_links if found and found[1] == own),
        "analysis/doi-in-meta-tags": best_expression(e for e, bare in in_tags if bare == own),
    }


def read_page(body: bytes, content_type: str | None = None) -> dict:
    """What the matcher reads off a page: DOI meta tags, canonical links (as written), the visible text and the
    titles it states (landing.core.pages.titles)."""
    root = parse(body, content_type) if body else None
    if root is None:
        return {"meta-tags": [], "canonicals": [], "text": "", "titles": []}
    tags = meta_tags(root)
    canonicals = [
        link.get("href") or "" for link in root.iter("link") if "canonical" in (link.get("rel") or "").lower().split()
    ]
    metas = [
        meta.get("content") or ""
        for meta in root.iter("meta")
        if (meta.get("name") or meta.get("property") or "").lower() in TITLE_META_NAMES
    ]
    heading = next(("".join(t.itertext()) for t in root.iter("title")), None)
    return {"meta-tags": tags, "canonicals": canonicals, "text": visible_text(root), "titles": stated(metas, heading)}
