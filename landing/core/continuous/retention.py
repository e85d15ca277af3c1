"""Retention: which artifact versions' reports and which stored snapshots a long-running sampler may delete.

Versions: every version's artifact files are kept for ever (a match's evidence names its version, and consumers
browse every one); what goes is a version's report (its HTML pages and the report's data beside it, large and
derived), kept for every version younger than `keep_days`, then for the last of each calendar month (UTC), so
always for the latest; the artifact files of every version older than `keep_days` are compressed.
Snapshots, one DOI at a time: the last `keep_last`, every one whose outcome (final domain, failure class, meta-tag
correctness) differs from the same driver's snapshot before it, and the one reports count
(landing.core.publishing.current_analysis.current). So what is kept grows with the changes a DOI shows, not with
its visits, and the kept snapshots still say what each DOI's outcome was at any time. docs/continuous.md "Retention".
"""

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from landing.core.pages.documents import snapshot_id
from landing.core.publishing.current_analysis import current

_VERSION = re.compile(r"(\d{8}T\d{6}Z)(?:-(\d+))?")
OUTCOME = ("snapshot/final-url-domain", "snapshot/error", "analysis/meta-tag-correctness")


@dataclass(frozen=True)
class Pruning:
    """Version names whose report to keep and to delete (their artifact files always stay), and whose artifact files
    to compress (older than the window), each oldest first; `unrecognised`: names that are not versions
    (`YYYYMMDDTHHMMSSZ[-N]`), never touched, for the caller to report."""

    keep: tuple[str, ...]
    delete: tuple[str, ...]
    unrecognised: tuple[str, ...]
    compress: tuple[str, ...] = ()


