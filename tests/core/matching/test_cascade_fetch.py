"""landing.core.matching.cascade: which URLs are fetched, alone or in free text (the Percolator's domain gate,
Setup.fetch_policy), answered from a table."""

from functools import partial

import pytest

from landing.core.matching.cascade import NOT_FETCHED, Setup
from landing.core.matching.questions import Exists, Fetch, Resolve
from tests.core.matching.cascading import ARTICLE, CONFIRMED, DOI, SETUP, found, outcomes, page, resolves
from tests.core.matching.cascading import matched as any_policy

matched = partial(any_policy, fetch_policy="known")  # the default policy, which the other cascade tests lift

ELSEWHERE = "https://blog.example/post/12"  # a domain the artifact does not know, whose page states OTHER
OTHER = "10.5555/xyz"
ON_KNOWN = {Fetch(ARTICLE): page(ARTICLE, meta_doi=DOI), Exists(DOI): (True, 1), Resolve(DOI): resolves(ARTICLE)}
ON_UNKNOWN = {
    Fetch(ELSEWHERE): page(ELSEWHERE, meta_doi=OTHER),
    Exists(OTHER): (True, 1),
    Resolve(OTHER): resolves(ELSEWHERE),
}


def test_a_url_of_free_text_on_a_domain_the_artifact_knows_is_fetched_and_matched_from_its_page():
    result, asked = matched(f"Read {ARTICLE} today", ON_KNOWN, decisions=CONFIRMED)
    assert (found(result), asked) == ((DOI, "landing-page-meta-tag", "checked-url-exact"), list(ON_KNOWN))


def test_a_url_of_free_text_on_a_domain_the_artifact_does_not_know_is_not_fetched_and_the_evidence_says_so():
    result, asked = matched(f"Read {ELSEWHERE} today", ON_UNKNOWN, decisions=CONFIRMED)
    assert (found(result), asked, outcomes(result)) == ((None, None, None), [], [("fetch", ELSEWHERE, NOT_FETCHED)])


def test_fetch_policy_all_fetches_every_url_of_free_text_whatever_its_domain():
    result, asked = matched(
        f"{ELSEWHERE} and {ARTICLE}", {**ON_UNKNOWN, **ON_KNOWN}, decisions=CONFIRMED, fetch_policy="all"
    )
    assert [question for question in asked if isinstance(question, Fetch)] == [Fetch(ELSEWHERE), Fetch(ARTICLE)]
    assert [found(m) for m in result["matches"]] == [
        (OTHER, "landing-page-meta-tag", "checked-url-exact"),
        (DOI, "landing-page-meta-tag", "checked-url-exact"),
    ]


def test_of_two_urls_in_free_text_only_the_one_on_a_known_domain_is_fetched():
    result, asked = matched(f"{ELSEWHERE} and {ARTICLE}", {**ON_UNKNOWN, **ON_KNOWN}, decisions=CONFIRMED)
    assert [question for question in asked if isinstance(question, Fetch)] == [Fetch(ARTICLE)]
    assert outcomes(result)[0] == ("fetch", ELSEWHERE, NOT_FETCHED)


def test_a_single_url_on_a_domain_the_artifact_knows_is_fetched_and_matched_from_its_page():
    result, asked = matched(ARTICLE, ON_KNOWN, decisions=CONFIRMED)
    assert (found(result), asked) == ((DOI, "landing-page-meta-tag", "checked-url-exact"), list(ON_KNOWN))


def test_a_single_url_on_a_domain_the_artifact_does_not_know_is_not_fetched_and_the_evidence_says_so():
    result, asked = matched(ELSEWHERE, ON_UNKNOWN, decisions=CONFIRMED)
    assert (found(result), asked, outcomes(result)) == ((None, None, None), [], [("fetch", ELSEWHERE, NOT_FETCHED)])


def test_a_single_url_on_a_subdomain_of_a_known_domain_is_not_fetched_the_host_is_compared_whole():
    url = "https://www.journal.example/article/77"
    result, asked = matched(url, {}, decisions=CONFIRMED)
    assert (asked, outcomes(result)) == ([], [("fetch", url, NOT_FETCHED)])


def test_fetch_policy_all_fetches_a_single_url_whatever_its_domain():
    result, asked = matched(ELSEWHERE, ON_UNKNOWN, decisions=CONFIRMED, fetch_policy="all")
    assert (found(result), asked[0]) == ((OTHER, "landing-page-meta-tag", "checked-url-exact"), Fetch(ELSEWHERE))


def test_without_an_artifact_no_single_url_is_fetched():
    result, asked = matched(ARTICLE, ON_KNOWN)
    assert (found(result), asked, outcomes(result)) == ((None, None, None), [], [("fetch", ARTICLE, NOT_FETCHED)])


def test_a_doi_in_a_single_url_on_an_unknown_domain_is_looked_up_but_never_resolved_to_check_it():
    url = f"https://blog.example/cites/{DOI}"
    result, asked = matched(url, {Exists(DOI): (True, 1)}, decisions=CONFIRMED)
    assert (found(result), asked) == ((None, None, None), [Exists(DOI)])
    assert outcomes(result) == [("landing-page-url", DOI, "unverified"), ("fetch", url, NOT_FETCHED)]


def test_a_doi_in_a_free_text_url_on_an_unknown_domain_is_looked_up_but_never_resolved_to_check_it():
    url = f"https://blog.example/cites/{DOI}"
    result, asked = matched(f"see {url} now", {Exists(DOI): (True, 1)}, decisions=CONFIRMED)
    assert (found(result), asked) == ((None, None, None), [Exists(DOI)])
    assert outcomes(result) == [("landing-page-url", DOI, "unverified"), ("fetch", url, NOT_FETCHED)]


def test_a_doi_in_a_free_text_url_on_a_known_domain_is_resolved_to_check_it():
    url = f"https://journal.example/article/{DOI}"
    answers = {Exists(DOI): (True, 1), Resolve(DOI): resolves(url)}
    result, asked = matched(f"see {url} now", answers, decisions=CONFIRMED)
    assert (found(result), asked) == ((DOI, "landing-page-url", "checked-url-exact"), [Exists(DOI), Resolve(DOI)])


def test_a_run_that_fetches_nothing_says_nothing_of_the_domain_gate():
    result, asked = matched(f"Read {ELSEWHERE} today", {}, decisions=CONFIRMED, fetch=False)
    assert (asked, outcomes(result)) == ([], [])


def test_a_fetch_policy_that_is_none_of_known_and_all_is_refused_in_words():
    with pytest.raises(ValueError, match="fetch_policy='some': use known or all"):
        Setup(**{**SETUP.__dict__, "fetch_policy": "some"})
