"""landing.core.pids.doi: normalising DOIs, their prefixes, and the expressions a page writes them in."""

import time

import pytest

from landing.core.matching import readings
from landing.core.pids.doi import (
    EXPRESSIONS,
    RESOLVER_HOSTS,
    best_expression,
    express,
    find_dois,
    find_expressions,
    normalise,
    prefix,
    split_expression,
    unwrap,
    well_formed,
)

DOI = "10.1371/journal.pone.0160617"


@pytest.mark.parametrize(
    "written",
    [
        DOI,
        "10.1371/JOURNAL.PONE.0160617",
        "  10.1371/journal.pone.0160617\n",
        "https://doi.org/10.1371/journal.pone.0160617",
        "HTTPS://DOI.ORG/10.1371/Journal.Pone.0160617",
        "https://dx.doi.org/10.1371/journal.pone.0160617",
        "http://doi.org/10.1371/journal.pone.0160617",
        "http://dx.doi.org/10.1371/journal.pone.0160617",
        "https://www.doi.org/10.1371/journal.pone.0160617",
        "doi:10.1371/journal.pone.0160617",
        "DOI:10.1371/journal.pone.0160617",
        "doi: 10.1371/journal.pone.0160617",
        "10.1371%2Fjournal.pone.0160617",
        "https://doi.org/10.1371%2Fjournal.pone.0160617",
    ],
)
def test_normalise_gives_the_bare_lower_case_doi_whatever_the_form(written):
    assert normalise(written) == DOI


def test_normalise_keeps_a_url_of_another_host_as_it_is_lower_cased():
    assert normalise("https://example.org/10.1371/X") == "https://example.org/10.1371/x"


def test_normalise_decodes_percent_escapes_in_the_suffix():
    assert normalise("10.1002/%28SICI%291097-4636") == "10.1002/(sici)1097-4636"


@pytest.mark.parametrize("written", [DOI, "https://doi.org/10.1371/JOURNAL.pone.1", "doi:10.1371/x"])
def test_prefix_is_the_registrant_part_before_the_first_slash(written):
    assert prefix(written) == "10.1371"


def test_prefix_of_a_doi_whose_suffix_has_slashes_is_still_the_registrant():
    assert prefix("10.32711/dvn/BWDY34196") == "10.32711"


@pytest.mark.parametrize(
    "expression, written",
    [
        ("https-doi", "https://doi.org/" + DOI),
        ("https-dx-doi", "https://dx.doi.org/" + DOI),
        ("http-doi", "http://doi.org/" + DOI),
        ("http-dx-doi", "http://dx.doi.org/" + DOI),
        ("doi-scheme", "doi:" + DOI),
        ("non-url", DOI),
    ],
)
def test_express_writes_the_doi_the_way_the_expression_names(expression, written):
    assert express(DOI, expression) == written


def test_express_encoded_percent_encodes_the_slash_and_the_suffix():
    assert express("10.1002/(SICI)1097/x", "https-doi", encoded=True) == "https://doi.org/10.1002%2F%28SICI%291097%2Fx"


@pytest.mark.parametrize("expression", EXPRESSIONS)
@pytest.mark.parametrize("encoded", [False, True])
def test_normalise_undoes_express(expression, encoded):
    doi = "10.1002/(SICI)1097-4636(199706)35:4<481::AID-JBM8>3.0.CO;2-D"
    assert normalise(express(doi, expression, encoded=encoded)) == doi.lower()


def test_expressions_are_ranked_as_design_md_ranks_them():
    assert EXPRESSIONS == ("https-doi", "https-dx-doi", "http-doi", "http-dx-doi", "doi-scheme", "non-url")


@pytest.mark.parametrize(
    "found, best",
    [
        (["non-url", "doi-scheme"], "doi-scheme"),
        (["http-dx-doi", "https-dx-doi", "non-url"], "https-dx-doi"),
        (["non-url", "https-doi", "http-doi"], "https-doi"),
        (iter(["http-doi", "http-dx-doi"]), "http-doi"),
        (["non-url"], "non-url"),
    ],
)
def test_best_expression_is_the_highest_ranked_one_found(found, best):
    assert best_expression(found) == best


