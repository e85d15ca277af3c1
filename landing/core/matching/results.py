"""The values the matching cascade trades in: a page or resolution fetched, a registry that did not answer, and the
Result of one input, whose JSON is the line `scrapy match` prints (docs/data-model.md "Matcher output")."""

from dataclasses import dataclass

from landing.core.matching.readings import CHECKS, METHODS, VERIFICATIONS


class LookupFailed(Exception):
    """A registry's answer that says nothing about the question (an error status, no answer, not JSON): never
    read as "not registered", and not cached, so the next asker tries again."""


@dataclass
class Fetched:
    """A URL followed to its end: the last URL, its status and body, the hops taken, or the failure class."""

    url: str
    final_url: str | None = None
    status: int | None = None
    headers: dict | None = None
    body: bytes | None = None
    hops: int = 0
    error: str | None = None


@dataclass(frozen=True)
class Result:
    """One input's answer: the DOI, how it was found (method) and checked (verification, one of the seeds' seven; the
    finer checks beside it), the page's final URL and subject, every attempt as evidence, and for free text every
    piece's match (None: the input was one piece).

    >>> Result("10.1234/x", "10.1234/x", "doi-literal", "literal").to_json()["verification"]
    'literal'
    >>> Result("x", "10.1234/x", "url-text")
    Traceback (most recent call last):
    ...
    ValueError: unknown method 'url-text'; known: doi-literal, pii, landing-page-url, landing-page-meta-tag, \
landing-page-page-text
    """

    input: str
    doi: str | None = None
    method: str | None = None
    verification: str | None = None
    checks: tuple[str, ...] = ()
    url: str | None = None
    subj_id: str | None = None
    evidence: tuple[dict, ...] = ()
    matches: tuple["Result", ...] | None = None

    def __post_init__(self):
        if self.method is not None and self.method not in METHODS:
            raise ValueError(f"unknown method {self.method!r}; known: {', '.join(METHODS)}")
        if self.verification is not None and self.verification not in VERIFICATIONS:
            raise ValueError(f"unknown verification {self.verification!r}; known: {', '.join(VERIFICATIONS)}")
        if self.checks and (unknown := [check for check in self.checks if check not in CHECKS]):
            raise ValueError(f"unknown check {unknown[0]!r}; known: {', '.join(CHECKS)}")

    def to_json(self) -> dict:
        """The output object, keys in the documented order; `matches` only for free text."""
        out = {
            "input": self.input,
            "doi": self.doi,
            "method": self.method,
            "verification": self.verification,
            "checks": list(self.checks),
            "url": self.url,
            "subj_id": self.subj_id,
            "evidence": list(self.evidence),
        }
        if self.matches is not None:
            out["matches"] = [match.to_json() for match in self.matches]
        return out
