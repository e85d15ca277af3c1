"""Retention applied to the stores (docs/continuous.md "Retention"): old versions' reports (never their artifact
files, which are gzipped), the snapshots and analyses a DOI's record does not need, and the blobs no kept snapshot
names. `scrapy prune` runs it once; continuous mode
every tuning.PRUNE_HOURS, on the document store's thread. The decisions are landing.core.continuous.retention's.

Memory: one DOI's documents at a time, plus 8 bytes per page kept (the first 64 bits of its content hash, once per
DOI; a collision only keeps a blob that could have gone), sorted once before the blob pass.
"""

import heapq
import itertools
import logging
import re
import time
from array import array
from datetime import datetime

from landing.artifacts import artifact_files
from landing.core.continuous import schedule
from landing.core.continuous.retention import doi_to_drop, ledger_to_drop, reports_to_delete
from landing.core.publishing.artifact_format import FILENAMES
from landing.core.sampling import runs
from landing.publish.drawing import REPORT_DIR
from landing.publish.report_data import ALERTS, ALERTS_CSV, DOMAINS, MEMBERS
from landing.stores import StoreError

logger = logging.getLogger(__name__)

GRACE_SECONDS = 3600.0  # `grace_seconds` of a caller that knows no LANDING_DOCS_OUTAGE_MAX
DELETE_BATCH = 1000  # ids deleted at once: one transaction (SQLite) or bulk request (Elasticsearch)
_BLOB = re.compile(r"snapshot/([0-9a-f]{64})(\.json)?")
# A version's report: its pages and the report's data beside its artifact files, derived from them and the store,
# and large (a full run's members file is megabytes). Its figures (report.json), which every later trend reads, and
# its changes stay with its artifact files.
REPORT_PARTS = (REPORT_DIR, MEMBERS, DOMAINS, ALERTS, ALERTS_CSV)


def grace(docs_outage_max: float) -> float:
    """Real seconds a new blob is never deleted: a visit writes its body before its snapshot reaches the store (the
    pipeline, the store's buffer, a worker's buffer through an outage of up to LANDING_DOCS_OUTAGE_MAX), so a new
    body may not be named yet by any snapshot a pass reads. Twice the outage, and at least a minute.

    >>> grace(300.0), grace(0.0)
    (600.0, 60.0)
    """
    return max(60.0, 2 * docs_outage_max)


def prune(
    docs,
    blobs,
    artifacts_dir,
    now: datetime,
    keep_days: float,
    keep_last: int,
    *,
    dry_run: bool = False,
    grace_seconds: float = GRACE_SECONDS,
    progress=None,
) -> dict:
    """Apply the retention once (`keep_days`: old versions' reports kept this long); a summary of counts. `blobs`
    None leaves the blob store alone; `dry_run` counts what would go and deletes nothing. StoreError when a store
    fails (what was deleted before stays deleted: the rules are stable, so the next pass finishes the work)."""
    if keep_last < 0 or not keep_days >= 0:
        raise ValueError(f"keep_last and keep_days are 0 or more, not {keep_last!r} and {keep_days!r}")
    summary = {
        "reports_deleted": 0,
        "reports_kept": 0,
        "deleted_reports": [],
        "versions_compressed": 0,
        "unrecognised": [],
        "dois": 0,
        "dois_skipped": 0,
        "snapshots_deleted": 0,
        "analyses_deleted": 0,
        "snapshots_kept": 0,
        "blobs_deleted": 0,
        "blobs_kept": 0,
        "blobs_recent": 0,
        "blobs_unrecognised": 0,
        "blobs_checked": False,
        "samples_deleted": 0,
        "visits_deleted": 0,
        "dry_run": dry_run,
    }
    # Before the snapshots are read: a blob written after this instant may be named by a snapshot the pass missed.
    cutoff = time.time() - grace_seconds
    _reports(artifacts_dir, now, keep_days, dry_run, summary)
    _ledger(docs, dry_run, summary)
    kept = _snapshots(docs, keep_last, dry_run, summary, progress)
    if blobs is not None and summary["dois"]:  # an empty store (a mistyped LANDING_DOCS) never empties the blobs
        names = _sorted_unique(kept)
        del kept
        _blobs(blobs, names, cutoff, dry_run, summary, progress)
        summary["blobs_checked"] = True
    return summary


def _reports(artifacts_dir, now, keep_days, dry_run, summary) -> None:
    """Delete the reports of the versions past `keep_days` but the last of each month, and compress the artifact
    files of every version past it; every artifact file stays, readable (landing.artifacts.artifact_files.text_of)."""
    found = {path.name: path for path in artifact_files.versions(artifacts_dir)}
    pruning = reports_to_delete(found, now, keep_days)
    summary["unrecognised"] = list(pruning.unrecognised)
    summary["reports_kept"] = len(pruning.keep)
    if dry_run:
        deleted = [name for name in pruning.delete if any((found[name] / p).exists() for p in REPORT_PARTS)]
        plain = [name for name in pruning.compress if any((found[name] / f).is_file() for f in FILENAMES)]
    else:
        try:
            deleted = artifact_files.remove_beside(artifacts_dir, pruning.delete, REPORT_PARTS)
            plain = artifact_files.compress_versions(artifacts_dir, pruning.compress)
        except OSError as error:
            raise StoreError(f"cannot prune old versions under {artifacts_dir}: {error}") from None
    summary["versions_compressed"] = len(plain)
    summary["deleted_reports"] = deleted
    summary["reports_deleted"] = len(deleted)


