"""landing.core.pages.analysis: what a page's HTML says about its own DOI in its meta tags, and what any body gives."""

import pytest

from landing.core.pages.analysis import DOI_META_NAMES
from landing.core.pages.page import Page
from landing_dev.sandbox.analysis_truth import DOI_META_NAMES as SANDBOX_META_NAMES
from tests.core.pages.analysing import DOI, NOTHING, analysed, meta

# Meta tags


def test_the_sandbox_meta_names_are_all_doi_meta_names():
    assert SANDBOX_META_NAMES <= DOI_META_NAMES


def test_citation_reference_is_not_a_doi_meta_name():
    assert "citation_reference" not in DOI_META_NAMES


@pytest.mark.parametrize(
    "name",
    [
        "citation_doi",
        "DC.Identifier",
        "dc.identifier",
        "DC.Identifier.DOI",
        "prism.doi",
        "prism:doi",
        "dc.Source",
        "dc:identifier",
        "publication_doi",
        "DOI",
        "bepress_citation_doi",
        "wkhealth_doi",
        "dcterms.identifier",
        "eprints.id_number",
    ],
)
def test_every_doi_meta_name_is_read_whatever_its_case(name):
    result = analysed(meta(name, DOI))
    assert (result["analysis/meta-tags"], result["analysis/meta-tag-correctness"]) == ([[name, DOI]], "ok")


def test_property_is_read_when_there_is_no_name():
    assert analysed(meta("citation_doi", DOI, "property"))["analysis/meta-tags"] == [["citation_doi", DOI]]


def test_id_is_read_when_there_is_neither_name_nor_property():
    assert analysed(meta("DOI", DOI, "id"))["analysis/meta-tags"] == [["DOI", DOI]]


def test_name_wins_over_property():
    tag = f'<meta name="description" property="citation_doi" content="{DOI}">'
    assert analysed(tag)["analysis/meta-tags"] == []


def test_meta_tags_are_listed_in_page_order_with_content_as_written():
    head = (
        meta("citation_doi", "10.5555/ABCD")
        + meta("viewport", "width=device-width")
        + meta("DC.identifier", "doi:" + DOI)
    )
    assert analysed(head)["analysis/meta-tags"] == [["citation_doi", "10.5555/ABCD"], ["DC.identifier", "doi:" + DOI]]


def test_a_doi_meta_tag_without_content_is_listed_with_empty_content():
    assert analysed('<meta name="citation_doi">')["analysis/meta-tags"] == [["citation_doi", ""]]


def test_citation_reference_holding_another_works_doi_is_not_a_doi_meta_tag():
    head = meta("citation_doi", DOI) + meta("citation_reference", "citation_title=X; citation_doi=10.1000/other")
    assert (analysed(head)["analysis/meta-tags"], analysed(head)["analysis/meta-tag-correctness"]) == (
        [["citation_doi", DOI]],
        "ok",
    )


@pytest.mark.parametrize(
    "content, expression",
    [
        (DOI, "non-url"),
        ("doi:" + DOI, "doi-scheme"),
        ("DOI: " + DOI, "non-url"),
        ("info:doi/" + DOI, "non-url"),
        ("https://doi.org/" + DOI, "https-doi"),
        ("https://dx.doi.org/" + DOI, "https-dx-doi"),
        ("http://doi.org/" + DOI, "http-doi"),
        ("http://dx.doi.org/" + DOI, "http-dx-doi"),
        ("10.5555%2F1234", "non-url"),
        ("https://doi.org/10.5555%2F1234", "https-doi"),
    ],
)
def test_each_value_form_is_correct_and_gives_its_expression(content, expression):
    result = analysed(meta("citation_doi", content))
    assert (result["analysis/meta-tag-correctness"], result["analysis/doi-in-meta-tags"]) == ("ok", expression)


def test_doi_in_meta_tags_is_the_best_expression_among_tags_of_this_doi():
    head = (
        meta("citation_doi", DOI) + meta("dc.identifier", "doi:" + DOI) + meta("dc.source", "http://dx.doi.org/" + DOI)
    )
    assert analysed(head)["analysis/doi-in-meta-tags"] == "http-dx-doi"


