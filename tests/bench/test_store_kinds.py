"""bench/store_kinds.py: a SQLite store's documents per kind, and the last reading of each simulated day."""

from bench.store_kinds import days, kinds, line
from landing.stores.sqlite import SqliteDocStore


def test_kinds_counts_each_kinds_documents_and_bytes_and_reads_continuous_modes_clock(tmp_path):
    with SqliteDocStore(tmp_path / "landing.db") as docs:
        docs.put("visit", "continuous/0000001/0000", {"visit/doi": "10.1/a"})
        docs.put("visit", "continuous/0000001/0001", {"visit/doi": "10.1/b"})
        docs.put("continuous", "state", {"continuous/updated": "2030-01-02T03:00:00Z"})
    stamp, found = kinds(tmp_path / "landing.db")
    stored = len("continuous/0000001/0000") + len('{"visit/doi":"10.1/a"}')  # the id and the compact JSON stored
    assert (stamp, found["visit"], found["continuous"][0]) == ("2030-01-02T03:00:00Z", (2, 2 * stored), 1)


def test_a_line_names_each_kind_in_order_after_the_simulated_time():
    assert line("", {"visit": (2, 300), "pid": (1, 90)}) == "- pid=1/90 visit=2/300"


def test_days_keeps_the_last_reading_of_each_day_and_skips_lines_without_a_time():
    lines = ["2030-01-01T01:00:00Z visit=1/10", "2030-01-01T09:00:00Z visit=2/20", "- pid=1/5", "# a note"]
    assert days([*lines, "2030-01-02T01:00:00Z visit=5/50"]) == [
        ("2030-01-01", {"visit": (2, 20)}),
        ("2030-01-02", {"visit": (5, 50)}),
    ]