def version_time(name: str) -> datetime | None:
    """When an artifact version was exported, from its directory name (landing/artifacts/artifact_files.py); None when the
    name is not a version's.

    >>> version_time("20261124T100251Z")
    datetime.datetime(2026, 11, 24, 10, 2, 51, tzinfo=datetime.timezone.utc)
    >>> version_time("20261124T100251Z-2") == version_time("20261124T100251Z")
    True
    >>> version_time("notes"), version_time("20261324T100251Z")
    (None, None)
    """
    found = _VERSION.fullmatch(name)
    if not found:
        return None
    try:
        return datetime.strptime(found.group(1), "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
    except ValueError:
        return None


def reports_to_delete(names: Iterable[str], now: datetime, keep_days: float) -> Pruning:
    """Keep the report of every version younger than keep_days and of the last version of each UTC calendar month
    (so the latest); the others' reports may go, never their artifact files.

    A report once deleted would never have been kept later: an older one's month already has a later version.

    >>> names = ["20260105T000000Z", "20260120T000000Z", "20260203T000000Z", "20260210T000000Z", "20260210T000000Z-1"]
    >>> found = reports_to_delete(names, datetime(2026, 4, 15, tzinfo=UTC), keep_days=30)
    >>> found.keep
    ('20260120T000000Z', '20260210T000000Z-1')
    >>> found.delete
    ('20260105T000000Z', '20260203T000000Z', '20260210T000000Z')
    >>> found.compress == tuple(names)
    True
    """
    if not keep_days >= 0:
        raise ValueError(f"keep_days must be 0 or more, not {keep_days!r}")
    now = now.replace(tzinfo=UTC) if now.tzinfo is None else now.astimezone(UTC)
    dated, unrecognised = [], []
    for name in names:
        when = version_time(name)
        if when is None:
            unrecognised.append(name)
        else:
            dated.append((when, _suffix(name), name))
    dated.sort()
    last_of_month = {}
    for when, _, name in dated:
        last_of_month[(when.year, when.month)] = name  # sorted: the last one written wins
    young = now - timedelta(days=keep_days)
    keep, delete, old = [], [], []
    for when, _, name in dated:  # the latest is the last of its month: always kept
        kept = when > young or last_of_month[(when.year, when.month)] == name
        (keep if kept else delete).append(name)
        if when <= young:
            old.append(name)
    return Pruning(tuple(keep), tuple(delete), tuple(sorted(unrecognised)), tuple(old))


def snapshots_to_drop(snapshots: Sequence[dict], keep_last: int) -> list[str]:
    """The ids of one DOI's snapshots (or analyses: they share ids) that need not be kept, oldest first.

    Kept: the last keep_last, each whose outcome differs from its driver's snapshot before it (a driver's first
    starts its record), and the one reports count for the DOI (`landing.core.publishing.current_analysis.current`).

    >>> def snap(day, domain, error=None, correctness="ok"):
    ...     return {"pid/doi": "10.1/a", "snapshot/driver": "http", "snapshot/timestamp": f"2026-11-{day:02}T08:00:00Z",
    ...             "snapshot/final-url-domain": domain, "snapshot/error": error,
    ...             "analysis/meta-tag-correctness": correctness}
    >>> history = [snap(1, "old.example"), snap(2, "old.example"), snap(3, "new.example"), snap(4, "new.example"),
    ...            snap(5, "new.example")]
    >>> snapshots_to_drop(history, keep_last=1)
    ['10.1/a http 2026-11-02', '10.1/a http 2026-11-04']
    """
    if keep_last < 0:
        raise ValueError(f"keep_last must be 0 or more, not {keep_last!r}")
    ordered = sorted(snapshots, key=_when)
    dois = {doc.get("pid/doi") for doc in ordered}
    if len(dois) > 1:
        raise ValueError(f"snapshots of one DOI at a time, not of {len(dois)}: {', '.join(sorted(map(str, dois)))}")
    ids = [_id(doc) for doc in ordered]
    keep = set(ids[len(ids) - keep_last :]) if keep_last else set()
    before: dict[str, tuple] = {}
    for doc, doc_id in zip(ordered, ids):
        outcome = tuple(doc.get(key) for key in OUTCOME)
        driver = doc.get("snapshot/driver")
        if before.get(driver, object()) != outcome:
            keep.add(doc_id)
        before[driver] = outcome
    keep.update(_id(doc) for doc in current(ordered))
    return [doc_id for doc_id in ids if doc_id not in keep]


def doi_to_drop(snapshots: dict[str, dict], analyses: dict[str, dict], keep_last: int) -> set[str]:
    """One DOI's ids to drop, from its snapshot and analysis documents by the id each is stored under: an analysis
    stands for its snapshot (it carries the snapshot's fields and the page's correctness), and the analysis reports
    count is kept whatever else. ValueError when a document is not stored under the id its fields make.

    >>> def doc(day, domain):
    ...     return {"pid/doi": "10.1/a", "snapshot/driver": "http", "snapshot/timestamp": f"2026-11-{day:02}T08:00:00Z",
    ...             "snapshot/final-url-domain": domain, "analysis/meta-tag-correctness": "ok"}
    >>> docs = {f"10.1/a http 2026-11-{day:02}": doc(day, "a.example") for day in (1, 2, 3)}
    >>> sorted(doi_to_drop(docs, docs, keep_last=1))
    ['10.1/a http 2026-11-02']
    >>> doi_to_drop({"10.1/a": doc(1, "a.example")}, {}, keep_last=1)
    Traceback (most recent call last):
    ValueError: a document of '10.1/a' is stored as '10.1/a', not as '10.1/a http 2026-11-01'
    """
    for stored, doc in (*snapshots.items(), *analyses.items()):
        _when(doc)
        if _id(doc) != stored:
            raise ValueError(f"a document of {doc.get('pid/doi')!r} is stored as {stored!r}, not as {_id(doc)!r}")
    merged = [analyses.get(doc_id) or snapshots[doc_id] for doc_id in sorted(snapshots.keys() | analyses.keys())]
    drop = set(snapshots_to_drop(merged, keep_last))
    drop.difference_update(_id(doc) for doc in current(analyses[doc_id] for doc_id in sorted(analyses)))
    return drop


def ledger_to_drop(ids: Iterable[str], run_id: str, open_rounds: Sequence[dict], owners: int) -> list[str]:
    """The ids of the continuous run's `sample` or `visit` documents (`<run>/<order>[/<rank>]`) that no open round
    needs: a closed round's, its prefixes' records written. Kept: an id of an order in an open round
    (`continuous/open`: from, to), at or past the run's `owners` (a round being begun), or not of this run.

    >>> ids = ["continuous/0000001", "continuous/0000001/0002", "continuous/0000004/0000", "continuous/0000009",
    ...        "continuous/x", "full/0000001"]
    >>> ledger_to_drop(ids, "continuous", [{"from": 3, "to": 5}], owners=8)
    ['continuous/0000001', 'continuous/0000001/0002']
    """
    drop = []
    for doc_id in ids:
        run, _, rest = doc_id.partition("/")
        order = rest.partition("/")[0]
        if run != run_id or not order.isdigit() or int(order) >= owners:
            continue
        if not any(r["from"] <= int(order) < r["to"] for r in open_rounds):
            drop.append(doc_id)
    return drop


def _when(doc: dict) -> tuple:
    stamp = doc.get("snapshot/timestamp")
    if not isinstance(stamp, str) or not stamp:
        raise ValueError(f"a snapshot of {doc.get('pid/doi')!r} has no snapshot/timestamp: {stamp!r}")
    return stamp, doc.get("snapshot/driver") or ""


def _id(doc: dict) -> str:
    if not doc.get("pid/doi") or not doc.get("snapshot/driver"):
        raise ValueError(
            f"a snapshot needs pid/doi and snapshot/driver to be named: {doc.get('pid/doi')!r}, "
            f"{doc.get('snapshot/driver')!r}"
        )
    return snapshot_id(doc)


def _suffix(name: str) -> int:
    found = _VERSION.fullmatch(name)
    return int(found.group(2) or 0) if found else 0
