"""`scrapy match` on the real inputs of ../shared/corpus/url-doi-vectors/dev.jsonl, through the worlds
bench/vectors.py builds for them: no wrong DOI at all, every vector whose DOI is in its string right, and the
page-only vectors right when their DOI resolves to another page (shape `elsewhere`)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.sampler.crawling import at_once

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT.parent / "shared" / "corpus" / "url-doi-vectors" / "dev.jsonl"
if not VECTORS.is_file():
    pytest.skip(f"no URL/DOI vectors at {VECTORS}", allow_module_level=True)
STRING_KINDS = ("doi-text", "doi-url", "url-path", "url-junk", "url-query", "url-encoded", "sici", "pii")


def scored(shape: str) -> dict:
    done = subprocess.run(
        # No crawl for an artifact, every URL fetched: the matcher's reading of each page, at a test's cost
        # (`python -m bench.vectors` crawls for the artifact and scores the corpus too: bench/README.md).
        [sys.executable, "-m", "bench.vectors", "--vectors", str(VECTORS), "--shape", shape, "--json"]
        + ["--corpus", "none", "--no-artifact", "--fetch-all"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def scores(request):
    """Both shapes' runs, at once (tests.sampler.crawling.at_once): each mostly waits on its processes."""
    shapes = {"tally": "friendly", "elsewhere": "elsewhere"}
    with at_once(request, {name: lambda shape=shape: lambda: scored(shape) for name, shape in shapes.items()}) as runs:
        yield runs


@pytest.fixture(scope="module")
def tally(scores):
    return scores["tally"].result()


@pytest.fixture(scope="module")
def elsewhere(scores):
    return scores["elsewhere"].result()


def test_no_vector_gets_a_wrong_doi(tally):
    assert {kind: counts.get("wrong", 0) for kind, counts in tally.items() if counts.get("wrong")} == {}


@pytest.mark.parametrize("kind", STRING_KINDS)
def test_every_vector_whose_doi_is_in_its_string_is_right(tally, kind):
    assert tally[kind].get("none", 0) == 0


def test_no_doi_vector_gets_a_doi(tally):
    assert set(tally["no-doi"]) == {"right"}


def test_no_vector_gets_a_wrong_doi_when_page_only_dois_resolve_elsewhere(elsewhere):
    assert {kind: counts.get("wrong", 0) for kind, counts in elsewhere.items() if counts.get("wrong")} == {}


def test_page_only_vectors_whose_doi_resolves_to_another_page_are_right_as_issue_15_asks(elsewhere):
    counts = elsewhere["page-only"]
    assert counts.get("right", 0) >= 0.98 * sum(counts.values())


def test_no_page_naming_another_works_doi_gets_it(elsewhere):
    assert set(elsewhere["page-trap"]) == {"right"}
