"""From a snapshot and its page to its analysis document: the one path the crawl and `scrapy analyze` share."""

from landing.core.pages import documents
from landing.core.web.failures import cookie_check, cookie_notice, js_required

# What `not_landing` may call a reached page; `as_crawled` undoes exactly these.
RECLASSES = ("cookie-required", "js-required")


def states_doi(found: dict) -> bool:
    """Whether an analysis found any DOI meta tag or the DOI anywhere on the page."""
    return bool(found.get("analysis/meta-tags")) or any(
        found.get(k) for k in ("analysis/doi-in-text", "analysis/doi-in-hyperlinks", "analysis/doi-in-meta-tags")
    )


def landing_page(page, doi: str) -> bool:
    """A page (landing.core.pages.page.Page) that states its DOI is a landing page, whatever else it does (asks for
    cookies, builds itself with scripts, scripts a move elsewhere)."""
    return states_doi(page.analysis(doi))


def not_landing(page, doi: str, final_url: str | None) -> str | None:
    """The class of a reached page that is no landing page after all: a cookie check's page, or a script-only one."""
    if landing_page(page, doi):
        return None
    if (final_url and cookie_check(final_url)) or cookie_notice(page):
        return RECLASSES[0]
    return RECLASSES[1] if js_required(page) else None


def page_class(snapshot_doc: dict, page) -> str | None:
    """The class a snapshot ends with once its page is read: its own, or `not_landing`'s for a reached page."""
    if snapshot_doc.get("snapshot/error") or page is None:
        return snapshot_doc.get("snapshot/error")
    return not_landing(page, snapshot_doc["pid/doi"], snapshot_doc.get("snapshot/final-url"))


def as_crawled(snapshot_doc: dict) -> dict:
    """The snapshot as the crawl reached it, before reading reclassified its page (`not_landing`), so it can be read
    again. A chain that failed (no body stored) keeps its class: a cookie check can also end a redirect chain."""
    if snapshot_doc.get("snapshot/error") in RECLASSES and snapshot_doc.get("snapshot/content-hash"):
        return {**snapshot_doc, "snapshot/error": None}
    return snapshot_doc


def read(snapshot_doc: dict, page, timestamp: str) -> dict:
    """The analysis document of a snapshot and its page (a landing.core.pages.page.Page, or None when no body came back):
    what the page says, or all None when it did not reach a landing page (`page_class` says why)."""
    error = page_class(snapshot_doc, page)
    if error:
        return documents.analysis({**snapshot_doc, "snapshot/error": error}, None, timestamp)
    if page is None:
        return documents.analysis(snapshot_doc, None, timestamp)
    return documents.analysis(snapshot_doc, page.analysis(snapshot_doc["pid/doi"]), timestamp)
