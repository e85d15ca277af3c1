"""CSV cells a spreadsheet shows as text: every CSV the project writes goes through `writer`, so that a publisher's
name can never run as a formula, move the cursor of a terminal, or reorder a line (OWASP "CSV injection").

Numbers are written as they are; text has its control, format (bidi: U+202A-202E, U+2066-2069) and separator
characters shown as escapes (landing.core.web.labels.printable), and a quote put before a formula start.
"""

import csv
from collections.abc import Iterable

from landing.core.web.labels import printable

FORMULA = ("=", "+", "-", "@", "\t", "\r")  # a spreadsheet reads a cell starting so as a formula


def cell(value) -> str:
    """A value as a CSV cell that no spreadsheet runs: None empty, a list joined by spaces, a number as it is.

    >>> cell("=HYPERLINK(1)"), cell("+cmd|' /C calc'!A0"), cell("@SUM(A1)"), cell("-2+3")
    ("'=HYPERLINK(1)", "'+cmd|' /C calc'!A0", "'@SUM(A1)", "'-2+3")
    >>> cell("a\\u202eb"), cell("\\x1b[2J"), cell("\\t=1"), cell(None), cell(["10.1", "10.2"]), cell(-1), cell(0.25)
    ('a\\\\u202eb', '\\\\x1b[2J', '\\\\x09=1', '', '10.1 10.2', '-1', '0.25')
    >>> cell("PLOS"), cell("10.1371"), cell("journals.plos.org"), cell("")
    ('PLOS', '10.1371', 'journals.plos.org', '')
    """
    if value is None:
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    text = printable(" ".join(map(str, value)) if isinstance(value, list) else str(value))
    return "'" + text if text.startswith(FORMULA) else text


class Writer:
    """csv.writer's writerow and writerows, every cell made safe by `cell` first."""

    def __init__(self, out, lineterminator: str = "\n"):
        self._csv = csv.writer(out, lineterminator=lineterminator)

    def writerow(self, row: Iterable) -> None:
        self._csv.writerow([cell(value) for value in row])

    def writerows(self, rows: Iterable[Iterable]) -> None:
        for row in rows:
            self.writerow(row)


def writer(out, lineterminator: str = "\n") -> Writer:
    """The project's one CSV writer, on a text stream opened with newline="".

    >>> import io
    >>> out = io.StringIO()
    >>> writer(out).writerows([("member", "name"), ("crossref/1", "=1+1"), ("crossref/2", "Quay, Books")])
    >>> out.getvalue()
    'member,name\\ncrossref/1,\\'=1+1\\ncrossref/2,"Quay, Books"\\n'
    """
    return Writer(out, lineterminator)