def test_meta_values_compare_lower_case():
    assert (
        analysed(meta("citation_doi", "10.1103/PhysRevX.12.041027"), doi="10.1103/physrevx.12.041027")[
            "analysis/meta-tag-correctness"
        ]
        == "ok"
    )


@pytest.mark.parametrize("other", ["PMID:25867123", "0028-0836", "https://example.org/article/1234", ""])
def test_values_that_are_not_dois_are_ignored(other):
    result = analysed(meta("dc.identifier", other) + meta("citation_doi", DOI))
    assert result["analysis/meta-tag-correctness"] == "ok"


def test_only_values_that_are_not_dois_is_missing():
    assert (
        analysed(meta("dc.identifier", "PMID:25867123") + meta("dc.identifier", "ISSN 0028-0836"))[
            "analysis/meta-tag-correctness"
        ]
        == "missing"
    )


def test_two_distinct_dois_are_a_conflict():
    result = analysed(meta("citation_doi", DOI) + meta("dc.identifier", "10.5555/12345"))
    assert (result["analysis/meta-tag-correctness"], result["analysis/doi-in-meta-tags"]) == ("conflict", "non-url")


def test_one_distinct_doi_in_several_forms_is_ok():
    assert (
        analysed(meta("citation_doi", DOI) + meta("dc.identifier", "https://doi.org/10.5555/1234"))[
            "analysis/meta-tag-correctness"
        ]
        == "ok"
    )


def test_a_single_doi_that_is_not_this_one_is_incorrect():
    result = analysed(meta("citation_doi", "10.5555/987654321") + meta("DC.identifier", "doi:10.5555/987654321"))
    assert (result["analysis/meta-tag-correctness"], result["analysis/doi-in-meta-tags"]) == ("incorrect", None)


def test_no_doi_meta_tag_is_missing():
    assert analysed(meta("description", "About " + DOI))["analysis/meta-tag-correctness"] == "missing"


# Bodies that are not clean HTML


def test_a_windows_1252_body_declared_utf_8_still_gives_its_doi():
    body = (
        f'<html><head><meta charset="utf-8"><title>Caf\u00e9 \u00e0 Z\u00fcrich</title>{meta("citation_doi", DOI)}'
        f"</head><body><p>Caf\u00e9 \u2014 DOI: {DOI}</p></body></html>"
    ).encode("windows-1252")
    result = Page(body, "text/html; charset=utf-8").analysis(DOI)
    assert (result["analysis/meta-tag-correctness"], result["analysis/doi-in-text"]) == ("ok", "non-url")


def test_the_content_type_charset_decodes_the_body():
    body = f"<html><body><p>\u00c9tude, doi:{DOI}</p></body></html>".encode("utf-16")
    assert Page(body, "text/html; charset=utf-16").analysis(DOI)["analysis/doi-in-text"] == "doi-scheme"


def test_an_xml_declaration_with_an_encoding_is_parsed():
    body = b'<?xml version="1.0" encoding="iso-8859-1"?><html><body><p>doi:10.5555/1234</p></body></html>'
    assert Page(body).analysis(DOI)["analysis/doi-in-text"] == "doi-scheme"


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"   \n",
        b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n",
        bytes(range(256)),
        b"\x00\x01<p>\x02</p>",
        b"<p>a&#1;b</p><p>c</p>",
    ],
)
def test_empty_or_non_html_bodies_give_missing_and_nothing_found(body):
    assert Page(body).analysis(DOI) == NOTHING


def test_the_result_has_exactly_the_analysis_keys():
    assert set(analysed()) == set(NOTHING)


def test_a_page_of_20000_doi_meta_tags_is_read_to_its_first_hundred():
    metas = "".join(f'<meta name="citation_doi" content="10.1234/other{i}">' for i in range(20_000))
    body = f'<html><head><meta name="citation_doi" content="10.1234/own">{metas}</head><body>x</body></html>'
    found = Page(body.encode()).analysis("10.1234/own")
    assert (
        len(found["analysis/meta-tags"]),
        found["analysis/meta-tags"][0][1],
        found["analysis/meta-tag-correctness"],
    ) == (100, "10.1234/own", "conflict")