def _ledger(docs, dry_run, summary) -> None:
    """Delete the continuous run's samples and visits of closed rounds: its prefixes' records hold what they said,
    and nothing reads them again (the walk and the rounds' checks read the open rounds' only)."""
    state = _get(docs, *schedule.STATE)
    run = _get(docs, "run", state.get("continuous/run")) if state else None
    if not run or run.get("run/mode") != runs.CONTINUOUS:
        return
    run_id, opened, owners = run["run/id"], state.get("continuous/open") or [], run.get("run/owners") or 0
    for kind in ("sample", "visit"):
        ids = (doc_id for doc_id, _ in docs.items(kind, prefix=f"{run_id}/"))
        while batch := list(itertools.islice(ids, DELETE_BATCH)):
            doomed = ledger_to_drop(batch, run_id, opened, owners)
            summary[f"{kind}s_deleted"] += len(doomed)
            if doomed and not dry_run:
                docs.delete(kind, doomed)


def _get(docs, kind: str, doc_id) -> dict | None:
    """One document, read as scans read (DocStore.get does not turn a damaged store's error into a StoreError)."""
    if not isinstance(doc_id, str) or not doc_id:
        return None
    return next((doc for found, doc in docs.items(kind, prefix=doc_id) if found == doc_id), None)


def _by_doi(docs):
    """Each DOI's (snapshots, analyses), by stored id, from the two kinds scanned side by side in id order (ids begin
    with the DOI and a space, so a DOI's documents are adjacent)."""
    snapshots = ((doc_id, "snapshot", doc) for doc_id, doc in docs.items("snapshot"))
    analyses = ((doc_id, "analysis", doc) for doc_id, doc in docs.items("analysis"))
    merged = heapq.merge(snapshots, analyses, key=lambda row: row[:2])
    for _, rows in itertools.groupby(merged, key=lambda row: row[0].rsplit(" ", 2)[0]):
        found = {"snapshot": {}, "analysis": {}}
        for doc_id, kind, doc in rows:
            found[kind][doc_id] = doc
        yield found["snapshot"], found["analysis"]


def _snapshots(docs, keep_last, dry_run, summary, progress) -> array:
    """Drop each DOI's unneeded snapshots and analyses; the content hashes (64-bit prefixes) of those kept."""
    kept = array("Q")
    doomed = {"snapshot": [], "analysis": []}

    def delete(kind, at_least):
        if len(doomed[kind]) >= at_least:
            if not dry_run:
                docs.delete(kind, doomed[kind])
            doomed[kind] = []

    for snapshots, analyses in _by_doi(docs):
        summary["dois"] += 1
        try:
            drop = doi_to_drop(snapshots, analyses, keep_last)
        except ValueError as error:  # kept whole, and said: never guessed at
            drop = set()
            summary["dois_skipped"] += 1
            if summary["dois_skipped"] <= 10:
                logger.warning("Retention keeps every document of a DOI it cannot read: %s", error)
        summary["snapshots_kept"] += len(snapshots.keys() - drop)
        for kind, found, counted in (("snapshot", snapshots, "snapshots"), ("analysis", analyses, "analyses")):
            gone = [doc_id for doc_id in found if doc_id in drop]
            doomed[kind] += gone
            summary[f"{counted}_deleted"] += len(gone)
            delete(kind, DELETE_BATCH)
        # A page unchanged between visits has one hash: each kept once per DOI.
        hashes = {
            doc.get("snapshot/content-hash")
            for found in (snapshots, analyses)
            for i, doc in found.items()
            if i not in drop
        }
        for digest in hashes:
            _add_hash(kept, digest)
        if progress and summary["dois"] % 100_000 == 0:
            progress(f"{summary['dois']:,} DOIs read, {summary['snapshots_deleted']:,} snapshots to drop")
    delete("snapshot", 1)
    delete("analysis", 1)
    return kept


def _add_hash(kept: array, digest) -> None:
    if isinstance(digest, str) and len(digest) == 64:
        try:
            kept.append(int(digest[:16], 16))
        except ValueError:
            pass  # no blob is named so: nothing to keep


def _sorted_unique(kept: array):
    """The hashes as a sorted numpy array without repeats, sorted in place."""
    import numpy  # only here: sorting and looking up millions of hashes without a Python object each

    names = numpy.frombuffer(kept, dtype=numpy.uint64).copy() if kept else numpy.zeros(0, numpy.uint64)
    names.sort()
    return names[numpy.concatenate(([True], names[1:] != names[:-1]))] if len(names) else names


def _blobs(blobs, names, cutoff: float, dry_run: bool, summary, progress) -> None:
    """Delete the blobs under snapshot/ that no kept snapshot names (`names`, sorted) and that were written before
    `cutoff`."""
    import numpy

    batch: list[tuple[str, int]] = []

    def settle():
        prefixes = numpy.array([prefix for _, prefix in batch], dtype=numpy.uint64)
        at = numpy.minimum(numpy.searchsorted(names, prefixes), max(len(names) - 1, 0))
        named = names[at] == prefixes if len(names) else numpy.zeros(len(batch), bool)
        doomed = [key for (key, _), keep in zip(batch, named.tolist()) if not keep]
        summary["blobs_kept"] += len(batch) - len(doomed)
        summary["blobs_deleted"] += len(doomed)
        if doomed and not dry_run:
            blobs.delete(doomed)
        batch.clear()

    seen = 0
    for key, written in blobs.listing("snapshot/"):
        seen += 1
        found = _BLOB.fullmatch(key)
        if not found:
            summary["blobs_unrecognised"] += 1
        elif written > cutoff:
            summary["blobs_recent"] += 1
        else:
            batch.append((key, int(found.group(1)[:16], 16)))
            if len(batch) >= DELETE_BATCH:
                settle()
        if progress and seen % 100_000 == 0:
            progress(f"{seen:,} blobs read, {summary['blobs_deleted']:,} to delete")
    if batch:
        settle()
