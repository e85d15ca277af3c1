from datetime import UTC, datetime, timedelta

import pytest

from landing.core.continuous.retention import (
    doi_to_drop,
    ledger_to_drop,
    reports_to_delete,
    snapshots_to_drop,
    version_time,
)

NOW = datetime(2026, 11, 25, 12, tzinfo=UTC)


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y%m%dT%H%M%SZ")  # as landing/artifacts/artifact_files.py names a version


def test_the_report_of_every_version_younger_than_keep_days_is_kept():
    names = [_stamp(NOW - timedelta(days=days, hours=1)) for days in range(30)]
    assert reports_to_delete(names, NOW, keep_days=30).delete == ()


def test_of_older_versions_only_the_last_of_each_month_keeps_its_report():
    names = [_stamp(datetime(2026, month, day, 6, tzinfo=UTC)) for month in (7, 8) for day in (1, 15)]
    names += ["20260831T235959Z", "20260831T235959Z-1"]
    found = reports_to_delete(names, NOW, keep_days=30)
    assert found.keep == ("20260715T060000Z", "20260831T235959Z-1")
    assert found.delete == ("20260701T060000Z", "20260801T060000Z", "20260815T060000Z", "20260831T235959Z")


def test_the_latest_versions_report_is_never_deleted():
    names = [_stamp(NOW - timedelta(hours=2)), _stamp(NOW - timedelta(hours=1))]
    found = reports_to_delete(names, NOW, keep_days=0)
    assert (found.keep, found.delete) == ((names[1],), (names[0],))


def test_a_directory_that_is_not_a_version_is_reported_and_never_touched():
    found = reports_to_delete(["20250101T000000Z", "20250102T000000Z", "notes", ".tmp"], NOW, keep_days=30)
    assert (found.unrecognised, "notes" in found.delete) == ((".tmp", "notes"), False)


def test_a_same_second_version_sorts_after_its_stamp():
    assert version_time("20261124T100251Z-3") == version_time("20261124T100251Z")
    found = reports_to_delete(["20250101T000000Z-2", "20250101T000000Z-10", "20250101T000000Z"], NOW, 0)
    assert found.keep == ("20250101T000000Z-10",)


def _snap(day, domain="a.example", error=None, correctness="ok", driver="http", doi="10.1/a"):
    return {
        "pid/doi": doi,
        "snapshot/driver": driver,
        "snapshot/timestamp": f"2026-10-{day:02}T08:00:00Z",
        "snapshot/final-url-domain": domain,
        "snapshot/error": error,
        "analysis/meta-tag-correctness": correctness,
    }


def _ids(*days, driver="http"):
    return [f"10.1/a {driver} 2026-10-{day:02}" for day in days]


def test_the_last_n_snapshots_of_an_unchanging_doi_are_kept_and_the_first():
    history = [_snap(day) for day in range(1, 11)]
    assert snapshots_to_drop(history, keep_last=3) == _ids(2, 3, 4, 5, 6, 7)


def test_a_snapshot_that_changed_domain_is_kept_past_n():
    history = [_snap(day, "old.example" if day < 4 else "new.example") for day in range(1, 11)]
    assert _ids(4)[0] not in snapshots_to_drop(history, keep_last=2)


def test_a_snapshot_that_changed_failure_class_or_correctness_is_kept_past_n():
    history = [_snap(d) for d in (1, 2)] + [_snap(3, error="http-5xx", correctness=None), _snap(4, error="timeout")]
    history += [_snap(5, correctness="missing"), _snap(6, correctness="missing"), _snap(7, correctness="missing")]
    assert snapshots_to_drop(history, keep_last=1) == _ids(2, 6)


def test_the_snapshot_reports_count_is_kept_when_later_visits_fail():
    history = [_snap(1), _snap(2), _snap(3, error="timeout", correctness=None), _snap(4, "a.example", "timeout", None)]
    history += [_snap(5, error="timeout", correctness=None)]
    assert snapshots_to_drop(history, keep_last=1) == _ids(4)


