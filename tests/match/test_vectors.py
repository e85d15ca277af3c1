"""`scrapy match` on the real inputs of ../shared/corpus/url-doi-vectors/dev.jsonl, through the world
bench/vectors.py builds for them: no wrong DOI at all, and every vector whose DOI is in its string right."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT.parent / "shared" / "corpus" / "url-doi-vectors" / "dev.jsonl"
if not VECTORS.is_file():
    pytest.skip(f"no URL/DOI vectors at {VECTORS}", allow_module_level=True)
STRING_KINDS = ("doi-text", "doi-url", "url-path", "url-junk", "url-query", "url-encoded", "sici", "pii")


@pytest.fixture(scope="module")
def tally():
    done = subprocess.run([sys.executable, "bench/vectors.py", "--vectors", str(VECTORS), "--json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def test_no_vector_gets_a_wrong_doi(tally):
    assert {kind: counts.get("wrong", 0) for kind, counts in tally.items() if counts.get("wrong")} == {}


@pytest.mark.parametrize("kind", STRING_KINDS)
def test_every_vector_whose_doi_is_in_its_string_is_right(tally, kind):
    assert tally[kind].get("none", 0) == 0


def test_no_doi_vector_gets_a_doi(tally):
    assert set(tally["no-doi"]) == {"right"}
