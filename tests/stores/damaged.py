"""A SQLite document store on a damaged disk, for the tests of what a store error looks like."""

import os
import sqlite3

from landing.stores.sqlite import SqliteDocStore


def damaged_sqlite(db: str) -> None:
    """Fill a store at db past its first page (which holds the schema), then overwrite every page but the first."""
    with SqliteDocStore(db) as docs:
        for n in range(300):
            docs.put("visit", f"run {n}", {"visit/doi": f"10.1/{n}", "padding": "x" * 200})
    with sqlite3.connect(db) as con:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    with open(db, "r+b") as damaged:
        damaged.seek(4096)
        damaged.write(bytes(range(256)) * ((os.path.getsize(db) - 4096) // 256))
