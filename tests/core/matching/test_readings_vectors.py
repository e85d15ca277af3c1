"""The matcher's string rules on real inputs: the corpus's url-doi-vectors/dev.jsonl, pairs other projects'
test suites assert. Where the DOI is in the string itself, it must be among the input's candidates, and no other
DOI of the vectors (standing in for the registry) may come before it, so the first one the registry knows is it.

Vectors that only a lookup or the page can answer (PIIs, shortDOIs, a URL whose embedded DOI is another
work's) are the sandbox's to check, not this file's.
"""

import json

import pytest

from landing.core.matching import readings
from landing_dev.sandbox.corpus import FOLDER

VECTORS = FOLDER / "url-doi-vectors" / "dev.jsonl"
if not VECTORS.is_file():
    pytest.skip(
        f"no URL/DOI vectors at {VECTORS} (third-party test data, kept outside the repo)", allow_module_level=True
    )
ROWS = [json.loads(line) for line in VECTORS.read_text(encoding="utf-8").splitlines() if line.strip()]
REGISTERED = {row["doi"].lower() for row in ROWS if row["doi"]}


def candidates(text: str) -> list[str]:
    """What the matcher asks the registry about, in its order, before any page is read."""
    text = readings.cleaned(text)
    literal = readings.literal(text)
    return [*([literal[1]] if literal and literal[0] == "doi" else []), *readings.url_candidates(text)]


def _in_string(row) -> bool:
    if not row["doi"] or row["kind"] in ("page-only", "pii"):
        return False
    literal = readings.literal(readings.cleaned(row["url"]))
    return not (literal and literal[0] == "short") and row["doi"].lower() in candidates(row["url"])


STRING = [row for row in ROWS if _in_string(row)]
NONE = [row for row in ROWS if row["kind"] == "no-doi"]


def test_most_vectors_with_a_doi_carry_it_in_the_string():
    assert len(STRING) >= 120


@pytest.mark.parametrize("row", STRING, ids=lambda row: row["url"][:60])
def test_the_first_registered_candidate_is_the_vectors_doi(row):
    first = next(c for c in candidates(row["url"]) if c in REGISTERED)
    assert first == row["doi"].lower()


@pytest.mark.parametrize("row", NONE, ids=lambda row: row["url"][:60])
def test_a_string_without_a_doi_offers_no_registered_candidate(row):
    assert not [c for c in candidates(row["url"]) if c in REGISTERED]


@pytest.mark.parametrize(
    "text",
    [
        "10.1007/s12520-015-0279-7\U0001f600",
        "10.1111/nicc.12290#.Wlw5yueemak.twitter",
        "doi(10.1038/s41535-018-0103-6;)",
        "10.1007/978-3-030-02671-4\\_7",
    ],
)
def test_junk_after_a_bare_doi_is_cut_off(text):
    assert any(c in REGISTERED for c in candidates(text))