def test_the_browser_after_http_on_the_same_day_is_no_change_on_either_driver():
    history = []
    for day in range(1, 6):
        history += [_snap(day, error="js-required", correctness=None), _snap(day, driver="browser")]
    assert sorted(snapshots_to_drop(history, keep_last=2)) == sorted(_ids(2, 3, 4) + _ids(2, 3, 4, driver="browser"))


def test_snapshots_of_two_dois_at_once_are_refused_with_a_message():
    with pytest.raises(ValueError, match="snapshots of one DOI at a time, not of 2: 10.1/a, 10.1/b"):
        snapshots_to_drop([_snap(1), _snap(2, doi="10.1/b")], keep_last=1)


def test_a_snapshot_without_a_timestamp_is_refused_with_a_message():
    with pytest.raises(ValueError, match="a snapshot of '10.1/a' has no snapshot/timestamp: None"):
        snapshots_to_drop([{**_snap(1), "snapshot/timestamp": None}], keep_last=1)


def _stored(*docs):
    return {f"{doc['pid/doi']} {doc['snapshot/driver']} {doc['snapshot/timestamp'][:10]}": doc for doc in docs}


def _bare(doc):
    """The snapshot document of an analysis: no page correctness."""
    return {key: value for key, value in doc.items() if not key.startswith("analysis/")}


def test_an_analysis_stands_for_its_snapshot_so_a_meta_tag_change_is_kept():
    analyses = _stored(*(_snap(day, correctness="ok" if day < 3 else "missing") for day in range(1, 6)))
    snapshots = {doc_id: _bare(doc) for doc_id, doc in analyses.items()}
    assert sorted(doi_to_drop(snapshots, analyses, keep_last=1)) == _ids(2, 4)


def test_a_snapshot_without_its_analysis_still_counts_in_the_history():
    analyses = _stored(*(_snap(day) for day in range(1, 4)))
    snapshots = {**{doc_id: _bare(doc) for doc_id, doc in analyses.items()}, **_stored(_bare(_snap(4)))}
    assert sorted(doi_to_drop(snapshots, analyses, keep_last=1)) == _ids(2)


def test_the_analysis_reports_count_is_kept_when_a_later_snapshot_has_no_analysis():
    analyses = _stored(_snap(1), _snap(2), _snap(3))
    later = _stored(*(_bare(_snap(day)) for day in (4, 5)))  # reached a page, not analysed (yet)
    snapshots = {**{doc_id: _bare(doc) for doc_id, doc in analyses.items()}, **later}
    # Reports read analyses only: they count day 3. Day 5 is the last, day 4 a change (no correctness).
    assert sorted(doi_to_drop(snapshots, analyses, keep_last=1)) == _ids(2)


def test_a_document_not_under_the_id_its_fields_make_is_refused_with_a_message():
    with pytest.raises(ValueError, match="a document of '10.1/a' is stored as 'x', not as '10.1/a http 2026-10-01'"):
        doi_to_drop({"x": _snap(1)}, {}, keep_last=1)


LEDGER = [
    "continuous/0000000",
    "continuous/0000000/0000",
    "continuous/0000003",
    "continuous/0000003/0001",
    "continuous/0000005/0000",
    "continuous/0000007",
    "other/0000000",
    "continuous/notes",
]


def test_ledger_ids_of_closed_rounds_are_dropped_those_of_open_rounds_and_past_the_owners_kept():
    opened = [{"from": 3, "to": 4}, {"from": 5, "to": 6}]
    assert ledger_to_drop(LEDGER, "continuous", opened, owners=7) == ["continuous/0000000", "continuous/0000000/0000"]


def test_with_no_open_round_every_ledger_id_of_the_run_before_its_owners_is_dropped():
    assert ledger_to_drop(LEDGER, "continuous", [], owners=6) == LEDGER[:5]
