"""The matching cascade answered from a table: a setup, pages and resolutions as answers, and a driver that notes
each question (tests/core/test_cascade*.py)."""

import json
from dataclasses import replace

from landing.core.matching.cascade import Matching, Setup, drive
from landing.core.matching.decisions import Decisions
from landing.core.matching.results import Fetched

DOI = "10.1234/abc"
ARTICLE = "https://journal.example/article/77"  # a URL without a DOI in it
IN_URL = f"https://journal.example/article/{DOI}"
TITLE = "Moss growth on northern slopes of granite outcrops"
SETUP = Setup(
    decisions=Decisions(),
    resolver_hosts=frozenset({"doi.org", "dx.doi.org"}),
    fetch=True,
    pieces=20,
    candidates=20,
    text_candidates=20,
    requests=200,
    evidence=100,
    fetch_policy="all",  # the cascade's own tests fetch any URL; the domain gate's are test_cascade_fetch.py
)


def decided(domain: str, prefix: str, flag: str) -> Decisions:
    """An artifact's decisions with one (domain, prefix) pair, `domain-confirmed` or `domain-recognised`."""
    cell = {"domain-recognised": True, "domain-confirmed": flag == "domain-confirmed"}
    return Decisions.read(json.dumps({"domains-prefixes": {domain: {prefix: cell}}}))


CONFIRMED = decided("journal.example", "10.1234", "domain-confirmed")


def page(url, meta_doi=None, text="", title=TITLE, final=None, status=200) -> tuple[Fetched, int]:
    meta = f'<meta name="citation_doi" content="{meta_doi}">' if meta_doi else ""
    body = f"<html><head><title>{title}</title>{meta}</head><body><p>{text}</p></body></html>"
    headers = {"content-type": "text/html; charset=utf-8"}
    return Fetched(url, final or url, status, headers, body.encode(), 1), 1


def resolves(url, status=200) -> tuple[Fetched, int]:
    return Fetched("https://doi.org/x", url, status, hops=2), 2


def asker(answers: dict, asked: list):
    """ask(question): its answer in the table (an exception there is raised), the question noted in `asked`; a
    question the table does not hold fails the test."""

    def ask(question):
        asked.append(question)
        answer = answers[question]
        if isinstance(answer, Exception):
            raise answer
        return answer

    return ask


def matched(text, answers, **changes):
    """(the result's JSON, the questions asked in order), SETUP with `changes`."""
    asked = []
    return drive(Matching(text, replace(SETUP, **changes)), asker(answers, asked)).to_json(), asked


def found(result) -> tuple:
    return result["doi"], result["method"], result["verification"]


def outcomes(result) -> list[tuple]:
    return [(e["step"], e["candidate"], e["outcome"]) for e in result["evidence"]]
