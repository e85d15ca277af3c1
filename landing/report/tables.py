"""A page's tables, kept as they are shown so that each is also written as CSV and JSON beside its page."""

import io
import json

from landing.core.publishing.spreadsheet import writer
from landing.report.html import table


class Tables:
    """Tables shown on one page: `add` returns a table's HTML and keeps its rows for `files`."""

    def __init__(self, root: str = ""):
        self.root, self.kept = root, []

    def add(self, table_id: str, title: str, columns: list, rows: list[dict], note: str = "", shown: int = 0) -> str:
        """The table's HTML (its first `shown` rows when shown is set; its files hold them all)."""
        self.kept.append((table_id, columns, rows))
        return table(table_id, title, columns, rows[:shown] if shown else rows, self.root, note)

    def files(self) -> dict[str, str]:
        """{file name: text} of every table kept: `<id>.csv` and `<id>.json`."""
        made = {}
        for table_id, columns, rows in self.kept:
            made[f"{table_id}.csv"] = csv_text(columns, rows)
            made[f"{table_id}.json"] = json_text(columns, rows)
        return made


def csv_text(columns: list, rows: list[dict]) -> str:
    out = io.StringIO()
    cells = writer(out)  # names from outside made safe for a spreadsheet (landing.core.publishing.spreadsheet)
    cells.writerow([key for key, _, _ in columns])
    cells.writerows([row.get(key) for key, _, _ in columns] for row in rows)
    return out.getvalue()


def json_row(columns: list, row: dict) -> str:
    return json.dumps({key: row.get(key) for key, _, _ in columns}, ensure_ascii=False)


def json_text(columns: list, rows: list[dict]) -> str:
    return "[\n" + ",\n".join(json_row(columns, row) for row in rows) + ("\n]\n" if rows else "]\n")


class Streamed:
    """A table too long for a page (every member, prefix or domain), written as CSV and JSON as its rows come."""

    def __init__(self, directory, table_id: str, columns: list):
        self.columns, self.count = columns, 0
        self.csv_file = open(directory / f"{table_id}.csv", "w", encoding="utf-8", newline="")  # noqa: SIM115
        self.json_file = open(directory / f"{table_id}.json", "w", encoding="utf-8")  # noqa: SIM115
        self.writer = writer(self.csv_file)
        self.writer.writerow([key for key, _, _ in columns])
        self.json_file.write("[")

    def add(self, row: dict) -> None:
        self.writer.writerow([row.get(key) for key, _, _ in self.columns])
        self.json_file.write(("," if self.count else "") + "\n" + json_row(self.columns, row))
        self.count += 1

    def close(self) -> None:
        self.json_file.write("\n]\n" if self.count else "]\n")
        self.csv_file.close()
        self.json_file.close()
