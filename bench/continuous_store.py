"""What a continuous run left in its stores and logs, for bench/continuous.py: the hours between versions, whether
each version's files are still there, the sites each prefix's visits reached, its refresh rounds, and the requests
the sandbox answered."""

from datetime import UTC, datetime, timedelta  # noqa: F401 (timedelta: the doctests)
from pathlib import Path

from landing_dev.sandbox.timeline import Timeline


class Served:
    """The requests the sandbox answered so far, counted from its log ("GET url -> status" a line) as it grows."""

    def __init__(self, log: Path):
        self.log, self.offset, self.count = log, 0, 0

    def __call__(self) -> int:
        if self.log.is_file():
            with self.log.open("rb") as lines:
                lines.seek(self.offset)
                read = lines.read()
            complete = read[: read.rfind(b"\n") + 1]
            self.offset += len(complete)
            self.count += complete.count(b" -> ")
        return self.count


def gaps(times: list[datetime]) -> tuple[float | None, float | None]:
    """The least and the most hours between consecutive versions (None, None with fewer than two).

    >>> t = datetime(2030, 1, 1, tzinfo=UTC)
    >>> gaps([t, t + timedelta(hours=24), t + timedelta(hours=49)])
    (24.0, 25.0)
    """
    hours = [(b - a).total_seconds() / 3600 for a, b in zip(times, times[1:])]
    return (min(hours), max(hours)) if hours else (None, None)


def intact(path: Path) -> bool:
    """Whether a version directory still holds every file each version has (compressed `.gz` or not)."""
    from landing.artifacts.artifact_files import REQUIRED

    return all((path / name).is_file() or (path / f"{name}.gz").is_file() for name in REQUIRED)


def reached(timeline: Timeline, docs) -> dict[str, set]:
    """Per prefix, the world's sites its stored visits ended on (snapshots and analyses: a moved site's new domain
    counts as the site itself)."""
    seen: dict[str, set] = {}
    for kind in ("snapshot", "analysis"):
        for doc in docs.scan(kind):
            domain, doi = doc.get("snapshot/final-url-domain"), doc.get("pid/doi") or ""
            if domain and "/" in doi:
                seen.setdefault(doi.split("/", 1)[0].lower(), set()).add(timeline.site_of(domain))
    return seen


def rounds(docs) -> dict[str, int]:
    """Per prefix, the refresh rounds its document counts (`prefix/rounds`: retention drops closed rounds' samples)."""
    return {doc["prefix/prefix"]: int(doc.get("prefix/rounds") or 0) for doc in docs.scan("prefix")}
