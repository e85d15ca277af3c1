"""What the retention costs and what it saves: `scrapy prune` on a SQLite store and a file blob store holding many
visits per DOI (a long continuous run's history), with its time, peak RSS and the stores' sizes before and after.

    .venv/bin/python -m bench.prune [--dois 20000] [--visits 10] [--change 0.03] [--varying 0.1]

Each DOI is visited once a day by the http driver; at each visit its page moves domain or changes its meta tags with
probability `--change`, and a `--varying` share of the DOIs serve a page that differs on every visit (a timestamp in
the HTML), so each of their visits is a new blob.
"""

import argparse
import os
import random
import resource
import sqlite3
import subprocess
import tempfile
import time
from pathlib import Path

from landing.core.pages import documents
from landing.core.pages.documents import content_hash
from landing.stores import open_blobs, open_docs
from landing_dev import runner

PAGE = 2000  # bytes of a synthetic page


def build(root: Path, args) -> None:
    docs = open_docs(f"sqlite:///{root / 'landing.db'}", batch_docs=2000)
    blobs = open_blobs(f"file://{root / 'blobs'}")
    rng = random.Random(1)
    for n in range(args.dois):
        doi, domain, correctness = f"10.{1000 + n % 500}/{n}", f"host{n % 1000}.example", "ok"
        varying = rng.random() < args.varying
        for day in range(args.visits):
            if rng.random() < args.change:
                domain, correctness = (
                    (f"moved{n}-{day}.example", correctness)
                    if rng.random() < 0.5
                    else (domain, "missing" if correctness == "ok" else "ok")
                )
            when = f"2026-{1 + day // 28:02}-{1 + day % 28:02}T08:00:00Z"
            body = f"{doi} {domain} {correctness} {day if varying else ''}".encode().ljust(PAGE, b" ")
            digest = content_hash(body)
            pid = documents.pid(doi, "crossref", str(n % 5000), when)
            snapshot = documents.snapshot(
                pid, timestamp=when, driver="http", final_url=f"https://{domain}/{n}", status=200, content_hash=digest
            )
            analysis = documents.analysis(snapshot, {"analysis/meta-tag-correctness": correctness}, when)
            doc_id = documents.snapshot_id(snapshot)
            docs.put("snapshot", doc_id, snapshot)
            docs.put("analysis", doc_id, analysis)
            if blobs.put(f"snapshot/{digest}", body):
                blobs.put(f"snapshot/{digest}.json", b"{}")
    docs.close()
    old = time.time() - 7200  # past the prune's grace
    for top, _, names in os.walk(root / "blobs"):
        for name in names:
            os.utime(os.path.join(top, name), (old, old))


def sizes(root: Path) -> str:
    """Snapshots, the documents' JSON bytes (SQLite reuses a deleted row's space for later writes: the file does not
    shrink), and the blobs."""
    with sqlite3.connect(root / "landing.db") as db:
        snapshots = db.execute("SELECT COUNT(*) FROM docs WHERE kind = 'snapshot'").fetchone()[0]
        stored = db.execute("SELECT SUM(LENGTH(doc)) FROM docs").fetchone()[0] or 0
    files = [Path(top, name) for top, _, names in os.walk(root / "blobs") for name in names]
    blob_bytes = sum(path.stat().st_size for path in files)
    return (
        f"{snapshots:,} snapshots, documents {stored / 2**20:.1f} MiB of JSON; "
        f"{len(files):,} blobs, {blob_bytes / 2**20:.1f} MiB"
    )


def prune(root: Path, *extra) -> tuple[float, float, str]:
    """(seconds, peak RSS in MiB, the command's summary line) of one `scrapy prune` on the stores under root."""
    stores = runner.Stores.under(root)
    command = runner.scrapy_command("prune", *extra, settings={**stores.as_settings(), "TUNING_KEEP_SNAPSHOTS": 3})
    started = time.perf_counter()
    done = subprocess.run(command, cwd=runner.PROJECT, capture_output=True, text=True, check=True)
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # the largest child so far
    return seconds, peak, done.stdout.strip().splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dois", type=int, default=20000)
    parser.add_argument("--visits", type=int, default=10)
    parser.add_argument("--change", type=float, default=0.03)
    parser.add_argument("--varying", type=float, default=0.1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        empty, root = Path(folder, "empty"), Path(folder, "store")
        started = time.perf_counter()
        build(root, args)
        print(f"built in {time.perf_counter() - started:.0f} s: {sizes(root)}")
        seconds, base, _ = prune(empty)
        print(f"scrapy prune on empty stores: {seconds:.1f} s, peak RSS {base:.0f} MiB")
        seconds, peak, said = prune(root, "--dry-run")
        print(f"scrapy prune --dry-run: {seconds:.1f} s, peak RSS {peak:.0f} MiB\n  {said}")
        seconds, peak, said = prune(root)
        print(f"scrapy prune: {seconds:.1f} s, peak RSS {peak:.0f} MiB\n  {said}")
        print(f"after: {sizes(root)}")


if __name__ == "__main__":
    main()
