"""Reports and artifacts from the document store: what the crawl does when it closes and `scrapy artifacts` does."""
from landing.artifacts import files as artifact_files
from landing.core.artifacts import Aggregate, current, diff, report_id
from landing.core.exclusions import DOMAINS


def rebuild(docs, artifacts_dir, progress=None, exclusions: frozenset[str] = frozenset(DOMAINS)) -> dict:
    """Recompute every report from the stored analyses and export a new artifact version (excluded domains only
    followed: landing.core.exclusions); returns a summary."""
    aggregate, count = Aggregate(), 0
    for count, doc in enumerate(current(docs.scan("analysis")), 1):
        aggregate.add(doc)
        if progress and count % 50000 == 0:
            progress(f"aggregated {count:,} analyses")
    docs.delete_kind("report")
    reports = 0
    for reports, report in enumerate(aggregate.reports(), 1):
        docs.put("report", report_id(report), report)
    docs.flush()
    previous = artifact_files.load_latest(artifacts_dir)
    fresh = aggregate.artifacts()
    version = artifact_files.export(artifacts_dir, fresh, exclusions=exclusions)
    return {"analyses": count, "reports": reports, "version": str(version),
            "added": diff(previous, fresh), "lines": artifact_files.line_counts(artifacts_dir)}
