"""landing.core.matching.cascade: every method and verification path of the matching cascade, answered from a table, no network."""

import pytest

from landing.core.matching.questions import Alias, Exists, Fetch, Pii, Resolve, Titles
from landing.core.matching.readings import attempt
from landing.core.matching.results import LookupFailed
from tests.core.matching.cascading import (
    ARTICLE,
    CONFIRMED,
    DOI,
    IN_URL,
    TITLE,
    decided,
    found,
    matched,
    outcomes,
    page,
    resolves,
)


# --- doi-literal and pii --------------------------------------------------------------------------------------
def test_a_doi_the_handle_api_knows_is_matched_literally_with_its_evidence_and_the_artifact_last():
    result, asked = matched(" doi:10.1234/ABC ", {Exists(DOI): (True, 1)})
    assert result == {
        "input": "doi:10.1234/ABC",
        "doi": DOI,
        "method": "doi-literal",
        "verification": "literal",
        "checks": [],
        "url": None,
        "subj_id": None,
        "evidence": [attempt("doi-literal", DOI, "exists", 1), attempt("artifact", None, "none", 0)],
    }
    assert asked == [Exists(DOI)]


def test_a_short_doi_is_matched_through_the_doi_its_handle_aliases():
    result, _ = matched("https://doi.org/10/cz5b", {Alias("10/cz5b"): (DOI, 1)})
    assert (found(result), outcomes(result)[0]) == (
        (DOI, "doi-literal", "literal"),
        ("doi-literal", "10/cz5b", "alias"),
    )


def test_a_doi_with_junk_after_it_is_cut_until_a_candidate_the_handle_api_knows():
    answers = {Exists("10.1234/abc?utm_content=x"): (False, 1), Exists(DOI): (True, 1)}
    result, asked = matched("10.1234/abc?utm_content=x", answers)
    assert found(result) == (DOI, "doi-literal", "literal")
    assert asked == [Exists("10.1234/abc?utm_content=x"), Exists(DOI)]


def test_a_resolver_url_whose_doi_nobody_knows_is_no_match_and_never_fetched():
    result, asked = matched("https://doi.org/10.1234/zzz", {Exists("10.1234/zzz"): (False, 1)})
    assert (found(result), asked) == ((None, None, None), [Exists("10.1234/zzz")])


def test_a_pii_that_one_doi_holds_is_matched_by_lookup():
    answers = {Pii(("S0169534701023801", "S0169-5347(01)02380-1")): ([DOI], 1)}
    result, _ = matched("S0169534701023801", answers)
    assert (found(result), outcomes(result)[0]) == ((DOI, "pii", "lookup"), ("pii", "S0169534701023801", "found 1"))


def test_a_pii_that_two_dois_hold_is_nomatched():
    answers = {Pii(("S0169534701023801", "S0169-5347(01)02380-1")): ([DOI, "10.1234/def"], 1)}
    result, _ = matched("S0169534701023801", answers)
    assert found(result) == (None, None, None)


# --- landing-page-url -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "url, resolved, verification",
    [
        (IN_URL, IN_URL, "checked-url-exact"),
        (IN_URL, IN_URL.replace("https:", "http:") + "/", "checked-url-basic"),
        (IN_URL + "?utm_source=x", IN_URL, "checked-url-basic"),  # the seed: precisely the same URL, or basic
    ],
)
def test_a_doi_in_the_url_that_resolves_back_to_it_is_checked(url, resolved, verification):
    answers = {Exists(DOI + "?utm_source=x"): (False, 1), Exists(DOI): (True, 1), Resolve(DOI): resolves(resolved)}
    result, _ = matched(url, answers)
    assert (found(result), result["checks"]) == ((DOI, "landing-page-url", verification), [])
    assert (result["url"], result["subj_id"]) == (None, IN_URL)  # its subject: the input, tracking removed


@pytest.mark.parametrize(
    "decisions, verification",
    [
        (CONFIRMED, "confirmed-domain-prefix"),
        (decided("journal.example", "10.1234", "domain-recognised"), "recognised-domain-prefix"),
        (decided("journal.example", "10.9999", "domain-recognised"), "recognised-domain"),
    ],
)
def test_a_doi_in_the_url_resolving_elsewhere_is_vouched_for_by_the_domains_record(decisions, verification):
    answers = {Exists(DOI): (True, 1), Resolve(DOI): resolves("https://other.example/x")}
    result, _ = matched(IN_URL, answers, decisions=decisions)
    assert found(result) == (DOI, "landing-page-url", verification)
    assert result["evidence"][-1] == attempt("artifact", None, decisions.version, 0)


