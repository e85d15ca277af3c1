"""landing.artifacts.artifact_files.remove_versions: the retention's deletes of version directories."""

from datetime import UTC, datetime

from landing.artifacts import artifact_files
from landing.core.publishing.artifact_sets import Artifacts

FIRST = Artifacts(good=frozenset({("10.1", "a.example", "crossref")}), prefixes=frozenset({("10.1", "crossref")}))


def exported(directory, *days):
    return [artifact_files.export(directory, FIRST, now=datetime(2026, 11, day, tzinfo=UTC)).name for day in days]


def test_the_named_versions_go_and_the_others_and_the_top_level_copy_stay(tmp_path):
    names = exported(tmp_path, 1, 2, 3)
    top = (tmp_path / "prefixes-domains.csv").read_text()
    assert artifact_files.remove_versions(tmp_path, names[:2]) == names[:2]
    assert ([p.name for p in artifact_files.versions(tmp_path)], (tmp_path / "prefixes-domains.csv").read_text()) == (
        names[2:],
        top,
    )


def test_a_name_that_is_no_version_directory_is_skipped(tmp_path):
    names = exported(tmp_path, 1)
    (tmp_path / "versions" / "notes.txt").write_text("kept")
    assert artifact_files.remove_versions(tmp_path, ["notes.txt", "..", "20261101T000000Z-9"]) == []
    assert [p.name for p in artifact_files.versions(tmp_path)] == names


def test_a_removal_a_crash_interrupted_is_finished_by_the_next_call(tmp_path):
    names = exported(tmp_path, 1, 2)
    (tmp_path / ".removing-20261001T000000Z").mkdir()  # moved out of versions/, then the process died
    (tmp_path / ".removing-20261001T000000Z" / "changes.json").write_text("{}")
    artifact_files.remove_versions(tmp_path, names[:1])
    assert (list(tmp_path.glob(".removing-*")), [p.name for p in artifact_files.versions(tmp_path)]) == ([], names[1:])


def test_without_a_versions_directory_nothing_happens(tmp_path):
    assert artifact_files.remove_versions(tmp_path / "none", ["20261101T000000Z"]) == []
