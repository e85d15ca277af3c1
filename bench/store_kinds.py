"""What a SQLite document store holds per kind, polled while a crawl writes it: count and bytes of each kind.

    .venv/bin/python -m bench.store_kinds DB [--every 5] [--until SECONDS] > kinds.log
    .venv/bin/python -m bench.store_kinds --days kinds.log

Each poll prints one line: the simulated time continuous mode last wrote its state (`continuous/updated`), then
`kind=count/bytes` (bytes: id and JSON text as stored). Read-only (SQLite WAL readers do not block the crawl's
writes). `--days LOG` prints, from such lines, each kind's count and kB at the end of each simulated day. Used beside
bench/continuous.py (bench/README.md "store_kinds.py").
"""

import argparse
import json
import sqlite3
import time
from pathlib import Path


def kinds(db: Path) -> tuple[str, dict[str, tuple[int, int]]]:
    """(the continuous state's `updated` stamp or "", {kind: (documents, bytes)})."""
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        rows = connection.execute(
            "SELECT kind, count(*), sum(length(id) + length(CAST(doc AS BLOB))) FROM docs GROUP BY kind"
        ).fetchall()
        state = connection.execute("SELECT doc FROM docs WHERE kind = 'continuous' AND id = 'state'").fetchone()
    finally:
        connection.close()
    stamp = json.loads(state[0]).get("continuous/updated") or "" if state else ""
    return stamp, {kind: (count, size) for kind, count, size in rows}


def line(stamp: str, found: dict[str, tuple[int, int]]) -> str:
    """One poll's line.

    >>> line("2030-01-01T00:00:00Z", {"visit": (2, 300), "pid": (1, 90)})
    '2030-01-01T00:00:00Z pid=1/90 visit=2/300'
    """
    return " ".join([stamp or "-", *(f"{kind}={count}/{size}" for kind, (count, size) in sorted(found.items()))])


def days(lines: list[str]) -> list[tuple[str, dict[str, tuple[int, int]]]]:
    """The last reading of each simulated day (UTC), in order.

    >>> days(["2030-01-01T01:00:00Z visit=1/10", "2030-01-01T09:00:00Z visit=2/20", "- pid=1/5",
    ...       "2030-01-02T01:00:00Z visit=5/50"])
    [('2030-01-01', {'visit': (2, 20)}), ('2030-01-02', {'visit': (5, 50)})]
    """
    last: dict[str, dict[str, tuple[int, int]]] = {}
    for text in lines:
        stamp, *fields = text.split()
        if len(stamp) < 10 or stamp.startswith("#"):
            continue
        found = {}
        for field in fields:
            kind, _, figures = field.partition("=")
            count, _, size = figures.partition("/")
            found[kind] = (int(count), int(size))
        last[stamp[:10]] = found
    return sorted(last.items())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", type=Path, nargs="?", help="the SQLite file of LANDING_DOCS")
    parser.add_argument("--days", type=Path, help="a log of polls to summarise per simulated day instead")
    parser.add_argument("--every", type=float, default=5.0, help="real seconds between polls (5)")
    parser.add_argument("--until", type=float, default=0.0, help="stop after this many real seconds (0: one poll)")
    opts = parser.parse_args()
    if opts.days:
        for day, found in days(opts.days.read_text("utf-8").splitlines()):
            figures = " ".join(f"{kind}={count}/{size // 1000}kB" for kind, (count, size) in sorted(found.items()))
            print(day, figures)
        return
    if opts.db is None:
        parser.error("a DB to poll, or --days LOG")
    ends = time.monotonic() + opts.until
    while True:
        try:
            print(line(*kinds(opts.db)), flush=True)
        except sqlite3.Error as error:
            print(f"# cannot read {opts.db}: {error}", flush=True)
        if time.monotonic() + opts.every > ends:
            return
        time.sleep(opts.every)


if __name__ == "__main__":
    main()
