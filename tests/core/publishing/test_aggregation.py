"""landing.core.publishing.aggregation: which pairs an analysis makes good, bad, recognised and confirmed, its visit ends and
its prefix's registration agency."""

import json

import pytest

from landing.core.publishing.aggregation import Aggregate
from landing.core.publishing.artifact_format import DECISIONS_JSON, render
from landing.core.publishing.artifact_sets import Artifacts, merge
from tests.core.publishing.aggregating import aggregate, doc


def test_doi_only_in_a_meta_tag_makes_the_pair_good_and_recognised():
    a = aggregate([doc(meta="non-url", correctness="ok")])
    assert a.good == {("10.1371", "journals.plos.org", "crossref")}
    assert a.bad == frozenset()
    assert a.recognised == {("journals.plos.org", "10.1371")}


def test_doi_only_in_a_link_makes_the_pair_good():
    a = aggregate([doc(links="https-doi")])
    assert a.good == {("10.1371", "journals.plos.org", "crossref")}
    assert a.bad == frozenset()


def test_doi_only_in_the_text_makes_the_pair_good():
    a = aggregate([doc(text="doi-scheme")])
    assert a.good == {("10.1371", "journals.plos.org", "crossref")}


def test_doi_nowhere_on_the_page_makes_the_pair_bad_but_still_recognised():
    a = aggregate([doc()])
    assert a.good == frozenset()
    assert a.bad == {("10.1371", "journals.plos.org", "crossref")}
    assert a.recognised == {("journals.plos.org", "10.1371")}
    assert a.confirmed == frozenset()


@pytest.mark.parametrize("error", ["http-4xx", "challenge", "cookie-wall", "robots", "dns", "timeout"])
def test_a_visit_that_ended_on_a_domain_in_failure_still_makes_the_pair_bad_and_recognised(error):
    a = aggregate([doc(doi="10.5555/x", domain="blocked.example", error=error)])
    assert (a.good, a.confirmed) == (frozenset(), frozenset())
    assert a.bad == {("10.5555", "blocked.example", "crossref")}
    assert a.recognised == {("blocked.example", "10.5555")}
    assert a.ends == {("blocked.example", "10.5555", error, 1)}


def test_a_visit_that_never_left_the_resolver_or_was_refused_its_address_adds_no_domain():
    on_resolver = {**doc(doi="10.5555/x", domain="doi.org", error="http-4xx"), "snapshot/resource-url": None}
    refused = doc(doi="10.5555/y", domain="169.254.169.254", error="refused-address")
    a = aggregate([on_resolver, refused])
    assert a.bad == a.recognised == a.ends == frozenset()
    assert a.prefixes == {("10.5555", "crossref")}


def test_visit_ends_count_the_dois_of_a_prefix_per_domain_and_class():
    a = aggregate(
        [
            doc(meta="non-url", correctness="ok"),
            doc(doi="10.1371/b"),
            doc(doi="10.1371/c", error="challenge"),
            doc(doi="10.1371/d", domain="mirror.example"),
        ]
    )
    assert a.ends == {
        ("journals.plos.org", "10.1371", "page", 2),
        ("journals.plos.org", "10.1371", "challenge", 1),
        ("mirror.example", "10.1371", "page", 1),
    }
    cell = json.loads(render(a)[DECISIONS_JSON])["domains-prefixes"]["journals.plos.org"]["10.1371"]
    assert cell == {"domain-recognised": True, "domain-confirmed": True, "visits": {"challenge": 1, "page": 2}}


def test_doc_without_a_final_domain_adds_no_domain():
    a = aggregate([doc(domain=None, correctness=None)])
    assert a.recognised == frozenset()
    assert a.prefixes == {("10.1371", "crossref")}


def test_meta_tag_ok_confirms_the_pair():
    a = aggregate([doc(meta="https-doi", correctness="ok")])
    assert a.confirmed == {("journals.plos.org", "10.1371")}


def test_incorrect_and_conflicting_meta_tags_do_not_confirm():
    a = aggregate(
        [doc(meta="non-url", correctness="incorrect"), doc(doi="10.1371/b", meta="non-url", correctness="conflict")]
    )
    assert a.confirmed == frozenset()
    assert a.recognised == {("journals.plos.org", "10.1371")}


def test_datacite_ra_is_kept_on_prefixes_and_lines():
    a = aggregate([doc(doi="10.5281/zenodo.1", domain="zenodo.org", links="https-doi", ra="datacite")])
    assert a.prefixes == {("10.5281", "datacite")}
    assert a.good == {("10.5281", "zenodo.org", "datacite")}


def test_one_good_and_one_bad_doi_of_a_prefix_make_the_pair_both_good_and_bad():
    a = aggregate([doc(meta="non-url"), doc(doi="10.1371/b")])
    assert a.good == {("10.1371", "journals.plos.org", "crossref")}
    assert a.bad == {("10.1371", "journals.plos.org", "crossref")}


def test_a_prefix_keeps_its_first_non_empty_ra_from_analyses_listings_and_merged_versions_alike():
    accumulator = Aggregate()
    accumulator.add(doc(ra=""))
    accumulator.listed("10.1371", "crossref")
    accumulator.add(doc(ra="datacite"))
    accumulator.listed("10.1371", "datacite")
    merged = merge(Artifacts(prefixes=frozenset({("10.1", "")})), Artifacts(prefixes=frozenset({("10.1", "datacite")})))
    assert (
        accumulator.ras,
        merged.prefixes,
        merge(merged, Artifacts(prefixes=frozenset({("10.1", "x")}))).prefixes,
    ) == (
        {"10.1371": "crossref"},
        {("10.1", "datacite")},
        {("10.1", "datacite")},
    )
