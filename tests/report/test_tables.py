"""landing.report.tables: the report's CSV files (a page's tables and the full members, prefixes and domains
tables) carry publisher names as inert text, the JSON beside them as they are."""

import csv
import io
import json

from landing.core.publishing.report_rows import MEMBER_COLUMNS, member_row
from landing.report.tables import Streamed, Tables

NAMES = ['=HYPERLINK("http://evil.example","Click")', "+cmd|' /C calc'!A0", "Press \u202eredaeR", "\x1b[2JPress"]
SAFE = ['\'=HYPERLINK("http://evil.example","Click")', "'+cmd|' /C calc'!A0", "Press \\u202eredaeR", "\\x1b[2JPress"]
MEMBERS = [
    {"member": f"crossref/{n}", "name": name, "dois": 1, "correctness": {"ok": 1}} for n, name in enumerate(NAMES)
]


def _names(text: str) -> list[str]:
    return [row["name"] for row in csv.DictReader(io.StringIO(text))]


def test_a_pages_table_as_csv_has_formula_and_bidi_names_neutralised_and_its_json_keeps_them():
    tables = Tables()
    tables.add("worst-members", "Worst members", MEMBER_COLUMNS, [member_row(m) for m in MEMBERS])
    files = tables.files()
    assert _names(files["worst-members.csv"]) == SAFE
    assert [row["name"] for row in json.loads(files["worst-members.json"])] == NAMES


def test_the_full_members_table_streamed_to_csv_has_formula_and_bidi_names_neutralised(tmp_path):
    streamed = Streamed(tmp_path, "members", MEMBER_COLUMNS)
    for member in MEMBERS:
        streamed.add(member_row(member))
    streamed.close()
    assert _names((tmp_path / "members.csv").read_text(encoding="utf-8")) == SAFE
