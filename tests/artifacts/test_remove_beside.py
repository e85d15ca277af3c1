"""landing.artifacts.artifact_files.remove_beside: the retention's deletes of old versions' reports, never of their
artifact files."""

from datetime import UTC, datetime

import pytest

from landing.artifacts import artifact_files
from landing.core.publishing.artifact_sets import Artifacts

FIRST = Artifacts(good=frozenset({("10.1", "a.example", "crossref")}), prefixes=frozenset({("10.1", "crossref")}))
PARTS = ("report", "members.jsonl.gz")


def exported(directory, *days):
    """Versions of these November days, each with a report folder and a members file beside its artifact files."""
    names = []
    for day in days:
        version = artifact_files.export(directory, FIRST, now=datetime(2026, 11, day, tzinfo=UTC))
        (version / "report").mkdir()
        (version / "report" / "index.html").write_text("<p>report</p>")
        (version / "members.jsonl.gz").write_bytes(b"data")
        names.append(version.name)
    return names


def files(directory, name):
    return sorted(path.name for path in (directory / "versions" / name).iterdir())


def test_the_named_versions_lose_their_report_and_keep_their_artifact_files(tmp_path):
    names = exported(tmp_path, 1, 2, 3)
    top = (tmp_path / "prefixes-domains.csv").read_text()
    assert artifact_files.remove_beside(tmp_path, names[:2], PARTS) == names[:2]
    own = sorted(artifact_files.KEPT)
    assert [files(tmp_path, name) for name in names] == [own, own, sorted([*own, *PARTS])]
    assert [artifact_files.load_version(tmp_path / "versions" / name).good for name in names] == [FIRST.good] * 3
    assert (tmp_path / "prefixes-domains.csv").read_text() == top


def test_a_version_without_a_report_left_is_not_counted_again(tmp_path):
    names = exported(tmp_path, 1)
    artifact_files.remove_beside(tmp_path, names, PARTS)
    assert artifact_files.remove_beside(tmp_path, names, PARTS) == []


def test_an_artifact_file_or_a_path_is_never_a_part_to_remove(tmp_path):
    names = exported(tmp_path, 1)
    with pytest.raises(ValueError, match="never removed: prefixes-domains.csv"):
        artifact_files.remove_beside(tmp_path, names, ["report", "prefixes-domains.csv"])
    with pytest.raises(ValueError, match="not paths"):
        artifact_files.remove_beside(tmp_path, names, ["../report"])
    assert files(tmp_path, names[0])[-1] == "report"


def test_a_name_that_is_no_version_directory_is_skipped(tmp_path):
    names = exported(tmp_path, 1)
    (tmp_path / "versions" / "notes.txt").write_text("kept")
    assert artifact_files.remove_beside(tmp_path, ["notes.txt", "..", "20261101T000000Z-9"], PARTS) == []
    assert [p.name for p in artifact_files.versions(tmp_path)] == names


def test_a_removal_a_crash_interrupted_is_finished_by_the_next_call(tmp_path):
    names = exported(tmp_path, 1, 2)
    (tmp_path / ".removing-20261001T000000Z-report").mkdir()  # moved out of its version, then the process died
    (tmp_path / ".removing-20261001T000000Z-report" / "index.html").write_text("<p>old</p>")
    (tmp_path / ".removing-20261001T000000Z-members.jsonl.gz").write_bytes(b"old")
    artifact_files.remove_beside(tmp_path, names[:1], PARTS)
    assert list(tmp_path.glob(".removing-*")) == []


def test_without_a_versions_directory_nothing_happens(tmp_path):
    assert artifact_files.remove_beside(tmp_path / "none", ["20261101T000000Z"], PARTS) == []
