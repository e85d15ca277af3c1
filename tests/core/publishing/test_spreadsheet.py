"""landing.core.publishing.spreadsheet: every CSV cell a spreadsheet shows as text, and normal values written byte for byte as
csv.writer writes them (the artifact files are a contract)."""

import csv
import io

import pytest

from landing.core.publishing.spreadsheet import cell, writer


def _written(rows, **kwargs) -> str:
    out = io.StringIO()
    writer(out, **kwargs).writerows(rows)
    return out.getvalue()


@pytest.mark.parametrize(
    ("raw", "safe"),
    [
        ('=HYPERLINK("http://evil.example","x")', '\'=HYPERLINK("http://evil.example","x")'),
        ("+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"),
        ("-2+3+cmd|' /C calc'!A0", "'-2+3+cmd|' /C calc'!A0"),
        ("@SUM(1+1)*cmd|' /C calc'!A0", "'@SUM(1+1)*cmd|' /C calc'!A0"),
        ("\t=1+1", "\\x09=1+1"),
        ("\r=1+1", "\\x0d=1+1"),
        ("Press \u202eredaeR", "Press \\u202eredaeR"),
        ("Press \u2066x\u2069", "Press \\u2066x\\u2069"),
        ("\x1b[2J\x1b]0;owned\x07Press", "\\x1b[2J\\x1b]0;owned\\x07Press"),
        ("line\nbreak", "line\\x0abreak"),
    ],
)
def test_a_text_cell_that_a_spreadsheet_would_run_or_reorder_is_written_as_inert_text(raw, safe):
    assert cell(raw) == safe
    assert list(csv.reader(io.StringIO(_written([["x", raw]])))) == [["x", safe]]


def test_numbers_are_written_as_they_are_even_negative_ones():
    assert _written([[-1, 0.25, 3, None]]) == "-1,0.25,3,\n"


def test_normal_artifact_and_report_values_are_written_byte_for_byte_as_csv_writer_writes_them():
    rows = [
        ("10.1371", "journals.plos.org", "crossref"),
        ("10.5555", "", "datacite"),
        ("10.1002", "link.orchid-riverside-5.example", "crossref"),
        ("10.1002", "xn--bcher-kva.example", "crossref", "2026-01-02T12:00:00Z", "2026-03-04T12:00:00Z"),
        ("crossref/340", "Public Library of Science (PLoS)", "Quay, Books", 'The "Press"', "Zürich Verlag"),
    ]
    for terminator in ("\n", "\r\n"):
        plain = io.StringIO()
        csv.writer(plain, lineterminator=terminator).writerows(rows)
        assert _written(rows, lineterminator=terminator) == plain.getvalue()
