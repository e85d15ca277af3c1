"""landing.core.analysis: what a page's HTML says about its own DOI, on snippets and against the sandbox truth."""

import json

import pytest

from landing.core.analysis import DOI_META_NAMES
from landing.core.page import Page
from landing_dev.sandbox.analysis_truth import DOI_META_NAMES as SANDBOX_META_NAMES
from landing_dev.sandbox.http import Request
from landing_dev.sandbox.web import State, respond
from landing_dev.sandbox.world import World

DOI = "10.5555/1234"
NOTHING = {
    "analysis/meta-tags": [],
    "analysis/meta-tag-correctness": "missing",
    "analysis/doi-in-text": None,
    "analysis/doi-in-hyperlinks": None,
    "analysis/doi-in-meta-tags": None,
}


def page(head="", body="") -> bytes:
    return f"<!DOCTYPE html><html><head><title>A page</title>{head}</head><body>{body}</body></html>".encode()


def meta(name, content, attribute="name") -> str:
    return f'<meta {attribute}="{name}" content="{content}">'


def analysed(head="", body="", doi=DOI) -> dict:
    return Page(page(head, body)).analysis(doi)


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


# Hyperlinks


@pytest.mark.parametrize(
    "href, expression",
    [
        ("https://doi.org/" + DOI, "https-doi"),
        ("https://doi.org/10.5555%2F1234", "https-doi"),
        ("http://dx.doi.org/" + DOI, "http-dx-doi"),
        ("doi:" + DOI, "doi-scheme"),
    ],
)
def test_a_link_to_this_doi_gives_its_expression(href, expression):
    assert analysed(body=f'<a href="{href}">here</a>')["analysis/doi-in-hyperlinks"] == expression


def test_doi_in_hyperlinks_is_the_best_expression_among_links():
    body = f'<a href="http://dx.doi.org/{DOI}">a</a> <a href="https://doi.org/{DOI}">b</a>'
    assert analysed(body=body)["analysis/doi-in-hyperlinks"] == "https-doi"


@pytest.mark.parametrize(
    "href",
    [
        "https://doi.org/10.5555/12345",
        "https://doi.org/10.5555/1234.supp",
        "https://example.org/article/10.5555/1234",
        "https://doi.org/10.5555/1234?x=1",
    ],
)
def test_a_link_that_is_not_exactly_this_doi_does_not_count(href):
    assert analysed(body=f'<a href="{href}">here</a>')["analysis/doi-in-hyperlinks"] is None


def test_a_link_element_in_the_head_is_not_a_hyperlink():
    assert analysed(f'<link rel="meta" href="https://doi.org/{DOI}">')["analysis/doi-in-hyperlinks"] is None


# Text


@pytest.mark.parametrize(
    "text, expression",
    [
        ("https://doi.org/" + DOI, "https-doi"),
        ("https://dx.doi.org/" + DOI, "https-dx-doi"),
        ("http://doi.org/" + DOI, "http-doi"),
        ("http://dx.doi.org/" + DOI, "http-dx-doi"),
        ("doi:" + DOI, "doi-scheme"),
        ("DOI: " + DOI, "non-url"),
        (DOI, "non-url"),
        ("https://doi.org/10.5555%2F1234", "https-doi"),
    ],
)
def test_the_text_expression_comes_from_what_precedes_the_doi(text, expression):
    assert analysed(body=f"<p>{text}</p>")["analysis/doi-in-text"] == expression


@pytest.mark.parametrize(
    "text", ["Cited: 10.5555/12345.", "Supplement 10.5555/1234.supp", "See 10.5555/1234-s001", "Number 110.5555/1234"]
)
def test_a_doi_inside_a_longer_one_is_not_found_in_text(text):
    assert analysed(body=f"<p>{text}</p>")["analysis/doi-in-text"] is None


@pytest.mark.parametrize(
    "text",
    [
        "Cite as doi:10.5555/1234.",
        "A work (10.5555/1234) on x",
        "Works 10.5555/1234, 10.1/2",
        "Said \u201c10.5555/1234.\u201d",
    ],
)
def test_a_doi_ending_a_sentence_is_found_in_text(text):
    assert analysed(body=f"<p>{text}</p>")["analysis/doi-in-text"] is not None


def test_doi_in_text_is_the_best_expression_among_occurrences():
    assert analysed(body=f"<p>DOI: {DOI}</p><p>https://dx.doi.org/{DOI}</p>")["analysis/doi-in-text"] == "https-dx-doi"


def test_link_labels_are_text():
    assert analysed(body=f'<a href="/x">doi:{DOI}</a>')["analysis/doi-in-text"] == "doi-scheme"


