"""landing.core.matching.cascade: what bounds one input (requests, pieces, evidence), free text, and a cascade stopped from
outside, answered from a table."""

import asyncio

import pytest

from landing.core.matching.cascade import Matching, drive, drive_async
from landing.core.matching.questions import Exists, Fetch, Resolve
from landing.core.matching.readings import attempt
from landing.core.matching.results import LookupFailed
from tests.core.matching.cascading import (
    ARTICLE,
    CONFIRMED,
    DOI,
    SETUP,
    found,
    matched,
    outcomes,
    page,
    resolves,
)


# -----------------------------------------------------------------------------------
def test_an_input_asks_no_more_once_it_made_its_requests_and_gets_nomatched():
    url = "https://journal.example/a/10.1234/x.full.pdf"
    answers = {Exists("10.1234/x.full.pdf"): (False, 1), Exists("10.1234/x.full"): (False, 1)}
    result, asked = matched(url, answers, requests=2)
    assert len(asked) == 2
    assert outcomes(result)[-1] == (
        "request-cap",
        None,
        "2 requests made, the most one input may make (LANDING_MATCH_REQUESTS)",
    )
    assert found(result) == (None, None, None)


def test_a_cached_answer_costs_nothing_against_the_requests():
    url = "https://journal.example/a/10.1234/x.full.pdf"
    answers = {
        Exists("10.1234/x.full.pdf"): (False, 0),
        Exists("10.1234/x.full"): (False, 0),
        Exists("10.1234/x"): (True, 0),
    }
    answers[Resolve("10.1234/x")] = resolves(url)
    assert found(matched(url, answers, requests=1)[0]) == ("10.1234/x", "landing-page-url", "checked-url-exact")


def test_free_text_matches_each_piece_the_first_leads_and_only_the_lead_names_the_artifact():
    text = 'Two: <a href="https://doi.org/10.1234/a">one</a> and 10.1234/b.'
    result, _ = matched(text, {Exists("10.1234/a"): (True, 1), Exists("10.1234/b"): (True, 1)}, decisions=CONFIRMED)
    assert (result["input"], found(result)) == (text, ("10.1234/a", "doi-literal", "literal"))
    assert [(m["input"], m["doi"]) for m in result["matches"]] == [
        ("https://doi.org/10.1234/a", "10.1234/a"),
        ("10.1234/b", "10.1234/b"),
    ]
    assert [m["evidence"] for m in result["matches"]] == [
        [attempt("doi-literal", "10.1234/a", "exists", 1)],
        [attempt("doi-literal", "10.1234/b", "exists", 1)],
    ]
    assert outcomes(result)[-1] == ("artifact", None, CONFIRMED.version)
    assert list(result) == ["input", "doi", "method", "verification", "checks", "url", "subj_id", "evidence", "matches"]


def test_free_text_past_its_pieces_cap_says_so_and_matches_the_first():
    result, _ = matched("10.1234/a 10.1234/b", {Exists("10.1234/a"): (True, 1)}, pieces=1)
    assert [m["doi"] for m in result["matches"]] == ["10.1234/a"]
    assert ("pieces-cap", None, "only the first 1 matched") in outcomes(result)


def test_free_text_keeps_the_matches_found_before_its_requests_ran_out():
    answers = {Exists("10.1234/a"): (True, 1), Exists("10.1234/b"): (False, 1)}
    result, _ = matched("10.1234/a 10.1234/b 10.1234/c", answers, requests=2)
    assert [m["doi"] for m in result["matches"]] == ["10.1234/a"]
    assert [e["step"] for e in result["evidence"]] == ["doi-literal", "doi-literal", "request-cap", "artifact"]


def test_free_text_without_a_match_has_an_empty_matches_list():
    result, _ = matched("10.1234/a and 10.1234/b", {Exists("10.1234/a"): (False, 1), Exists("10.1234/b"): (False, 1)})
    assert (found(result), result["matches"]) == ((None, None, None), [])


def test_evidence_past_its_cap_is_folded_in_the_middle():
    url = "https://journal.example/a/10.1234/x.full.pdf"
    answers = {Exists(c): (False, 1) for c in ("10.1234/x.full.pdf", "10.1234/x.full", "10.1234/x")}
    answers[Fetch(url)] = page(url, status=404)
    result, _ = matched(url, answers, evidence=3)
    assert outcomes(result) == [
        ("landing-page-url", "10.1234/x.full.pdf", "not-found"),
        ("evidence-cap", None, "2 more attempts not listed"),
        ("fetch", url, "http-4xx"),
    ]


def test_a_registry_that_does_not_answer_stops_the_cascade_and_stopped_keeps_the_attempts_so_far():
    answers = {Exists("10.1234/abc?x=1"): (False, 1), Exists(DOI): LookupFailed("Handle API: 500 for 10.1234/abc")}
    matching = Matching("10.1234/abc?x=1", SETUP)
    with pytest.raises(LookupFailed):
        drive(
            matching, lambda q: (_ for _ in ()).throw(answers[q]) if isinstance(answers[q], Exception) else answers[q]
        )
    result = matching.stopped("lookup-failed", "Handle API: 500 for 10.1234/abc").to_json()
    assert outcomes(result) == [
        ("doi-literal", "10.1234/abc?x=1", "not-found"),
        ("lookup-failed", None, "Handle API: 500 for 10.1234/abc"),
    ]
    assert "matches" not in result


def test_the_async_driver_asks_the_same_questions_and_gives_the_same_result():
    answers = {Fetch(ARTICLE): page(ARTICLE, meta_doi=DOI), Exists(DOI): (True, 1), Resolve(DOI): resolves(ARTICLE)}

    async def ask(question):
        await asyncio.sleep(0)
        return answers[question]

    result = asyncio.run(drive_async(Matching(ARTICLE, SETUP), ask))
    assert result.to_json() == matched(ARTICLE, answers)[0]
