"""landing.core.publishing.aggregation and landing.core.publishing.member_figures: the fixed stream of analyses (tests/core/publishing/stream.py)
through the one aggregator makes, byte for byte, the artifact files, report documents, members and domains in
tests/core/publishing/aggregated/, which the two aggregators it replaced (the artifacts' and the member figures') wrote."""

import json
from pathlib import Path

import pytest

from landing.core.publishing import member_figures
from landing.core.publishing.aggregation import Aggregate
from landing.core.publishing.artifact_format import FILENAMES, render
from tests.core.publishing.stream import LISTED, STREAM

EXPECTED = Path(__file__).with_name("aggregated")


def _aggregated() -> Aggregate:
    aggregate = Aggregate()
    for doc in STREAM:
        aggregate.add(doc)
    for prefix, ra in LISTED:
        aggregate.listed(prefix, ra)
    return aggregate


def _lines(objects) -> str:
    """JSON lines as landing.publish.report_data writes them, key order included."""
    return "".join(json.dumps(obj, separators=(",", ":")) + "\n" for obj in objects)


@pytest.mark.parametrize("name", FILENAMES)
def test_a_fixed_stream_of_analyses_renders_each_artifact_file_byte_for_byte(name):
    assert render(_aggregated().artifacts())[name] == (EXPECTED / name).read_text("utf-8")


def test_a_fixed_stream_of_analyses_makes_the_report_documents_byte_for_byte():
    assert _lines(_aggregated().reports()) == (EXPECTED / "reports.jsonl").read_text("utf-8")


def test_a_fixed_stream_of_analyses_makes_the_members_lines_byte_for_byte():
    assert _lines(member_figures.members(_aggregated())) == (EXPECTED / "members.jsonl").read_text("utf-8")


def test_a_fixed_stream_of_analyses_makes_the_domains_lines_byte_for_byte():
    assert _lines(member_figures.domains(_aggregated())) == (EXPECTED / "domains.jsonl").read_text("utf-8")