def test_a_link_label_ends_a_doi_even_when_the_next_link_follows_without_space():
    body = f'<a href="/a"><span>https://doi.org/{DOI}</span></a><a href="/b">Rights and content</a>'
    assert analysed(body=body)["analysis/doi-in-text"] == "https-doi"


def test_a_scheme_just_before_a_link_label_still_counts():
    assert analysed(body=f'<p>doi:<a href="/x">{DOI}</a></p>')["analysis/doi-in-text"] == "doi-scheme"


def test_block_elements_end_a_doi():
    assert analysed(body=f"<table><tr><td>{DOI}</td><td>Next</td></tr></table>")["analysis/doi-in-text"] == "non-url"


@pytest.mark.parametrize(
    "hidden",
    [
        f"<script>var doi = '{DOI}';</script>",
        f"<style>/* {DOI} */</style>",
        f"<noscript>{DOI}</noscript>",
        f"<template>{DOI}</template>",
    ],
)
def test_script_style_noscript_and_template_text_is_not_text(hidden):
    assert analysed(body=hidden)["analysis/doi-in-text"] is None


def test_head_text_is_not_text():
    assert (
        Page(f"<html><head><title>{DOI}</title></head><body></body></html>".encode()).analysis(DOI)[
            "analysis/doi-in-text"
        ]
        is None
    )


def test_comments_are_not_text():
    assert analysed(body=f"<!-- {DOI} -->")["analysis/doi-in-text"] is None


def test_entities_are_decoded_in_text():
    assert analysed(body="<p>doi&#58;10.5555&#x2F;1234</p>")["analysis/doi-in-text"] == "doi-scheme"


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


# The sandbox's truth: analyse() must reach, from the HTML, what the truth says from the page specs.

TRUTH_FIELDS = {
    "meta_tag_correctness": "analysis/meta-tag-correctness",
    "doi_in_text": "analysis/doi-in-text",
    "doi_in_hyperlinks": "analysis/doi-in-hyperlinks",
    "doi_in_meta_tags": "analysis/doi-in-meta-tags",
    "meta_tags": "analysis/meta-tags",
}
RETRIED = (429, 500, 502, 503, 504)  # fail_first routes answer these before the page


def landing_pages(directory):
    """(truth record, body, content type) of every DOI whose landing page a plain HTTP client reaches."""
    world = World(directory)
    try:
        with open(directory / "truth.jsonl", encoding="utf-8") as lines:
            for record in map(json.loads, lines):
                if record["final_url"] is None or record["meta_tag_correctness"] is None:
                    continue
                state = State()
                reply = respond(world, Request("GET", record["final_url"]), state)
                for _ in range(3):
                    if reply.status not in RETRIED:
                        break
                    reply = respond(world, Request("GET", record["final_url"]), state)
                yield record, reply.body, reply.header("Content-Type")
    finally:
        world.close()


def disagreements(directory) -> tuple[list, set]:
    wrong, scenarios = [], set()
    for record, body, content_type in landing_pages(directory):
        scenarios.add(record["scenario"])
        result = Page(body, content_type).analysis(record["doi"])
        got = {field: result[key] for field, key in TRUTH_FIELDS.items()}
        want = {field: record[field] for field in TRUTH_FIELDS}
        if got != want:
            wrong.append((record["scenario"], record["doi"], {f: (got[f], want[f]) for f in got if got[f] != want[f]}))
    return wrong, scenarios


PAGE_SCENARIOS = {
    "direct",
    "bad-charset",
    "meta-conflict",
    "meta-missing",
    "link-only",
    "text-only",
    "reference-trap",
    "placeholder-doi",
    "tracking-params",
    "multi-hop",
    "meta-refresh",
    "unauthorized-page",
}


def test_analyse_agrees_with_the_truth_on_every_scenario_landing_page(every_scenario_world):
    wrong, scenarios = disagreements(every_scenario_world)
    assert (wrong, PAGE_SCENARIOS - scenarios) == ([], set())


def test_analyse_agrees_with_the_truth_on_a_mixed_world(mixed_world):
    wrong, scenarios = disagreements(mixed_world)
    assert (wrong, len(scenarios) > 5) == ([], True)


def test_a_page_of_20000_doi_meta_tags_is_read_to_its_first_hundred():
    metas = "".join(f'<meta name="citation_doi" content="10.1234/other{i}">' for i in range(20_000))
    body = f'<html><head><meta name="citation_doi" content="10.1234/own">{metas}</head><body>x</body></html>'
    found = Page(body.encode()).analysis("10.1234/own")
    assert (
        len(found["analysis/meta-tags"]),
        found["analysis/meta-tags"][0][1],
        found["analysis/meta-tag-correctness"],
    ) == (100, "10.1234/own", "conflict")