def test_best_expression_of_nothing_is_none():
    assert best_expression([]) is None


def test_best_expression_ignores_names_that_are_not_expressions():
    assert best_expression(["something-else"]) is None


@pytest.mark.parametrize(
    "value, expression",
    [
        ("10.5555/1234", "non-url"),
        ("https://doi.org/10.5555/1234", "https-doi"),
        ("https://dx.doi.org/10.5555/1234", "https-dx-doi"),
        ("http://doi.org/10.5555/1234", "http-doi"),
        ("http://dx.doi.org/10.5555/1234", "http-dx-doi"),
        ("doi:10.5555/1234", "doi-scheme"),
        ("DOI:10.5555/1234", "doi-scheme"),
        ("DOI: 10.5555/1234", "non-url"),
        ("doi 10.5555/1234", "non-url"),
        ("info:doi/10.5555/1234", "non-url"),
        ("10.5555%2F1234", "non-url"),
        ("https://doi.org/10.5555%2F1234", "https-doi"),
        ("HTTPS://DOI.ORG/10.5555/1234", "https-doi"),
        ("https://www.doi.org/10.5555/1234", "https-doi"),
        ("http://WWW.doi.org/10.5555/1234", "http-doi"),
        ("  10.5555/1234\n", "non-url"),
    ],
)
def test_split_expression_names_the_form_and_gives_the_bare_doi(value, expression):
    assert split_expression(value) == (expression, "10.5555/1234")


def test_split_expression_lower_cases_the_bare_doi():
    assert split_expression("doi:10.1103/PhysRevLett.122.145901") == ("doi-scheme", "10.1103/physrevlett.122.145901")


@pytest.mark.parametrize(
    "value",
    [
        "",
        "PMID:123456",
        "0028-0836",
        "https://example.org/article/10.5555/1234",
        "10.5555/1234 and more",
        "10.55/1234",
        "10.5555/",
        "see 10.5555/1234",
    ],
)
def test_split_expression_of_a_value_that_is_not_one_doi_is_none(value):
    assert split_expression(value) is None


@pytest.mark.parametrize(
    "text",
    [
        "doi:10.5555/1234.",
        "(10.5555/1234)",
        "see 10.5555/1234, then",
        "10.5555/1234;",
        '"10.5555/1234."',
        "10.5555/1234).",
        "[10.5555/1234]",
        "10.5555/1234!",
    ],
)
def test_find_dois_trims_sentence_punctuation_and_unbalanced_brackets(text):
    assert find_dois(text) == ["10.5555/1234"]


def test_find_dois_trims_an_angle_bracket_the_doi_did_not_open():
    assert find_dois("Cite as <10.5555/1234>.") == ["10.5555/1234"]


@pytest.mark.parametrize(
    "written, doi",
    [
        ("(doi:10.5555/1234).", "doi:10.5555/1234"),
        ("\u00ab 10.5555/1234 \u00bb", "10.5555/1234"),
        ("<https://doi.org/10.5555/1234>", "https://doi.org/10.5555/1234"),
        ("10.1234/abc(1))", "10.1234/abc(1)"),
        (SICI := "10.1002/(SICI)1097-4636(199706)35:4<447::AID-JBM5>3.0.CO;2-G", SICI),
    ],
)
def test_unwrap_drops_what_wraps_a_doi_and_keeps_brackets_it_opened(written, doi):
    assert unwrap(written) == doi


def test_every_resolver_host_is_known():
    assert RESOLVER_HOSTS == {"doi.org", "dx.doi.org", "www.doi.org"}


@pytest.mark.parametrize(
    "text, found",
    [
        ("10.5555/12345", "10.5555/12345"),
        ("10.5555/1234.supp", "10.5555/1234.supp"),
        ("10.5555/1234-s001", "10.5555/1234-s001"),
    ],
)
def test_find_dois_keeps_a_longer_doi_whole(text, found):
    assert find_dois(text) == [found]


def test_find_dois_does_not_start_inside_a_number():
    assert find_dois("110.5555/1234") == []