def test_a_url_naming_something_below_its_doi_on_a_site_that_puts_the_doi_elsewhere_reads_thepage():
    url, doi = "https://journal.example/view/10.1234/book.001/book-e-1", "10.1234/book.001"
    answers = {
        Exists("10.1234/book.001/book-e-1"): (False, 1),
        Exists(doi): (True, 1),
        Resolve(doi): resolves("https://journal.example/view/10.1234/book.001"),
        Fetch(url): page(url, meta_doi="10.1234/book.001.e1"),
        Exists("10.1234/book.001.e1"): (True, 1),
        Resolve("10.1234/book.001.e1"): resolves(url),
    }
    result, _ = matched(url, answers, decisions=CONFIRMED)
    assert found(result) == ("10.1234/book.001.e1", "landing-page-meta-tag", "checked-url-exact")
    assert ("landing-page-url", doi, "names-below-the-doi") in outcomes(result)


def test_without_fetching_a_doi_in_the_url_is_vouched_for_by_the_domain_alone_and_no_page_is_read():
    result, asked = matched(IN_URL, {Exists(DOI): (True, 1)}, decisions=CONFIRMED, fetch=False)
    assert (found(result), asked) == ((DOI, "landing-page-url", "confirmed-domain-prefix"), [Exists(DOI)])
    result, asked = matched(IN_URL, {Exists(DOI): (True, 1)}, fetch=False)
    assert (found(result), outcomes(result)[-1]) == ((None, None, None), ("landing-page-url", DOI, "unverified"))


# --- landing-page-meta-tag ------------------------------------------------------------------------------------
def test_a_meta_tag_doi_resolving_to_the_page_is_checked_url_exact_with_the_page_as_url_and_subject():
    answers = {Fetch(ARTICLE): page(ARTICLE, meta_doi=DOI), Exists(DOI): (True, 1), Resolve(DOI): resolves(ARTICLE)}
    result, _ = matched(ARTICLE, answers)
    assert found(result) == (DOI, "landing-page-meta-tag", "checked-url-exact")
    assert (result["url"], result["subj_id"]) == (ARTICLE, ARTICLE)
    assert outcomes(result) == [
        ("fetch", ARTICLE, f"200 {ARTICLE}"),
        ("landing-page-meta-tag", DOI, f"resolves to {ARTICLE}"),
        ("landing-page-meta-tag", DOI, "checked-url-exact"),
        ("artifact", None, "none"),
    ]


def test_a_meta_tag_doi_the_pages_url_states_too_is_vouched_by_the_domain_with_the_check_stated_in_url():
    url, doi = "http://papers.sae.example/2013-01-9096/", "10.4271/2013-01-9096"
    answers = {
        Fetch(url): page(url, meta_doi=doi),
        Exists(doi): (True, 1),
        Resolve(doi): resolves("https://x.example/"),
    }
    result, _ = matched(url, answers, decisions=decided("papers.sae.example", "10.9999", "domain-recognised"))
    assert (found(result), result["checks"]) == ((doi, "landing-page-meta-tag", "recognised-domain"), ["stated-in-url"])


def test_a_meta_tag_doi_on_a_domain_the_artifact_does_not_list_has_no_verification_and_no_match():
    url, doi = "http://papers.sae.example/2013-01-9096/", "10.4271/2013-01-9096"
    answers = {
        Fetch(url): page(url, meta_doi=doi),
        Exists(doi): (True, 1),
        Resolve(doi): resolves("https://x.example/"),
    }
    result, _ = matched(url, answers)
    assert (found(result), outcomes(result)[-1]) == (
        (None, None, None),
        ("landing-page-meta-tag", doi, "unverified + stated-in-url"),
    )


def test_a_meta_tag_doi_resolving_to_another_site_is_vouched_for_by_the_domains_record_as_the_percolators():
    answers = {
        Fetch(ARTICLE): page(ARTICLE, meta_doi=DOI),
        Exists(DOI): (True, 1),
        Resolve(DOI): resolves("https://x.example/"),
    }
    answers[Titles(DOI)] = (None, 1)
    assert found(matched(ARTICLE, answers, decisions=CONFIRMED)[0]) == (
        DOI,
        "landing-page-meta-tag",
        "confirmed-domain-prefix",
    )
    domain_only = decided("journal.example", "10.9999", "domain-recognised")
    assert found(matched(ARTICLE, answers, decisions=domain_only)[0]) == (
        DOI,
        "landing-page-meta-tag",
        "recognised-domain",
    )


