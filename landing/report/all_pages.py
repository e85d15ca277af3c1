"""The all-members and all-domains pages: every member (or domain) linked, so each own page is reachable from the
index, and a find box over every name, written as the rows stream by.

`<kind>.html` is the hub: the find box, and the list of table pages with the first and last key on each;
`<kind>-<n>.html` holds `PAGE` rows as a sortable, filterable table; `<kind>-find.js` holds [key, name, page] of
every row for the find box. A page stays small whatever the run's size: a run of every member is a few dozen table
pages and one find file that only the hub loads, never the index.
"""

import json
from pathlib import Path

from landing.core.web.labels import printable
from landing.report.html import href, page, section, table, text

PAGE = 500  # rows of one table page: opens in well under a second, sorts and filters at once


class Every:
    """Every member or domain as they stream by (`add`), their pages written at `close`; `kind` is "members" or
    "domains", `name_key` a row's name (None for domains)."""

    def __init__(self, directory: Path, kind: str, columns: list, name_key: str | None, nonce: str):
        self.directory, self.kind, self.columns, self.name_key, self.nonce = directory, kind, columns, name_key, nonce
        self.rows, self.pages, self.count = [], [], 0
        self.find = open(directory / f"{kind}-find.js", "w", encoding="utf-8")  # noqa: SIM115
        self.find.write("window.LANDING_FIND=[")

    def add(self, key: str, row: dict) -> None:
        name = printable(str(row.get(self.name_key) or "")) if self.name_key else ""
        entry = json.dumps([printable(key), name, href("", self.kind, key)], ensure_ascii=True)
        self.find.write(("," if self.count else "") + "\n" + entry)
        self.count += 1
        if len(self.rows) == PAGE:  # a full page is written once a row follows it: then it has a next page
            self._table_page(more=True)
        self.rows.append((key, row))

    def close(self) -> int:
        """Write the last table page, the find file and the hub; the number of rows."""
        if self.rows:
            self._table_page(more=False)
        self.find.write("\n];\n")
        self.find.close()
        self._hub()
        return self.count

    def _file(self, n: int) -> str:
        return f"{self.kind}-{n}.html"

    def _table_page(self, more: bool) -> None:
        n = len(self.pages) + 1
        first, last = self.rows[0][0], self.rows[-1][0]
        self.pages.append((first, last, len(self.rows)))
        around = [f'<a href="{self.kind}.html">all {self.kind} and the find box</a>']
        if n > 1:
            around.append(f'<a href="{self._file(n - 1)}">previous page</a>')
        if more:
            around.append(f'<a href="{self._file(n + 1)}">next page</a>')
        nav = "<p>" + " · ".join(around) + "</p>"
        full = f'every row in <a href="{self.kind}.csv">CSV</a> · <a href="{self.kind}.json">JSON</a>'
        body = nav + table(
            f"{self.kind}-{n}", self.kind, self.columns, [row for _, row in self.rows], note=full, files=False
        )
        title = f"All {self.kind}, page {n}: {first} to {last}"
        self._write(self._file(n), page(title, [], body, nonce=self.nonce))
        self.rows = []

    def _hub(self) -> None:
        what = "member by name or id" if self.name_key else "domain by name"
        find = (
            f"<p><label>Find a {what} <input type=search id=find autofocus></label> <span id=found-count"
            " role=status></span></p><ol id=found></ol>"
        )
        pages = "".join(
            f'<li><a href="{self._file(n)}">{text(first)} to {text(last_key)}</a> ({rows:,})</li>'
            for n, (first, last_key, rows) in enumerate(self.pages, 1)
        )
        listed = f"<ol>{pages}</ol>" if pages else "<p class=note>None.</p>"
        body = section("look-up", "Find", find) + section("pages", f"Every one, {PAGE:,} a page", listed)
        title = f"All {self.kind} ({self.count:,})"
        contents = [("look-up", "Find"), ("pages", "Every one")]
        self._write(
            f"{self.kind}.html", page(title, contents, body, nonce=self.nonce, scripts=(f"{self.kind}-find.js",))
        )

    def _write(self, name: str, html: str) -> None:
        (self.directory / name).write_text(html, encoding="utf-8")
