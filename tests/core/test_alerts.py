"""landing.core.alerts: what a member should fix and what got worse, from its figures now and before."""

import csv
import io

from landing.core.alerts import alert, csv_rows, moves

EMPTY_FIX = {
    "prefixes-without-good-domain": [],
    "domains-missing-doi": [],
    "domains-wrong-doi": [],
    "failing-domains": [],
}


def _domain(name, ok=0, incorrect=0, conflict=0, missing=0, errors=None, wrong=None):
    errors = errors or {}
    read = ok + incorrect + conflict + missing
    return {
        "domain": name,
        "dois": read + sum(errors.values()),
        "read": read,
        "correctness": {"ok": ok, "incorrect": incorrect, "conflict": conflict, "missing": missing},
        "errors": errors,
        "failed": sum(errors.values()),
        "ok-share": round(ok / read, 4) if read else None,
        "wrong-example": wrong,
    }


def _member(domains, prefixes=(("10.1", ["a.example"]),), name="Harbour Press"):
    total = {k: sum(d["correctness"][k] for d in domains) for k in ("ok", "incorrect", "conflict", "missing")}
    errors = {}
    for d in domains:
        for c, n in d["errors"].items():
            errors[c] = errors.get(c, 0) + n
    read = sum(total.values())
    return {
        "member": "crossref/340",
        "ra": "crossref",
        "id": "340",
        "name": name,
        "dois": read + sum(errors.values()),
        "read": read,
        "correctness": total,
        "errors": errors,
        "failed": sum(errors.values()),
        "ok-share": round(total["ok"] / read, 4) if read else None,
        "prefixes": [{"prefix": p, "good-domains": good} for p, good in prefixes],
        "domains": domains,
        "domains-total": len(domains),
    }


GOOD = _member([_domain("a.example", ok=10)])


def test_a_member_with_nothing_to_fix_and_nothing_worse_has_no_alert():
    assert alert(GOOD, GOOD, {}, "v2", "v1") is None


def test_a_domain_whose_pages_lack_the_doi_is_to_fix_with_its_counts():
    now = _member([_domain("a.example", ok=6, missing=4)])
    assert alert(now, None, {}, "v1", None)["fix"] == {
        **EMPTY_FIX,
        "domains-missing-doi": [{"domain": "a.example", "dois": 10, "missing": 4}],
    }


def test_a_domain_whose_pages_state_another_doi_is_to_fix_with_an_example():
    now = _member([_domain("a.example", ok=6, incorrect=3, conflict=1, wrong="10.1/x")])
    assert alert(now, None, {}, "v1", None)["fix"]["domains-wrong-doi"] == [
        {"domain": "a.example", "dois": 10, "incorrect": 3, "conflict": 1, "example": "10.1/x"}
    ]


def test_a_prefix_without_a_good_domain_and_a_failing_domain_are_to_fix():
    now = _member([_domain("a.example", ok=5, errors={"robots": 2})], prefixes=[("10.1", ["a.example"]), ("10.2", [])])
    assert alert(now, None, {}, "v1", None)["fix"] == {
        **EMPTY_FIX,
        "prefixes-without-good-domain": ["10.2"],
        "failing-domains": [{"domain": "a.example", "dois": 7, "errors": {"robots": 2}}],
    }


def test_a_move_in_the_versions_changes_is_worse_for_the_member_that_holds_the_prefix():
    changes = {
        "pairs": [
            {"prefix": "10.1", "domain": "a.example", "appeared": [], "disappeared": [], "unseen-since": "2030-01-01"},
            {"prefix": "10.1", "domain": "b.example", "appeared": ["good", "recognised"], "unseen-since": None},
            {"prefix": "10.9", "domain": "c.example", "appeared": [], "unseen-since": "2030-01-01"},
            {"prefix": "10.9", "domain": "d.example", "appeared": ["recognised"], "unseen-since": None},
        ]
    }
    found = alert(GOOD, GOOD, moves(changes), "v2", "v1")
    assert (found["fix"], found["worse"]) == (
        EMPTY_FIX,
        {
            "new-failures": [],
            "moved": [{"prefix": "10.1", "from": ["a.example"], "to": ["b.example"]}],
            "share-drop": None,
        },
    )