def test_a_meta_tag_doi_resolving_to_another_page_of_the_site_is_vouched_by_the_domain_only_with_its_registered_title():
    answers = {
        Fetch(ARTICLE): page(ARTICLE, meta_doi=DOI),
        Exists(DOI): (True, 1),
        Resolve(DOI): resolves("https://journal.example/article/78"),
        Titles(DOI): (([TITLE], []), 1),
    }
    result, _ = matched(ARTICLE, answers, decisions=CONFIRMED)
    assert (found(result), result["checks"]) == (
        (DOI, "landing-page-meta-tag", "confirmed-domain-prefix"),
        ["registered-title"],
    )
    assert ("landing-page-meta-tag", DOI, "title matches") in outcomes(result)


def test_a_meta_tag_doi_of_another_page_of_the_site_under_another_title_is_nomatched():
    answers = {
        Fetch(ARTICLE): page(ARTICLE, meta_doi=DOI),
        Exists(DOI): (True, 1),
        Resolve(DOI): resolves("https://journal.example/article/78"),
        Titles(DOI): ((["Lichen on basalt coastal cliffs of the far north"], []), 1),
    }
    result, _ = matched(ARTICLE, answers, decisions=CONFIRMED)
    assert found(result) == (None, None, None)
    assert outcomes(result)[-2:] == [
        ("landing-page-meta-tag", DOI, "title differs"),
        ("landing-page-meta-tag", DOI, "another-page-of-this-site"),
    ]


def test_a_meta_tag_doi_the_handle_api_does_not_know_is_never_the_answer_whatever_the_domain():
    answers = {Fetch(ARTICLE): page(ARTICLE, meta_doi=DOI), Exists(DOI): (False, 1)}
    result, _ = matched(ARTICLE, answers, decisions=CONFIRMED)
    assert (found(result), outcomes(result)[-1]) == ((None, None, None), ("landing-page-meta-tag", DOI, "not-found"))


def test_a_title_lookup_that_fails_costs_only_the_title_check():
    answers = {
        Fetch(ARTICLE): page(ARTICLE, meta_doi=DOI),
        Exists(DOI): (True, 1),
        Resolve(DOI): resolves("https://x.example/"),
        Titles(DOI): LookupFailed("Crossref: 503 for 10.1234/abc"),
    }
    result, _ = matched(ARTICLE, answers, decisions=decided("journal.example", "10.1234", "domain-recognised"))
    assert outcomes(result)[-3:-1] == [
        ("landing-page-meta-tag", DOI, "title lookup failed: Crossref: 503 for 10.1234/abc"),
        ("landing-page-meta-tag", DOI, "recognised-domain-prefix"),
    ]
    assert (found(result), result["checks"]) == ((DOI, "landing-page-meta-tag", "recognised-domain-prefix"), [])


# --- landing-page-page-text -----------------------------------------------------------------------------------
def test_a_doi_in_the_pages_text_resolving_to_the_page_is_matched_by_text():
    answers = {Fetch(ARTICLE): page(ARTICLE, text=f"Cite as doi:{DOI}"), Resolve(DOI): resolves(ARTICLE)}
    result, _ = matched(ARTICLE, answers)
    assert (found(result), result["url"]) == ((DOI, "landing-page-page-text", "checked-url-exact"), ARTICLE)


def test_a_doi_in_the_pages_text_is_never_vouched_for_by_the_domain():
    answers = {
        Fetch(ARTICLE): page(ARTICLE, text=f"See doi:{DOI}", title="Short"),
        Resolve(DOI): resolves("https://x.example/"),
    }
    result, asked = matched(ARTICLE, answers, decisions=CONFIRMED)
    assert found(result) == (None, None, None)
    assert Titles(DOI) not in asked  # no title of the page could match: the registry is spared


def test_text_dois_are_tried_known_prefixes_first_and_capped():
    text = "References: 10.5555/ref1 10.5555/ref2 10.1234/own"
    answers = {
        Fetch(ARTICLE): page(ARTICLE, text=text, title="Short"),
        Resolve("10.1234/own"): resolves("https://x.example/"),
    }
    _, asked = matched(ARTICLE, answers, decisions=CONFIRMED, text_candidates=1)
    assert asked == [Fetch(ARTICLE), Resolve("10.1234/own")]


