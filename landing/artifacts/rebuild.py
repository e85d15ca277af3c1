"""Reports and artifacts from the document store: what the crawl does when it closes and `scrapy artifacts` does."""

from landing.artifacts import files as artifact_files
from landing.core.artifacts import Aggregate, current, diff, report_id
from landing.core.exclusions import DOMAINS
from landing.core.report import figures
from landing.report.write import beside_version


def rebuild(
    docs, artifacts_dir, progress=None, exclusions: frozenset[str] = frozenset(DOMAINS), report: bool = True
) -> dict:
    """Recompute every report from the stored analyses and export a new artifact version (excluded domains only
    followed: landing.core.exclusions), its HTML report drawn beside it unless `report` is False; returns a
    summary."""
    aggregate, count = Aggregate(), 0
    for count, doc in enumerate(current(docs.scan("analysis")), 1):
        aggregate.add(doc)
        if progress and count % 50000 == 0:
            progress(f"aggregated {count:,} analyses")
    for sample in docs.scan("sample"):  # every prefix of every sampled owner, whether a sampled DOI had it or not
        if sample.get("sample/dois") is not None:
            for prefix in sample.get("sample/prefixes") or ():
                aggregate.listed(prefix, sample.get("sample/ra") or "")
    docs.delete_kind("report")
    stored = [0]  # reports written: they stream by (a full run has ~130,000), each stored, then counted for figures

    def storing(reports):
        for report in reports:
            docs.put("report", report_id(report), report)
            stored[0] += 1
            yield report

    found = figures(storing(aggregate.reports()))
    docs.flush()
    reports = stored[0]
    previous = artifact_files.load_latest(artifacts_dir)
    fresh = aggregate.artifacts()
    version = artifact_files.export(artifacts_dir, fresh, exclusions=exclusions)
    drawn = beside_version(artifacts_dir, version, found) if report else None
    return {
        "analyses": count,
        "reports": reports,
        "version": str(version),
        "report": str(drawn) if drawn else None,
        "added": diff(previous, fresh),
        "lines": artifact_files.line_counts(artifacts_dir),
    }
