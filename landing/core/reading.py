"""From a snapshot and its body to its analysis document: the one path the crawl and `scrapy analyze` share."""

from landing.core import documents
from landing.core.analysis import analyse
from landing.core.failures import cookie_check, cookie_notice, js_required

# What `not_landing` may call a reached page; `as_crawled` undoes exactly these.
RECLASSES = ("cookie-required", "js-required")


def states_doi(found: dict) -> bool:
    """Whether an analysis found any DOI meta tag or the DOI anywhere on the page."""
    return bool(found.get("analysis/meta-tags")) or any(
        found.get(k) for k in ("analysis/doi-in-text", "analysis/doi-in-hyperlinks", "analysis/doi-in-meta-tags")
    )


def not_landing(found: dict, body: bytes, content_type: str | None, final_url: str | None) -> str | None:
    """The class of a reached page that is no landing page after all: a cookie check's page, or a script-only one.

    A page that states a DOI is a landing page whatever else it does. `found` is the page's analysis.
    """
    if states_doi(found):
        return None
    if (final_url and cookie_check(final_url)) or cookie_notice(body, content_type):
        return RECLASSES[0]
    return RECLASSES[1] if js_required(body, content_type) else None


def as_crawled(snapshot_doc: dict) -> dict:
    """The snapshot as the crawl reached it, before reading reclassified its page (`not_landing`), so it can be read
    again. A chain that failed (no body stored) keeps its class: a cookie check can also end a redirect chain."""
    if snapshot_doc.get("snapshot/error") in RECLASSES and snapshot_doc.get("snapshot/content-hash"):
        return {**snapshot_doc, "snapshot/error": None}
    return snapshot_doc


def read(snapshot_doc: dict, body: bytes | None, timestamp: str) -> dict:
    """The analysis document of a snapshot: what its page says, or all None when it did not reach a page.

    A page that is no landing page after all (`not_landing`) is reclassified.
    """
    if snapshot_doc.get("snapshot/error") or body is None:
        return documents.analysis(snapshot_doc, None, timestamp)
    content_type = snapshot_doc.get("snapshot/content-type")
    found = analyse(body, snapshot_doc["pid/doi"], content_type)
    error = not_landing(found, body, content_type, snapshot_doc.get("snapshot/final-url"))
    if error:
        return documents.analysis({**snapshot_doc, "snapshot/error": error}, None, timestamp)
    return documents.analysis(snapshot_doc, found, timestamp)
