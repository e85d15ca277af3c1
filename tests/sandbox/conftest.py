"""Fixtures of the sandbox tests: a world's records, and sandboxes whose counters nobody has touched yet."""

import json

import pytest

from landing_dev.sandbox.server import RunningSandbox


def read_jsonl(path):
    with open(path, encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


@pytest.fixture(scope="session")
def mixed_dois(mixed_world):
    return read_jsonl(mixed_world / "dois.jsonl")


@pytest.fixture(scope="session")
def mixed_truth(mixed_world):
    return read_jsonl(mixed_world / "truth.jsonl")


@pytest.fixture(scope="session")
def every_dois(every_scenario_world):
    return read_jsonl(every_scenario_world / "dois.jsonl")


@pytest.fixture(scope="session")
def every_truth(every_scenario_world):
    return read_jsonl(every_scenario_world / "truth.jsonl")


@pytest.fixture(scope="session")
def scenario_truth(every_truth):
    """scenario -> its DOIs' truth records, in world order."""
    found = {}
    for record in every_truth:
        found.setdefault(record["scenario"], []).append(record)
    return found


@pytest.fixture
def fresh_every_sandbox(every_scenario_world):
    """A sandbox of its own over the every-scenario world: its fail_first counters are untouched."""
    running = RunningSandbox(every_scenario_world)
    yield running
    running.close()
