"""landing.artifacts.artifact_files: versioned, additive exports on disk."""

import sys
from datetime import UTC, datetime
from pathlib import Path

from landing.artifacts.artifact_files import CHANGES, export, line_counts, load_latest
from landing.core.publishing.artifact_format import FILENAMES, parse
from landing.core.publishing.artifact_sets import Artifacts, merge
from tests import forked

FIRST = Artifacts(
    good=frozenset({("10.1371", "journals.plos.org", "crossref")}),
    prefixes=frozenset({("10.1371", "crossref"), ("10.5555", "crossref")}),
    recognised=frozenset({("journals.plos.org", "10.1371")}),
    confirmed=frozenset({("journals.plos.org", "10.1371")}),
)
SECOND = Artifacts(
    good=frozenset({("10.5281", "zenodo.org", "datacite")}),
    bad=frozenset({("10.5555", "nodoi.example", "crossref")}),
    prefixes=frozenset({("10.5281", "datacite"), ("10.5555", "crossref")}),
    recognised=frozenset({("zenodo.org", "10.5281"), ("nodoi.example", "10.5555")}),
)
T1 = datetime(2026, 11, 22, 3, 15, 0, tzinfo=UTC)
T2 = datetime(2026, 11, 22, 4, 0, 0, tzinfo=UTC)


def read_version(version):
    return parse({name: (version / name).read_text() for name in FILENAMES})


def test_load_latest_of_an_empty_directory_is_empty(tmp_path):
    assert load_latest(tmp_path / "missing") == Artifacts()


def test_second_export_leaves_the_union_at_the_top(tmp_path):
    export(tmp_path, FIRST, now=T1)
    export(tmp_path, SECOND, now=T2)
    assert load_latest(tmp_path) == merge(FIRST, SECOND)


def test_each_export_writes_its_own_version_dir_and_both_parse(tmp_path):
    first = export(tmp_path, FIRST, now=T1)
    second = export(tmp_path, SECOND, now=T2)
    assert sorted(p.name for p in (tmp_path / "versions").iterdir()) == ["20261122T031500Z", "20261122T040000Z"]
    assert read_version(first) == FIRST
    assert read_version(second) == merge(FIRST, SECOND)


def test_exports_in_the_same_second_do_not_collide(tmp_path):
    first = export(tmp_path, FIRST, now=T1)
    second = export(tmp_path, SECOND, now=T1)
    assert (first.name, second.name) == ("20261122T031500Z", "20261122T031500Z-1")
    assert read_version(first) == FIRST
    assert read_version(second) == merge(FIRST, SECOND)


def test_exported_files_are_readable_by_everyone_not_only_the_crawls_user(tmp_path):
    version = export(tmp_path, FIRST, now=T1)
    modes = {oct((directory / name).stat().st_mode & 0o777) for directory in (tmp_path, version) for name in FILENAMES}
    assert modes == {"0o644"}


def test_no_temp_files_are_left_behind_only_the_lock_file(tmp_path):
    export(tmp_path, FIRST, now=T1)
    version = export(tmp_path, SECOND, now=T1)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*FILENAMES, "versions", ".lock"])
    assert sorted(p.name for p in version.iterdir()) == sorted([*FILENAMES, CHANGES])


def test_line_counts_of_the_top_level_files(tmp_path):
    export(tmp_path, merge(FIRST, SECOND), now=T1)
    counts = line_counts(tmp_path)
    assert counts["prefixes-domains.csv"] == 3
    assert counts["prefixes-domains-bad.csv"] == 1
    assert counts["domain-decision-structure.json"] == 32


def test_a_naive_now_is_taken_as_utc(tmp_path):
    assert export(tmp_path, FIRST, now=datetime(2026, 11, 22, 3, 15, 0)).name == "20261122T031500Z"


def test_line_counts_of_an_empty_directory_are_zero(tmp_path):
    assert line_counts(tmp_path) == {name: 0 for name in FILENAMES}


EXPORTER = """
import sys
from landing.artifacts.artifact_files import export
from landing.core.publishing.artifact_sets import Artifacts
directory, name = sys.argv[1], sys.argv[2]
for k in range(15):
    export(directory, Artifacts(prefixes=frozenset({(f"10.{name}{k}", "crossref")})))
"""


def test_exports_from_two_processes_at_once_keep_every_entry_at_the_top(tmp_path):
    repo = Path(__file__).resolve().parents[2]
    exporters = [forked.popen([sys.executable, "-c", EXPORTER, str(tmp_path), name], cwd=repo) for name in ("1", "2")]
    assert [exporter.wait(timeout=120) for exporter in exporters] == [0, 0]
    expected = {(f"10.{name}{k}", "crossref") for name in ("1", "2") for k in range(15)}
    assert (load_latest(tmp_path).prefixes, len(list((tmp_path / "versions").iterdir()))) == (expected, 30)