# --- what stops a page being read -----------------------------------------------------------------------------
def test_a_page_that_cannot_be_fetched_is_no_match_naming_its_failure_class():
    answers = {Fetch(ARTICLE): page(ARTICLE, status=404)}
    result, _ = matched(ARTICLE, answers)
    assert (found(result), result["url"], outcomes(result)) == (
        (None, None, None),
        ARTICLE,
        [("fetch", ARTICLE, "http-4xx")],
    )


def test_a_url_longer_than_any_server_takes_is_never_fetched():
    url = "https://journal.example/" + "a" * 8000
    result, asked = matched(url, {})
    assert (asked, outcomes(result)) == ([], [("fetch", url, "url-too-long")])


def test_a_malformed_url_asks_nothing():
    result, asked = matched("http://a..b.example/10.1234/abc", {})
    assert (asked, outcomes(result)) == ([], [("malformed-url", "http://a..b.example/10.1234/abc", "invalid host")])


def test_a_meta_tag_doi_whose_registered_title_the_page_contradicts_is_no_match_below_confirmed():
    answers = {
        Fetch(ARTICLE): page(ARTICLE, meta_doi=DOI),
        Exists(DOI): (True, 1),
        Resolve(DOI): resolves("https://x.example/"),
        Titles(DOI): ((["Lichen on basalt coastal cliffs of the far north"], []), 1),
    }
    result, _ = matched(ARTICLE, answers, decisions=decided("journal.example", "10.1234", "domain-recognised"))
    assert (found(result), outcomes(result)[-2:]) == (
        (None, None, None),
        [("landing-page-meta-tag", DOI, "title differs"), ("landing-page-meta-tag", DOI, "another-work-by-its-title")],
    )


def test_of_several_meta_tag_dois_the_best_verified_wins_not_the_first():
    other = "10.1234/other"
    fetched, requests = page(ARTICLE, meta_doi=other)
    fetched.body = fetched.body.replace(b"</head>", f'<meta name="dc.identifier" content="doi:{DOI}"></head>'.encode())
    answers = {
        Fetch(ARTICLE): (fetched, requests),
        Exists(other): (True, 1),
        Resolve(other): resolves("https://x.example/"),
        Exists(DOI): (True, 1),
        Resolve(DOI): resolves(ARTICLE),
    }
    result, _ = matched(ARTICLE, answers, decisions=CONFIRMED)
    assert found(result) == (DOI, "landing-page-meta-tag", "checked-url-exact")


def test_a_canonical_link_to_a_confirmed_domain_lends_the_page_no_domain_level():
    url = "https://mirror.example/copy/77"
    fetched, requests = page(url, meta_doi=DOI)
    fetched.body = fetched.body.replace(b"</head>", f'<link rel="canonical" href="{ARTICLE}"></head>'.encode())
    answers = {Fetch(url): (fetched, requests), Exists(DOI): (True, 1), Resolve(DOI): resolves("https://x.example/")}
    result, _ = matched(url, answers, decisions=CONFIRMED)
    assert (found(result), outcomes(result)[-1]) == ((None, None, None), ("landing-page-meta-tag", DOI, "unverified"))


def test_a_registered_record_without_a_title_is_no_title_and_no_evidence_against_the_doi():
    answers = {
        Fetch(ARTICLE): page(ARTICLE, meta_doi=DOI),
        Exists(DOI): (True, 1),
        Resolve(DOI): resolves("https://x.example/"),
        Titles(DOI): (([], []), 1),
    }
    result, _ = matched(ARTICLE, answers, decisions=decided("journal.example", "10.1234", "domain-recognised"))
    assert (found(result), outcomes(result)[-3]) == (
        (DOI, "landing-page-meta-tag", "recognised-domain-prefix"),
        ("landing-page-meta-tag", DOI, "no registered title"),
    )


def test_a_registered_title_too_short_to_name_one_work_is_no_evidence_against_the_doi():
    answers = {
        Fetch(ARTICLE): page(ARTICLE, meta_doi=DOI),
        Exists(DOI): (True, 1),
        Resolve(DOI): resolves("https://x.example/"),
        Titles(DOI): ((["Editorial"], []), 1),
    }
    result, _ = matched(ARTICLE, answers, decisions=decided("journal.example", "10.1234", "domain-recognised"))
    assert (found(result), outcomes(result)[-3]) == (
        (DOI, "landing-page-meta-tag", "recognised-domain-prefix"),
        ("landing-page-meta-tag", DOI, "registered title too short to tell"),
    )
