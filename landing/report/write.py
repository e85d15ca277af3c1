"""Write the HTML report: from the store (`scrapy report`) or beside an exported version (in a child process, so
the crawl never holds matplotlib in memory: it adds ~70 MB)."""

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

from landing.artifacts import files
from landing.core.report import trend_point

logger = logging.getLogger(__name__)

FIGURES = "report.json"  # beside each version: its figures, which the report and later trends read
REPORT = "report.html"
DRAW_TIMEOUT = 600  # seconds: a report takes ~2 s; one that hangs must not hold the crawl's close for ever


def kept(path: Path) -> dict:
    """A JSON object kept beside a version (its figures, its changes); CorruptArtifact naming the file when it
    cannot be read."""
    try:
        data = json.loads(files.text_of(path))
    except json.JSONDecodeError as error:
        raise files.CorruptArtifact(path, f"not JSON ({error})") from None
    except RecursionError:
        raise files.CorruptArtifact(path, "nested too deeply to read") from None
    if not isinstance(data, dict):
        raise files.CorruptArtifact(path, "not an object")
    return data


def trend(artifacts_dir, upto: Path | None = None) -> list[dict]:
    """The correctness trend: one point per version (up to `upto`) whose figures were kept."""
    points = []
    for version in files.versions(artifacts_dir):
        if (version / FIGURES).is_file():
            points.append(trend_point(version.name, kept(version / FIGURES)))
        if version == upto:
            break
    return points


def changes_of(version: Path) -> dict | None:
    """What a version changed since the one before it (its changes.json), or None."""
    path = version / files.CHANGES
    return kept(path) if path.is_file() else None


def latest_changes(artifacts_dir) -> dict | None:
    known = files.versions(artifacts_dir)
    return changes_of(known[-1]) if known else None


def write(out, found: dict, changes: dict | None, points: list[dict], title: str) -> Path:
    """Render the report to `out` (atomically: a reader never sees half a file)."""
    from landing.report.html import render

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    replace_text(out, render(found, changes, points, title))
    return out


def replace_text(out: Path, text: str) -> None:
    """Give `out` this text at once: written beside it, then swapped in."""
    # A plain file (not artifact files' fsynced one): a report is redrawn from the figures if it is lost.
    temporary = out.with_name(f".{out.name}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, out)


def beside_version(artifacts_dir, version: Path, found: dict) -> Path | None:
    """Keep a version's figures, then draw its report (and the top-level copy) in a child process; None, logged,
    when drawing failed: the artifacts are exported all the same."""
    (version / FIGURES).write_text(json.dumps(found, sort_keys=True) + "\n", encoding="utf-8")
    # The child finds this code where the parent did (an egg under Scrapyd is on sys.path, not installed).
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    try:
        done = subprocess.run(
            [sys.executable, "-m", "landing.report", str(artifacts_dir), version.name],
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
    return Path(artifacts_dir) / REPORT
