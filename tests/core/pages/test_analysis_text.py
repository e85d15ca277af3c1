"""landing.core.pages.analysis: the DOI in a page's hyperlinks and in its visible text."""

import pytest

from landing.core.pages.page import Page
from tests.core.pages.analysing import DOI, analysed

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
