"""Analysis documents as the pipeline stores them, and what the one accumulator makes of them
(tests/core/test_aggregation*.py, test_artifact_*.py, test_changes.py)."""

from landing.core.publishing.aggregation import Aggregate
from landing.core.publishing.artifact_sets import Artifacts


def aggregate(analyses) -> Artifacts:
    """The artifacts of a stream of analysis documents, through the one accumulator."""
    accumulator = Aggregate()
    for analysis in analyses:
        accumulator.add(analysis)
    return accumulator.artifacts()


def reports(analyses) -> list[dict]:
    """The report documents of a stream of analysis documents, through the one accumulator."""
    accumulator = Aggregate()
    for analysis in analyses:
        accumulator.add(analysis)
    return list(accumulator.reports())


def doc(
    doi="10.1371/a",
    domain="journals.plos.org",
    error=None,
    correctness="missing",
    meta=None,
    text=None,
    links=None,
    ra="crossref",
    member="340",
):
    """One analysis document in the shape the pipeline stores."""
    return {
        "pid/doi": doi,
        "pid/doi-prefix": doi.split("/")[0],
        "pid/ra": ra,
        "pid/member-id": member,
        "pid/global-member-id": f"{ra}/{member}",
        "snapshot/resource-url": f"https://{domain}/x" if domain else None,
        "snapshot/final-url": f"https://{domain}/x" if domain else None,
        "snapshot/final-url-domain": domain,
        "snapshot/error": error,
        "analysis/meta-tag-correctness": None if error else correctness,
        "analysis/doi-in-text": text,
        "analysis/doi-in-hyperlinks": links,
        "analysis/doi-in-meta-tags": meta,
    }
