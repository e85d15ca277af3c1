"""landing.match.api.match from code: the same results as `scrapy match`, one per input, in order."""

import json
import subprocess
import sys

from tests.sampler.crawling import PROJECT

SCRIPT = """
import json, sys
from landing.match.api import match
print(json.dumps(match(sys.argv[2:], settings={"LANDING_SANDBOX": sys.argv[1], "LANDING_ARTIFACTS_DIR": "/nonexistent"})))
"""


def test_match_returns_one_result_per_input_in_order(match_sandbox, match_world):
    record = json.loads(open(match_world / "dois.jsonl").readline())
    inputs = [f"doi:{record['doi']}", "10.99999/unknown", "not a url"]
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, match_sandbox.proxy, *inputs],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads(done.stdout.splitlines()[-1])
    assert [r["input"] for r in results] == inputs
    assert [(r["doi"], r["method"]) for r in results] == [
        (record["doi"].lower(), "doi-literal"),
        (None, None),
        (None, None),
    ]
