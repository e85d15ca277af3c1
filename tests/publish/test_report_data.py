"""landing.publish.report_data and lookup: the report's data and the alerts written beside each version, and one
member's alert read back (`scrapy report --member`)."""

import csv
import gzip
import json
import logging
from pathlib import Path

import pytest

from landing.artifacts.artifact_files import ArtifactError
from landing.commands.report import print_member
from landing.core.pages import documents
from landing.publish import publish
from landing.publish.member_alert import MemberNotFound, member_alert
from landing.publish.report_data import ALERTS, ALERTS_CSV, DOMAINS, MEMBERS, read_jsonl_gz, write_jsonl_gz
from tests.publish.test_publish import DAY2, PLOS, TIMEOUT, ZENODO, store, visit


@pytest.fixture
def docs(tmp_path):
    made = store(tmp_path / "docs.db", PLOS, ZENODO, TIMEOUT)
    yield made
    made.close()


def _version(docs, artifacts) -> Path:
    return Path(publish(docs, artifacts, report=False)["version"])


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_version_holds_the_members_domains_and_alerts_files_and_no_temp_file(docs, tmp_path):
    version = _version(docs, tmp_path / "artifacts")
    assert sorted(p.name for p in version.iterdir() if not p.name.startswith(("prefixes", "domain-"))) == [
        ALERTS_CSV,
        ALERTS,
        "changes.json",
        DOMAINS,
        MEMBERS,
    ]


def test_the_members_file_holds_one_object_per_member_sorted(docs, tmp_path):
    version = _version(docs, tmp_path / "artifacts")
    assert [m["member"] for m in read_jsonl_gz(version / MEMBERS, "member")] == [
        "crossref/340",
        "crossref/7",
        "datacite/cern.zenodo",
    ]


def test_the_same_store_gives_byte_identical_members_and_domains_files(docs, tmp_path):
    first, second = _version(docs, tmp_path / "artifacts"), _version(docs, tmp_path / "artifacts")
    assert [(first / n).read_bytes() for n in (MEMBERS, DOMAINS)] == [
        (second / n).read_bytes() for n in (MEMBERS, DOMAINS)
    ]


def test_the_alerts_name_what_to_fix_in_json_lines_and_a_mail_merge_csv(docs, tmp_path):
    version = _version(docs, tmp_path / "artifacts")
    alerts = _lines(version / ALERTS)
    with open(version / ALERTS_CSV, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert ([(a["member"], a["previous"]) for a in alerts], [r[:1] + r[3:] for r in rows]) == (
        [("crossref/7", None), ("datacite/cern.zenodo", None)],
        [["member", "body"], ["crossref/7", alerts[0]["summary"]], ["datacite/cern.zenodo", alerts[1]["summary"]]],
    )


def test_the_next_versions_alert_names_a_failure_new_since_the_previous_version(tmp_path):
    artifacts = tmp_path / "artifacts"
    docs = store(tmp_path / "docs.db", PLOS, ZENODO)
    first = _version(docs, artifacts)
    failed = visit("10.1371/journal.pone.2", "crossref", "340", "https://journals.plos.org/x", "http-5xx", when=DAY2)
    docs.put("analysis", documents.analysis_id(failed), failed)
    second = _version(docs, artifacts)
    docs.close()
    alert = _lines(second / ALERTS)[0]
    assert (alert["member"], alert["previous"], alert["worse"]["new-failures"]) == (
        "crossref/340",
        first.name,
        [{"domain": "journals.plos.org", "class": "http-5xx", "dois": 1}],
    )


def test_a_damaged_previous_members_file_is_logged_and_the_alerts_are_made_without_it(docs, tmp_path, caplog):
    artifacts = tmp_path / "artifacts"
    first = _version(docs, artifacts)
    (first / MEMBERS).write_bytes(b"not gzip")
    with caplog.at_level(logging.WARNING, logger="landing.publish.report_data"):
        second = _version(docs, artifacts)
    assert ([a["previous"] for a in _lines(second / ALERTS)], caplog.messages) == (
        [None, None],
        [f"The alerts of {second.name} are not compared with the previous version: {first / MEMBERS}: after line 0: "
         "Not a gzipped file (b'no')"],
    )  # fmt: skip


def test_a_members_file_out_of_order_is_corrupt_naming_its_line(tmp_path):
    path = tmp_path / MEMBERS
    write_jsonl_gz(path, [{"member": "b"}, {"member": "a"}])
    with pytest.raises(ArtifactError, match=r"members.jsonl.gz: line 2: not sorted by 'member'"):
        list(read_jsonl_gz(path, "member"))


def test_a_members_file_is_gzip_with_no_time_in_its_header(tmp_path):
    path = tmp_path / MEMBERS
    write_jsonl_gz(path, [{"member": "a"}])
    assert (path.read_bytes()[4:8], gzip.decompress(path.read_bytes())) == (b"\0\0\0\0", b'{"member":"a"}\n')


def test_a_member_is_found_by_its_id_alone_when_one_agency_uses_it(docs, tmp_path):
    _version(docs, tmp_path / "artifacts")
    member, found, _, page = member_alert(tmp_path / "artifacts", "cern.zenodo")
    assert (member["member"], found["member"], page) == (
        "datacite/cern.zenodo",
        "datacite/cern.zenodo",
        tmp_path / "artifacts" / "report" / "members" / "datacite-cern.zenodo.html",
    )


def test_an_id_both_agencies_use_is_refused_naming_both(tmp_path):
    docs = store(tmp_path / "docs.db", PLOS, visit("10.5281/z", "datacite", "340", "https://z.example/1"))
    _version(docs, tmp_path / "artifacts")
    docs.close()
    with pytest.raises(MemberNotFound, match=r"'340' matches 2 members: crossref/340, datacite/340; give one as"):
        member_alert(tmp_path / "artifacts", "340")


def test_an_unknown_member_or_no_version_is_said_in_one_line_with_status_2(docs, tmp_path, capsys):
    statuses = [print_member(tmp_path / "artifacts", "crossref/340")]
    _version(docs, tmp_path / "artifacts")
    statuses.append(print_member(tmp_path / "artifacts", "crossref/1"))
    assert (statuses, capsys.readouterr().err.splitlines()) == (
        [2, 2],
        [
            f"report: no artifact version under {tmp_path / 'artifacts'} has members.jsonl.gz: export one (scrapy "
            "artifacts)",
            f"report: no member 'crossref/1' in version {_version_name(tmp_path)}: give a name, or crossref/<id> or "
            "datacite/<id>",
        ],
    )


def _version_name(tmp_path) -> str:
    return next((tmp_path / "artifacts" / "versions").iterdir()).name


def test_a_member_with_nothing_to_fix_is_printed_so_with_its_page(docs, tmp_path, capsys):
    _version(docs, tmp_path / "artifacts")
    assert (print_member(tmp_path / "artifacts", "crossref/340"), capsys.readouterr().out.splitlines()) == (
        0,
        [
            f"Crossref member 340, version {_version_name(tmp_path)}:",
            "nothing to fix, and nothing got worse since the previous version.",
            f"page: {tmp_path / 'artifacts' / 'report' / 'members' / 'crossref-340.html'}",
        ],
    )
