"""The --evaluate table: right, wrong and no match per method and verification, totals adding up."""

from landing.core.matching.evaluation import render_table, tabulate


def _result(doi, method="landing-page-url", verification="checked-url-exact"):
    return {"doi": doi, "method": method, "verification": verification}


def test_tabulate_counts_right_wrong_and_no_match_per_method_and_verification():
    pairs = [
        ("10.1/a", _result("10.1/a")),
        ("10.1/b", _result("10.1/x")),
        ("10.1/c", _result(None, None, None)),
        ("10.1/d", None),
        ("10.1/E", _result("10.1/e", "pii", "lookup")),
    ]
    assert tabulate(pairs) == [
        ("pii", "lookup", 1, 0),
        ("landing-page-url", "checked-url-exact", 1, 1),
        ("no match", "", 0, 2),
    ]


def test_render_table_totals_count_each_input_once():
    table = render_table([("landing-page-url", "checked-url-exact", 3, 1), ("no match", "", 0, 4)])
    assert table.splitlines()[-1] == "| all | | 3 | 1 | 8 inputs |"
    assert "| no match | | | | 50.0% (4) |" in table
