"""landing.publish.child_process: the publish step run in a child process on the same store and the same clock."""

from datetime import UTC, datetime

import pytest

from landing import clock
from landing.publish import publish
from landing.publish.child_process import PublishError, publish_apart
from tests.publish.test_publish import PLOS, TIMEOUT, ZENODO, store

FILES = ("prefixes-domains.csv", "prefixes-domains-bad.csv", "domain-decision-structure.json")


@pytest.fixture(autouse=True)
def frozen_clock():
    clock.set_clock("2030-01-02T03:04:05Z", speed=1e-9)  # still for the test's length: one version name
    yield
    clock.set_clock(None)


def test_a_child_export_writes_the_version_the_callers_clock_names_with_the_files_an_export_in_process_writes(
    tmp_path,
):
    store(tmp_path / "child.db", PLOS, ZENODO, TIMEOUT).close()
    summary = publish_apart(f"sqlite:///{tmp_path / 'child.db'}", {}, tmp_path / "child", frozenset(), False)
    with store(tmp_path / "here.db", PLOS, ZENODO, TIMEOUT) as docs:
        expected = publish(docs, tmp_path / "here", exclusions=frozenset(), report=False)
    assert summary["version"] == str(tmp_path / "child" / "versions" / "20300102T030405Z")
    assert {k: v for k, v in summary.items() if k != "version"} == {k: v for k, v in expected.items() if k != "version"}
    version = tmp_path / "child" / "versions" / "20300102T030405Z"
    here = tmp_path / "here" / "versions" / "20300102T030405Z"
    assert [(version / f).read_text() for f in FILES] == [(here / f).read_text() for f in FILES]


def test_a_child_export_given_a_boundary_names_its_version_for_the_boundary_not_the_clock(tmp_path):
    store(tmp_path / "child.db", PLOS).close()
    at = datetime(2030, 1, 2, tzinfo=UTC)
    summary = publish_apart(f"sqlite:///{tmp_path / 'child.db'}", {}, tmp_path / "child", frozenset(), False, at)
    assert summary["version"] == str(tmp_path / "child" / "versions" / "20300102T000000Z")


def test_a_child_export_that_cannot_open_the_store_raises_a_publish_error_saying_why(tmp_path):
    with pytest.raises(PublishError, match=r"the export failed: LANDING_DOCS=.*cannot open"):
        publish_apart(f"sqlite:///{tmp_path}", {}, tmp_path / "artifacts", frozenset(), False)
    assert not (tmp_path / "artifacts").exists()
