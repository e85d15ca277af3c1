"""From a snapshot and its body to its analysis document: the one path the crawl and `scrapy analyze` share."""
from . import documents
from .analysis import analyse
from .failures import js_required


def states_doi(found: dict) -> bool:
    """Whether an analysis found any DOI meta tag or the DOI anywhere on the page."""
    return bool(found.get("analysis/meta-tags")) or any(
        found.get(k) for k in ("analysis/doi-in-text", "analysis/doi-in-hyperlinks", "analysis/doi-in-meta-tags"))


def read(snapshot_doc: dict, body: bytes | None, timestamp: str) -> dict:
    """The analysis document of a snapshot: what its page says, or all None when it did not reach a page.

    A page that states no DOI at all and only scripts its way elsewhere is reclassified `js-required`.
    """
    if snapshot_doc.get("snapshot/error") or body is None:
        return documents.analysis(snapshot_doc, None, timestamp)
    content_type = snapshot_doc.get("snapshot/content-type")
    found = analyse(body, snapshot_doc["pid/doi"], content_type)
    if not states_doi(found) and js_required(body, content_type):
        return documents.analysis({**snapshot_doc, "snapshot/error": "js-required"}, None, timestamp)
    return documents.analysis(snapshot_doc, found, timestamp)
