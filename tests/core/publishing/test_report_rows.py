from landing.core.publishing.report_rows import (
    CORRECTNESS_COLOURS,
    FAILURE_COLOURS,
    FAILURE_MEANINGS,
    example_row,
    member_prefix_rows,
    member_row,
)
from landing.core.web.failures import CLASSES

MEMBER = {
    "member": "crossref/1",
    "name": "One Press",
    "dois": 10,
    "read": 8,
    "correctness": {"ok": 6, "incorrect": 1, "conflict": 0, "missing": 1},
    "errors": {"robots": 2},
    "failed": 2,
    "prefixes": [
        {
            "prefix": "10.1",
            "dois": 10,
            "read": 8,
            "correctness": {"ok": 6, "incorrect": 1, "conflict": 0, "missing": 1},
            "errors": {"robots": 2},
            "failed": 2,
            "good-domains": ["a.example"],
            "bad-domains": ["b.example"],
        }
    ],
}


def test_a_members_row_has_its_counts_and_both_shares():
    assert member_row(MEMBER) == {
        "member": "crossref/1",
        "name": "One Press",
        "dois": 10,
        "read": 8,
        "ok": 6,
        "incorrect": 1,
        "conflict": 0,
        "missing": 1,
        "failed": 2,
        "ok-of-dois": 0.6,
        "ok-share": 0.75,
        "prefixes": 1,
    }


def test_a_members_prefix_row_names_its_failures_and_domains():
    [row] = member_prefix_rows(MEMBER)
    assert (row["errors"], row["good-domains"], row["bad-domains"]) == ("robots 2", ["a.example"], ["b.example"])


def test_an_example_says_how_its_visit_ended_and_the_meta_tags_found():
    example = {
        "doi": "10.1/x",
        "url": "https://a.example/x",
        "domain": "a.example",
        "error": None,
        "correctness": "incorrect",
        "meta-tags": [["citation_doi", "10.1/y"]],
        "doi-in-meta-tags": None,
    }
    assert example_row(example) == {
        "doi": "10.1/x",
        "url": "https://a.example/x",
        "domain": "a.example",
        "ended": "incorrect",
        "doi-in-meta-tags": "",
        "meta-tags": "citation_doi=10.1/y",
    }


def test_every_failure_class_has_a_meaning_and_a_colour_no_correctness_uses():
    assert set(FAILURE_MEANINGS) == set(FAILURE_COLOURS) == set(CLASSES)
    assert not set(FAILURE_COLOURS.values()) & set(CORRECTNESS_COLOURS.values())
    assert len(set(FAILURE_COLOURS.values())) == len(CLASSES)
