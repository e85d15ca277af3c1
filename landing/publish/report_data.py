"""The report's data beside a version (docs/artifacts.md "Beside each version"): members.jsonl.gz and
domains.jsonl.gz from the rebuild's one aggregation (landing.core.publishing.member_figures), then the publisher alerts,
alerts.jsonl and alerts.csv, from the new members file and the previous version's, both read as streams sorted by
member.

Each file is written to a temp file beside it and swapped in (os.replace), and the same store gives the same bytes.
"""

import gzip
import io
import json
import logging
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path

from landing import settings
from landing.artifacts.artifact_files import CHANGES, ArtifactError, replacing, versions
from landing.core.publishing import member_figures
from landing.core.publishing.aggregation import Aggregate
from landing.core.publishing.alerts import alert, comparable, csv_rows, moves
from landing.core.publishing.report_rows import by_member
from landing.core.publishing.spreadsheet import writer

logger = logging.getLogger(__name__)

MEMBERS = "members.jsonl.gz"
DOMAINS = "domains.jsonl.gz"
ALERTS = "alerts.jsonl"
ALERTS_CSV = "alerts.csv"
_BUFFER = 1 << 17
_LEVEL = 6  # gzip's default: a full run's members file compresses ~10× at a fraction of the time level 9 takes


def _line(obj: dict) -> bytes:
    return (json.dumps(obj, separators=(",", ":")) + "\n").encode("utf-8")


def write_jsonl_gz(path: Path, objects: Iterable[dict]) -> int:
    """Write one JSON object a line, gzipped with no time or name in its header (same objects, same bytes); the
    number written."""
    written = 0
    with (
        replacing(path, binary=True) as raw,
        gzip.GzipFile("", "wb", _LEVEL, raw, mtime=0) as packed,
        io.BufferedWriter(packed, _BUFFER) as out,  # Python 3.11's GzipFile compresses each write on its own
    ):
        for obj in objects:
            out.write(_line(obj))
            written += 1
    return written


def read_jsonl_gz(path: Path, key: str) -> Iterator[dict]:
    """The objects of a file `write_jsonl_gz` wrote, checked to be sorted by `key`; ArtifactError naming the file
    and line when it cannot be read."""
    last, line = None, 0
    try:
        with gzip.open(path, "rt", encoding="utf-8") as lines:
            for text in lines:
                line += 1
                obj = json.loads(text)
                if not isinstance(obj, dict) or not isinstance(obj.get(key), str):
                    raise ValueError(f"not an object with a {key!r}")
                if last is not None and obj[key] <= last:
                    raise ValueError(f"not sorted by {key!r}")
                last = obj[key]
                yield obj
    except (OSError, EOFError, zlib.error, UnicodeDecodeError) as error:
        raise ArtifactError(path, f"after line {line}: {error}") from None
    except (ValueError, RecursionError) as error:
        raise ArtifactError(path, f"line {line}: {error}") from None


def alerts_of(
    members: Path, previous: Path | None, changes: dict | None, version: str, agent: str = settings.USER_AGENT
) -> Iterator[dict]:
    """The alerts of a version's members file against the previous version's (None: there is none), a fall in a
    share tested among every member both files let compare (a first pass over both); `agent`: the crawler's."""
    moved = moves(changes)
    name = previous.parent.name if previous is not None else None
    compared = 0
    if previous is not None:
        pairs = by_member(read_jsonl_gz(members, "member"), read_jsonl_gz(previous, "member"))
        compared = sum(1 for now, then in pairs if comparable(now, then))
    before = read_jsonl_gz(previous, "member") if previous is not None else ()
    for now, then in by_member(read_jsonl_gz(members, "member"), before):
        found = alert(now, then, moved, version, name, compared, agent)
        if found is not None:
            yield found


def _write_alerts(version: Path, previous: Path | None, changes: dict | None, agent: str) -> int:
    written = 0
    with replacing(version / ALERTS, binary=True) as out:
        for found in alerts_of(version / MEMBERS, previous, changes, version.name, agent):
            out.write(_line(found))
            written += 1
    with replacing(version / ALERTS_CSV, binary=False) as out:  # from the file just written: no second rebuild
        writer(out, lineterminator="\r\n").writerows(csv_rows(read_jsonl_objects(version / ALERTS)))
    return written


def read_jsonl_objects(path: Path) -> Iterator[dict]:
    """The objects of a plain JSON-lines file (alerts.jsonl); ArtifactError naming the file and line otherwise."""
    line = 0
    try:
        with open(path, encoding="utf-8") as lines:
            for text in lines:
                line += 1
                obj = json.loads(text)
                if not isinstance(obj, dict):
                    raise ValueError("not an object")
                yield obj
    except (OSError, UnicodeDecodeError) as error:
        raise ArtifactError(path, f"after line {line}: {error}") from None
    except (ValueError, RecursionError) as error:
        raise ArtifactError(path, f"line {line}: {error}") from None


def previous_members(artifacts_dir, version: Path) -> Path | None:
    """The members file of the version before `version`, None when there is none or it has no members file."""
    known = versions(artifacts_dir)
    names = [v.name for v in known]
    before = known[: names.index(version.name)] if version.name in names else known
    path = before[-1] / MEMBERS if before else None
    return path if path is not None and path.is_file() else None


def write_beside(artifacts_dir, version: Path, aggregate: Aggregate, agent: str | None = None) -> dict:
    """Write the report's data (from the rebuild's aggregate) and the alerts beside a new version: {"members",
    "domains", "alerts"} counted. `agent`: the USER_AGENT the alerts ask publishers to allow (the project's when
    None)."""
    agent = agent or settings.USER_AGENT
    written = {
        "members": write_jsonl_gz(version / MEMBERS, member_figures.members(aggregate)),
        "domains": write_jsonl_gz(version / DOMAINS, member_figures.domains(aggregate)),
    }
    changes_path = version / CHANGES
    changes = json.loads(changes_path.read_text("utf-8")) if changes_path.is_file() else None
    previous = previous_members(artifacts_dir, version)
    try:
        written["alerts"] = _write_alerts(version, previous, changes, agent)
    except ArtifactError as error:  # a damaged older file must not stop this version's alerts: compared with none
        logger.warning("The alerts of %s are not compared with the previous version: %s", version.name, error)
        written["alerts"] = _write_alerts(version, None, changes, agent)
    return written
