"""The publish step, above landing.artifacts and landing.report, which never import each other or this: rebuild the
reports from the stored analyses, export a new artifact version, and draw its HTML report beside it.

Beside each version: its figures (report.json), which its report and every later trend read; the report's data per
member and domain and the publisher alerts (landing.publish.report_data), from the same aggregate; and its report directory
(report/), drawn in a child process (`python -m landing.publish`) so that the crawl's memory never holds it.
"""

import json
import logging
import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path

from landing.artifacts import artifact_files
from landing.core.matching.exclusions import DOMAINS
from landing.core.publishing.aggregation import Aggregate
from landing.core.publishing.artifact_sets import diff
from landing.core.publishing.current_analysis import current
from landing.core.publishing.report_figures import figures, run_details, trend_point
from landing.core.publishing.report_keys import report_id
from landing.publish.drawing import REPORT_DIR, draw_at, thin_older
from landing.publish.report_data import write_beside
from landing.report.directory import INDEX, point

logger = logging.getLogger(__name__)

FIGURES = "report.json"
DRAW_TIMEOUT = 600  # seconds: a full run's report takes minutes (bench/README.md "report.py"); one that hangs must
# not hold the crawl's close for ever


def publish(
    docs,
    artifacts_dir,
    progress=None,
    exclusions: frozenset[str] = frozenset(DOMAINS),
    report: bool = True,
    agent: str | None = None,
    now: datetime | None = None,
) -> dict:
    """Recompute every report from the stored analyses and export a new artifact version (excluded domains only
    followed: landing.core.matching.exclusions), its HTML report drawn beside it unless `report` is False; returns a
    summary. `agent`: the crawler's USER_AGENT, which the alerts name; `now`: the moment that names the version
    (None: the clock's)."""
    aggregate, count, found, reports = rebuild(docs, progress)
    previous = artifact_files.load_latest(artifacts_dir)
    fresh = aggregate.artifacts()
    version = artifact_files.export(artifacts_dir, fresh, now=now, exclusions=exclusions)
    # Before drawing: the report's pages read these files.
    beside = write_beside(artifacts_dir, version, aggregate, agent)
    del aggregate
    found = {**found, "run": run_details(docs.scan("run"))}  # the report's run details
    drawn = draw_beside(artifacts_dir, version, found) if report else None
    return {
        "analyses": count,
        "reports": reports,
        "version": str(version),
        "report": str(drawn) if drawn else None,
        "added": diff(previous, fresh),
        "lines": artifact_files.line_counts(artifacts_dir),
        **beside,
    }


def rebuild(docs, progress=None) -> tuple[Aggregate, int, dict, int]:
    """Aggregate the store's analyses (one per DOI) and sampled prefixes, and replace its report documents with
    the ones they imply: (aggregate, analyses, the report's figures, reports stored). The aggregate also holds the
    report's data beside the version (landing.publish.report_data), counted in the same pass."""
    aggregate, count = Aggregate(), 0
    for count, doc in enumerate(current(docs.scan("analysis")), 1):
        aggregate.add(doc)
        if progress and count % 50000 == 0:
            progress(f"aggregated {count:,} analyses")
    for sample in docs.scan("sample"):  # every prefix of every sampled owner, whether a sampled DOI had it or not
        if sample.get("sample/dois") is not None:
            for prefix in sample.get("sample/prefixes") or ():
                aggregate.listed(prefix, sample.get("sample/ra") or "")
    # Continuous mode's prefixes once sampled: retention deletes the samples of its closed rounds.
    for prefix in docs.scan("prefix"):
        if prefix.get("prefix/sampled") is not None:
            aggregate.listed(prefix["prefix/prefix"], prefix.get("prefix/ra") or "")
    docs.delete_kind("report")
    stored = [0]  # reports written: they stream by (a full run has ~130,000), each stored, then counted for figures

    def storing(reports):
        for report in reports:
            docs.put("report", report_id(report), report)
            stored[0] += 1
            yield report

    found = figures(storing(aggregate.reports()))
    docs.flush()
    return aggregate, count, found, stored[0]


def draw_from_store(docs, artifacts_dir, out) -> dict | None:
    """Draw the report directory of the store's report documents at `out`, its pages from the latest version's files,
    with that version's changes and the trend of every version; its figures, or None (nothing drawn) when the store
    holds no report. NotAReport when `out` holds something else than a report."""
    found = figures(docs.scan("report"))
    if not found["totals"]["prefixes"]:
        return None
    found["run"] = run_details(docs.scan("run"))
    known = artifact_files.versions(artifacts_dir)
    latest = known[-1] if known else None
    draw_at(out, latest, found, changes_of(latest) if latest else None, trend(artifacts_dir), "from the store")
    return found


def draw_beside(artifacts_dir, version: Path, found: dict) -> Path | None:
    """Keep a version's figures, then draw its report (and the top-level copy) in a child process; None, logged,
    when drawing failed: the artifacts are exported all the same."""
    (version / FIGURES).write_text(json.dumps(found, sort_keys=True) + "\n", encoding="utf-8")
    # The child finds this code where the parent did (an egg under Scrapyd is on sys.path, not installed).
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    try:
        done = subprocess.run(
            [sys.executable, "-m", "landing.publish", str(artifacts_dir), version.name],
            capture_output=True,
            text=True,
            env=env,
            timeout=DRAW_TIMEOUT,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        logger.warning("The HTML report of %s could not be drawn: %s", version.name, error)
        return None
    if done.returncode != 0:
        logger.warning("The HTML report of %s could not be drawn: %s", version.name, done.stderr.strip()[-500:])
        return None
    return Path(artifacts_dir) / REPORT_DIR / INDEX


def draw_version(artifacts_dir, name: str) -> None:
    """Draw a version's report directory from its kept figures and files, point `<artifacts_dir>/report` at it
    (a symbolic link, swapped in at once), and leave the older versions' reports an index only."""
    version = Path(artifacts_dir) / "versions" / name
    found = kept(version / FIGURES)
    drawn = draw_at(version / REPORT_DIR, version, found, changes_of(version), trend(artifacts_dir, upto=version), name)
    point(drawn.parent, Path(artifacts_dir) / REPORT_DIR)
    thin_older(artifacts_dir, version, lambda v: (kept(v / FIGURES), changes_of(v), trend(artifacts_dir, upto=v)))


def kept(path: Path) -> dict:
    """A JSON object kept beside a version (its figures, its changes); ArtifactError naming the file when it
    cannot be read."""
    try:
        data = json.loads(artifact_files.text_of(path))
    except json.JSONDecodeError as error:
        raise artifact_files.ArtifactError(path, f"not JSON ({error})") from None
    except RecursionError:
        raise artifact_files.ArtifactError(path, "nested too deeply to read") from None
    if not isinstance(data, dict):
        raise artifact_files.ArtifactError(path, "not an object")
    return data


def trend(artifacts_dir, upto: Path | None = None) -> list[dict]:
    """The correctness trend: one point per version (up to `upto`) whose figures were kept."""
    points = []
    for version in artifact_files.versions(artifacts_dir):
        if (version / FIGURES).is_file():
            points.append(trend_point(version.name, kept(version / FIGURES)))
        if version == upto:
            break
    return points


def changes_of(version: Path) -> dict | None:
    """What a version changed since the one before it (its changes.json), or None."""
    path = version / artifact_files.CHANGES
    return kept(path) if path.is_file() else None