def test_a_domain_that_appears_without_another_going_unseen_is_no_move():
    changes = {"pairs": [{"prefix": "10.1", "domain": "b.example", "appeared": ["recognised"], "unseen-since": None}]}
    assert moves(changes) == {}


def test_a_failure_class_new_on_a_domain_since_the_previous_version_is_worse():
    before = _member([_domain("a.example", ok=10, errors={"timeout": 1})])
    now = _member([_domain("a.example", ok=10, errors={"timeout": 2, "http-5xx": 3})])
    assert alert(now, before, {}, "v2", "v1")["worse"]["new-failures"] == [
        {"domain": "a.example", "class": "http-5xx", "dois": 3}
    ]


def test_without_a_previous_version_nothing_is_worse():
    now = _member([_domain("a.example", ok=1, errors={"timeout": 9})])
    assert alert(now, None, {}, "v1", None)["worse"] == {"new-failures": [], "moved": [], "share-drop": None}


def test_a_fall_in_the_share_of_correct_pages_of_five_points_or_more_is_worse_and_a_smaller_one_is_not():
    before = _member([_domain("a.example", ok=100)])
    fell = _member([_domain("a.example", ok=90, missing=10)])
    dipped = _member([_domain("a.example", ok=96, missing=4)])
    assert (
        alert(fell, before, {}, "v2", "v1")["worse"]["share-drop"],
        alert(dipped, before, {}, "v2", "v1")["worse"],
    ) == (
        {"from": 1.0, "to": 0.9},
        {"new-failures": [], "moved": [], "share-drop": None},
    )


def test_an_alert_names_the_member_its_versions_and_says_it_all_in_one_paragraph():
    now = _member([_domain("a.example", ok=6, missing=2, incorrect=1, wrong="10.1/x", errors={"robots": 1})])
    found = alert(now, GOOD, {"10.1": {"from": ["old.example"], "to": ["a.example"]}}, "v2", "v1")
    assert {k: found[k] for k in ("member", "name", "version", "previous", "summary")} == {
        "member": "crossref/340",
        "name": "Harbour Press",
        "version": "v2",
        "previous": "v1",
        "summary": "Crossref member 340 (Harbour Press): of 10 DOIs sampled, 9 landing pages read, 6 (66.7%) with a "
        "correct DOI meta tag. Pages lack a DOI meta tag on a.example (2 of 10). Meta tags state another DOI, or "
        "several, on a.example (1 of 10, e.g. 10.1/x). 1 landing page could not be read (robots 1), on a.example. "
        "Moved since version v1: 10.1 from old.example to a.example. New failures since version v1: robots on "
        "a.example (1). The share of correct pages fell from 100.0% to 66.7% since version v1.",
    }


def test_a_summary_shows_a_names_control_characters_escaped():
    now = _member([_domain("a.example", missing=1)], name="Evil\x1b[2J Press")
    assert alert(now, None, {}, "v1", None)["summary"].startswith("Crossref member 340 (Evil\\x1b[2J Press): ")


def test_the_mail_merge_csv_has_a_header_and_a_line_per_alert_with_formulas_defused():
    now = _member([_domain("a.example", missing=1)], name='=HYPERLINK("http://x")')
    text = io.StringIO()
    csv.writer(text).writerows(csv_rows([alert(now, None, {}, "v1", None)]))
    rows = list(csv.reader(io.StringIO(text.getvalue())))
    assert (rows[0], rows[1][:3]) == (
        ["member", "name", "subject", "body"],
        ["crossref/340", '\'=HYPERLINK("http://x")', "DOIs on your landing pages: 1 thing to fix (crossref/340)"],
    )