def test_find_dois_keeps_balanced_parentheses_of_a_sici_doi():
    sici = "10.1002/(SICI)1097-4636(199706)35:4<447::AID-JBM5>3.0.CO;2-G"
    assert find_dois(f"({sici}).") == [sici.lower()]


def test_find_dois_gives_each_doi_once_normalised_in_first_seen_order():
    text = "doi:10.5555/B and https://doi.org/10.5555/a; again 10.5555/b"
    assert find_dois(text) == ["10.5555/b", "10.5555/a"]


def test_find_dois_decodes_percent_escapes():
    assert find_dois("https://doi.org/10.1021%2Facs.nl.5b00087") == ["10.1021/acs.nl.5b00087"]


@pytest.mark.parametrize(
    "text, expressions",
    [
        ("https://doi.org/10.5555/1234", ["https-doi"]),
        ("https://dx.doi.org/10.5555/1234", ["https-dx-doi"]),
        ("http://doi.org/10.5555/1234", ["http-doi"]),
        ("http://dx.doi.org/10.5555/1234", ["http-dx-doi"]),
        ("doi:10.5555/1234", ["doi-scheme"]),
        ("DOI:10.5555/1234", ["doi-scheme"]),
        ("DOI: 10.5555/1234", ["non-url"]),
        ("see 10.5555/1234 and doi:10.5555/1234.", ["non-url", "doi-scheme"]),
        ("https://doi.org/10.5555%2F1234", ["https-doi"]),
        ("HTTPS://DOI.ORG/10.5555/1234", ["https-doi"]),
        ("https://www.doi.org/10.5555/1234", ["https-doi"]),
    ],
)
def test_find_expressions_names_each_occurrence_by_what_precedes_it(text, expressions):
    assert find_expressions(text, "10.5555/1234") == expressions


@pytest.mark.parametrize(
    "text",
    ["10.5555/12345", "10.5555/1234.supp", "10.5555/1234-s001", "110.5555/1234", "https://doi.org/10.5555/1234/5"],
)
def test_find_expressions_does_not_find_a_doi_inside_another(text):
    assert find_expressions(text, "10.5555/1234") == []


@pytest.mark.parametrize(
    "text", ["doi:10.5555/1234.", "(10.5555/1234)", "10.5555/1234,", "10.5555/1234", '"10.5555/1234."']
)
def test_find_expressions_finds_a_doi_ending_a_sentence(text):
    assert len(find_expressions(text, "10.5555/1234")) == 1


def test_find_expressions_is_case_insensitive():
    assert find_expressions("doi:10.1103/PhysRevX.12.041027", "10.1103/physrevx.12.041027") == ["doi-scheme"]


@pytest.mark.parametrize("find", [find_dois, readings.literal], ids=["find_dois", "literal"])
def test_a_doi_followed_by_80000_closing_brackets_is_trimmed_in_one_pass(find):
    # Issue 16's input: trimming one bracket at a time and counting again took seconds (bench/README.md "Figures
    # behind choices in the code"). One pass takes a few hundredths; the bound leaves a slow machine 40 times that.
    started = time.perf_counter()
    found = find("10.1234/abc" + ")" * 80_000)
    assert (found, time.perf_counter() - started < 1.0) == (
        ["10.1234/abc"] if find is find_dois else ("doi", "10.1234/abc"),
        True,
    )


def test_unwrap_drops_only_the_closing_brackets_the_doi_did_not_open():
    assert unwrap("10.1234/a(b)c))).") == "10.1234/a(b)c"


@pytest.mark.parametrize(
    "doi, expected",
    [
        ("10.1234/abc", True),
        ("10.1234/a\x00b", False),
        ("10.1234/a\nb", False),
        ("10.1234/a\x7fb", False),
        ("not a doi", False),
        ("", False),
        ("10.1234/", False),
        ("10.1/a", True),
        ("10.1000.10/x", True),
        ("10./abc", False),
    ],
)
def test_well_formed_refuses_control_characters_spaces_and_what_is_no_doi(doi, expected):
    assert well_formed(doi) is expected
