"""landing.artifacts.artifact_files.compress_versions: old versions' artifact files gzipped in place, and every
reader reading them as before."""

from datetime import UTC, datetime

from landing.artifacts import artifact_files
from landing.core.publishing.artifact_format import FILENAMES
from landing.core.publishing.artifact_sets import Artifacts
from landing.match.loaded_artifact import read_decisions

PAIRS = Artifacts(
    good=frozenset({("10.1", "a.example", "crossref")}),
    bad=frozenset({("10.2", "b.example", "datacite")}),
    prefixes=frozenset({("10.1", "crossref"), ("10.2", "datacite")}),
    recognised=frozenset({("a.example", "10.1")}),
)


def exported(directory, *days):
    return [artifact_files.export(directory, PAIRS, now=datetime(2026, 11, day, tzinfo=UTC)) for day in days]


def test_a_compressed_version_holds_gz_files_only_and_loads_as_before(tmp_path):
    old, new = exported(tmp_path, 1, 2)
    before = artifact_files.load_version(old)
    assert artifact_files.compress_versions(tmp_path, [old.name]) == [old.name]
    assert sorted(path.name for path in old.iterdir()) == sorted(
        [artifact_files.CHANGES, *(f"{name}.gz" for name in FILENAMES)]
    )
    assert artifact_files.load_version(old) == before == artifact_files.load_version(new)
    assert artifact_files.versions(tmp_path) == [old, new]


def test_a_compressed_files_text_is_the_plain_files_byte_for_byte(tmp_path):
    (old,) = exported(tmp_path, 1)
    texts = {name: (old / name).read_text("utf-8") for name in FILENAMES}
    artifact_files.compress_versions(tmp_path, [old.name])
    assert {name: artifact_files.text_of(old / f"{name}.gz") for name in FILENAMES} == texts


def test_the_matcher_reads_a_compressed_versions_decisions(tmp_path):
    (old,) = exported(tmp_path, 1)
    plain = read_decisions(old / "domain-decision-structure.json")
    artifact_files.compress_versions(tmp_path, [old.name])
    assert read_decisions(old / "domain-decision-structure.json.gz").domains == plain.domains


def test_a_compression_a_crash_interrupted_reads_the_plain_file_and_is_finished_by_the_next_call(tmp_path):
    (old,) = exported(tmp_path, 1)
    (old / "prefixes-domains.csv.gz").write_bytes(b"half a gzip")  # written, then the process died
    assert artifact_files.load_version(old).good == PAIRS.good
    assert artifact_files.compress_versions(tmp_path, [old.name]) == [old.name]
    assert artifact_files.load_version(old).good == PAIRS.good
    assert not (old / "prefixes-domains.csv").exists()


def test_a_version_compressed_already_is_not_counted_again(tmp_path):
    (old,) = exported(tmp_path, 1)
    artifact_files.compress_versions(tmp_path, [old.name])
    assert artifact_files.compress_versions(tmp_path, [old.name, "..", "notes"]) == []
