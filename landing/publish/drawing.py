"""Draw a version's report directory (landing.report.directory) from the files beside it: its members' and domains'
objects streamed from members.jsonl.gz and domains.jsonl.gz, its alerts, and each member's own trend read from
the older versions' members files (a bounded number of them, streamed too)."""

import logging
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from landing.artifacts import artifact_files
from landing.core.publishing.report_keys import CORRECTNESS
from landing.publish.report_data import ALERTS, DOMAINS, MEMBERS, read_jsonl_gz, read_jsonl_objects
from landing.report.directory import INDEX, draw

logger = logging.getLogger(__name__)

REPORT_DIR = "report"
HISTORY = 10  # versions in a member's own trend, this one included: ~20,000 members × this many points in memory


def _point(member: dict) -> tuple:
    correctness = member.get("correctness") or {}
    return (member.get("dois", 0), *(correctness.get(name, 0) for name in CORRECTNESS), member.get("failed", 0))


def _as_point(version: str, point: tuple) -> dict:
    dois, *correctness, failed = point
    return {"version": version, "dois": dois, "correctness": dict(zip(CORRECTNESS, correctness)), "failed": failed}


class History:
    """Each member's trend points, kept as tuples (~20,000 members × HISTORY of them) and made dicts as its page is
    drawn."""

    def __init__(self, points: dict[str, list[tuple]]):
        self.points = points

    def get(self, member: str, default=()) -> list[dict]:
        return [_as_point(name, point) for name, point in self.points.get(member, ())] or list(default)


def member_history(artifacts_dir, version: Path | None, most: int = HISTORY - 1) -> History:
    """Each member's points in the (at most `most`) versions before `version` that kept a members file, oldest
    first; a file that cannot be read is left out of every member's trend, logged."""
    known = artifact_files.versions(artifacts_dir)
    names = [v.name for v in known]
    before = known[: names.index(version.name)] if version is not None and version.name in names else known
    kept = [v for v in before if (v / MEMBERS).is_file()][-most:] if most > 0 else []
    history: dict[str, list] = {}
    for older in kept:
        try:
            points = {m["member"]: _point(m) for m in read_jsonl_gz(older / MEMBERS, "member")}
        except artifact_files.ArtifactError as error:
            logger.warning("Members' trends leave out %s: %s", older.name, error)
            continue
        for member, point in points.items():
            history.setdefault(member, []).append((older.name, point))
    return History(history)


def draw_at(out, version: Path | None, found: dict, changes: dict | None, points: list[dict], title: str) -> Path:
    """Draw the report directory at `out` from `version`'s files (index only when it has no members file, or there
    is no version); its index.html."""
    if version is None or not (version / MEMBERS).is_file():
        return draw(out, title, found, changes, points)
    alerts = read_jsonl_objects(version / ALERTS) if (version / ALERTS).is_file() else ()
    domains = read_jsonl_gz(version / DOMAINS, "domain") if (version / DOMAINS).is_file() else ()
    return draw(
        out,
        title,
        found,
        changes,
        points,
        members=read_jsonl_gz(version / MEMBERS, "member"),
        domains=domains,
        history=member_history(version.parent.parent, version),
        alerts=alerts,
        version=version.name,
    )


def thin_older(artifacts_dir, version: Path, index_of: Callable[[Path], tuple]) -> list[str]:
    """Redraw the report of every version before `version` that still has member and domain pages as an index
    only (`index_of(older)`: its figures, changes and trend points); the names thinned. A full run's pages are
    hundreds of thousands of files (docs/report.md): every version keeping them would fill the disk, and
    the latest version's pages (with each member's trend over the kept versions) are the ones read. The old pages
    are moved to a `.removing-` folder in one rename, then deleted by a detached process (deleting them can take
    minutes, which the export that waits for this one must not); one left behind, `scrapy prune` removes."""
    thinned = []
    for older in artifact_files.versions(artifacts_dir):
        if older == version:
            break
        if not (older / REPORT_DIR / "members").is_dir() or not (older / REPORT_DIR / INDEX).is_file():
            continue
        found, changes, points = index_of(older)
        doomed = Path(artifacts_dir) / f".removing-report-{older.name}"
        os.rename(older / REPORT_DIR, doomed)
        draw(older / REPORT_DIR, older.name, found, changes, points)
        _remove_detached(doomed)
        thinned.append(older.name)
    return thinned


def _remove_detached(path: Path) -> None:
    subprocess.Popen(
        [sys.executable, "-c", "import shutil, sys; shutil.rmtree(sys.argv[1], ignore_errors=True)", str(path)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # not in the export's process group: a stop of the crawl does not stop it
    )
