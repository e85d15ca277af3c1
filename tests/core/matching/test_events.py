"""landing.core.matching.events: a result's JSON as the Events an Event Data consumer reads, the evidence beside them, and the
JSON Schema the line validates against."""

import json
from dataclasses import replace
from importlib.resources import files

import jsonschema
import pytest

from landing.core.matching.events import citing_page, event_line
from landing.core.matching.readings import CHECKS, METHODS, VERIFICATIONS, attempt
from landing.core.matching.results import Result

DOI = "10.1371/journal.pone.0160617"
PID = f"https://doi.org/{DOI}"
PAGE = f"https://journals.plos.org/plosone/article?id={DOI}"
SCHEMA = json.loads((files("landing") / "schemas" / "event.schema.json").read_text(encoding="utf-8"))


def valid(line: dict) -> dict:
    jsonschema.Draft202012Validator(SCHEMA).validate(line)
    return line


def test_the_schemas_methods_verifications_and_checks_are_exactly_the_matchers_in_order():
    obj = SCHEMA["$defs"]["event"]["properties"]["obj"]["properties"]
    checks = SCHEMA["$defs"]["evidence"]["properties"]["matches"]["items"]["properties"]["checks"]["items"]["enum"]
    assert (tuple(obj["method"]["enum"]), tuple(obj["verification"]["enum"]), tuple(checks)) == (
        METHODS,
        VERIFICATIONS,
        CHECKS,
    )


def test_the_schema_is_a_valid_draft_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_a_cited_doi_gives_an_event_whose_url_is_its_pid():
    evidence = (attempt("doi-literal", DOI, "exists", 1),)
    line = valid(event_line(Result(f"doi:{DOI.upper()}", DOI, "doi-literal", "literal", evidence=evidence).to_json()))
    assert line == {
        "input": f"doi:{DOI.upper()}",
        "events": [
            {
                "subj_id": None,
                "obj_id": PID,
                "obj": {"pid": PID, "url": PID, "method": "doi-literal", "verification": "literal"},
            }
        ],
        "evidence": {
            "matches": [{"obj_id": PID, "checks": [], "landing_page_url": None, "landing_page_id": None}],
            "attempts": list(evidence),
        },
    }


def test_a_pii_gives_an_event_whose_url_is_its_pid_as_the_percolators_do():
    line = valid(event_line(Result("S0140673620301835", DOI, "pii", "lookup").to_json()))
    assert line["events"][0]["obj"]["url"] == PID


def test_a_landing_page_gives_an_event_whose_url_is_the_page_as_cited_tracking_and_all():
    cited = PAGE + "&utm_source=twitter"
    found = Result(
        cited, DOI, "landing-page-url", "checked-url-basic", ("stated-in-url",), "https://journals.plos.org/x", PAGE
    )
    line = valid(event_line(found.to_json()))
    assert line["events"][0]["obj"] == {
        "pid": PID,
        "url": cited,
        "method": "landing-page-url",
        "verification": "checked-url-basic",
    }
    assert line["evidence"]["matches"] == [
        {
            "obj_id": PID,
            "checks": ["stated-in-url"],
            "landing_page_url": "https://journals.plos.org/x",
            "landing_page_id": PAGE,
        }
    ]


def test_a_page_cited_without_its_scheme_gives_obj_url_as_the_matcher_read_it():
    line = event_line(
        Result("www.jstor.org/stable/10.2307/1234", "10.2307/1234", "landing-page-url", "lookup").to_json()
    )
    assert line["events"][0]["obj"]["url"] == "https://www.jstor.org/stable/10.2307/1234"


def test_free_text_gives_one_event_per_match_in_text_order_each_with_its_record_and_every_attempt_once():
    other = "10.5678/cd"
    first = Result(PAGE, DOI, "landing-page-meta-tag", "confirmed-domain-prefix", url=PAGE, subj_id=PAGE)
    second = Result(other, other, "doi-literal", "literal")
    attempts = (attempt("fetch", PAGE, f"200 {PAGE}", 1), attempt("doi-literal", other, "exists", 1))
    text = f"Read {PAGE} and {other}"
    result = replace(first, input=text, evidence=attempts, matches=(first, second)).to_json()
    line = valid(event_line(result))
    assert [(e["obj_id"], e["obj"]["url"]) for e in line["events"]] == [
        (PID, PAGE),
        (f"https://doi.org/{other}", f"https://doi.org/{other}"),
    ]
    assert [m["obj_id"] for m in line["evidence"]["matches"]] == [e["obj_id"] for e in line["events"]]
    assert line["evidence"]["attempts"] == list(attempts)


def test_an_input_with_no_doi_gives_a_line_with_no_event_and_its_attempts():
    attempts = (attempt("fetch", "https://example.org/", "dns-failure", 1),)
    line = valid(event_line(Result("https://example.org/", evidence=attempts).to_json()))
    assert line == {
        "input": "https://example.org/",
        "events": [],
        "evidence": {"matches": [], "attempts": [attempts[0]]},
    }


def test_free_text_with_no_doi_gives_a_line_with_no_event():
    assert valid(event_line(Result("no doi here", matches=()).to_json()))["events"] == []


def test_the_citing_page_is_the_subject_without_tracking_and_kept_as_given_in_subj_url():
    cited = "https://blog.example.org/post/7?utm_source=rss&p=2"
    line = valid(event_line(Result(DOI, DOI, "doi-literal", "literal").to_json(), cited))
    subject = "https://blog.example.org/post/7?p=2"
    assert (line["events"][0]["subj_id"], line["events"][0]["subj"]) == (subject, {"pid": subject, "url": cited})


def test_without_a_citing_page_the_subject_is_null_and_there_is_no_subj():
    found = valid(event_line(Result(DOI, DOI, "doi-literal", "literal").to_json()))["events"][0]
    assert (found["subj_id"], "subj" in found) == (None, False)


@pytest.mark.parametrize("given", ["blog.example.org/post", "ftp://example.org/a", "https://", "", "see my blog"])
def test_a_citing_page_that_is_not_an_http_url_is_refused_in_words(given):
    with pytest.raises(ValueError, match="give the citing page's http\\(s\\) URL"):
        citing_page(given)


def test_the_schema_refuses_a_verification_outside_the_seven():
    line = event_line(Result(PAGE, DOI, "landing-page-url", "checked-url-basic").to_json())
    line["events"][0]["obj"]["verification"] = "stated-in-url"
    with pytest.raises(jsonschema.ValidationError, match="'stated-in-url' is not one of"):
        valid(line)
