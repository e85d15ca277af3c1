"""landing.core.matching.results: a Result's JSON is the line `scrapy match` prints, and it holds only known names."""

import pytest

from landing.core.matching.readings import attempt
from landing.core.matching.results import Result

DOI = "10.1371/journal.pone.0160617"


def test_a_results_json_has_exactly_the_output_keys_in_order():
    evidence = (attempt("doi-literal", DOI, "exists", 1),)
    assert list(Result(DOI, DOI, "doi-literal", "literal", evidence=evidence).to_json().items()) == [
        ("input", DOI),
        ("doi", DOI),
        ("method", "doi-literal"),
        ("verification", "literal"),
        ("checks", []),
        ("url", None),
        ("subj_id", None),
        ("evidence", list(evidence)),
    ]


def test_a_result_without_a_match_has_null_doi_method_and_verification():
    assert Result("x").to_json() == {
        "input": "x",
        "doi": None,
        "method": None,
        "verification": None,
        "checks": [],
        "url": None,
        "subj_id": None,
        "evidence": [],
    }


def test_free_texts_result_lists_its_matches_last_each_without_matches_of_its_own():
    piece = Result(DOI, DOI, "doi-literal", "literal")
    out = Result("see " + DOI, DOI, "doi-literal", "literal", matches=(piece,)).to_json()
    assert (list(out)[-1], out["matches"]) == ("matches", [piece.to_json()])
    assert "matches" not in out["matches"][0]


def test_a_result_rejects_an_unknown_method():
    with pytest.raises(ValueError, match="unknown method 'url-text'"):
        Result("x", DOI, "url-text", "literal")


def test_a_result_rejects_an_unknown_verification():
    with pytest.raises(ValueError, match="unknown verification 'unrecognised-domain'"):
        Result("x", DOI, "landing-page-url", "unrecognised-domain")


def test_a_result_rejects_a_former_verification_that_is_now_a_check():
    with pytest.raises(ValueError, match="unknown verification 'stated-in-url'"):
        Result("x", DOI, "landing-page-meta-tag", "stated-in-url")


def test_a_result_rejects_an_unknown_check():
    with pytest.raises(ValueError, match="unknown check 'looks-right'"):
        Result("x", DOI, "landing-page-meta-tag", "recognised-domain", ("stated-in-url", "looks-right"))
