"""landing.config refuses, before a crawl, a LANDING_* name that is no setting and an output it cannot write."""

from landing.config import problems
from tests.configuring import settings_under as _settings


def test_a_setting_name_that_is_no_setting_is_a_problem_naming_the_nearest(tmp_path):
    assert problems(_settings(tmp_path, LANDING_SAMPEL_MIN="1")) == [
        "LANDING_SAMPEL_MIN is no setting: did you mean LANDING_SAMPLE_MIN?"
    ]


def test_the_fetch_settings_former_name_is_a_problem_naming_its_new_one(tmp_path):
    assert problems(_settings(tmp_path, LANDING_MATCH_FETCH_TEXT="all")) == [
        "LANDING_MATCH_FETCH_TEXT is no setting: did you mean LANDING_MATCH_FETCH?"
    ]


def test_an_artifacts_directory_a_crawl_never_writes_to_is_not_checked(tmp_path):
    (tmp_path / "f").write_text("")
    unused = _settings(tmp_path, LANDING_ARTIFACTS_DIR=str(tmp_path / "f" / "a"), LANDING_EXPORT_ON_CLOSE=False)
    assert problems(unused) == []


def test_a_near_miss_of_a_credential_in_the_environment_is_a_problem(tmp_path, monkeypatch):
    monkeypatch.setenv("LANDING_DOCS_PASWORD", "x")
    monkeypatch.setenv("LANDING_TEST_EUID", "1000")  # a tool's variable, near no setting: left alone
    assert problems(_settings(tmp_path)) == [
        "LANDING_DOCS_PASWORD (in the environment) is no setting: did you mean LANDING_DOCS_PASSWORD?"
    ]


def test_every_output_directory_that_cannot_be_written_is_a_problem(tmp_path):
    # Tests run as root, whom permission bits do not stop: a directory under a regular file cannot be made by anyone.
    (tmp_path / "f").write_text("")
    found = problems(
        _settings(
            tmp_path,
            LANDING_ARTIFACTS_DIR=str(tmp_path / "f" / "a"),
            LANDING_UNWRITTEN_DIR=str(tmp_path / "f"),
        )
    )
    assert found == [
        f"LANDING_ARTIFACTS_DIR: cannot write in '{tmp_path}/f/a' (Not a directory)",
        f"LANDING_UNWRITTEN_DIR: cannot write in '{tmp_path}/f' (a file is in its place)",
    ]


def test_a_setting_that_became_a_constant_is_a_problem_naming_the_constant(tmp_path):
    assert problems(_settings(tmp_path, LANDING_PLAN_MINUTES="1", LANDING_HEALTH_EXPORT_HOURS="48")) == [
        "LANDING_PLAN_MINUTES is no setting any more: a constant (PLAN_MINUTES = 60.0 in landing/tuning.py) that no "
        "operator needs to change",
        "LANDING_HEALTH_EXPORT_HOURS is no setting any more: the export check fails after twice LANDING_EXPORT_EVERY",
    ]


def test_the_version_retention_and_early_export_settings_are_problems_naming_what_replaced_them(tmp_path):
    assert problems(_settings(tmp_path, LANDING_KEEP_VERSIONS_DAYS="30", TUNING_EXPORT_CHANGES="100")) == [
        "LANDING_KEEP_VERSIONS_DAYS is no setting any more: every version's artifact files are kept; "
        "LANDING_KEEP_REPORTS_DAYS keeps their reports",
        "TUNING_EXPORT_CHANGES is no setting any more: versions come only on LANDING_EXPORT_EVERY's fixed times of the "
        "clock, never sooner",
    ]


def test_a_tuning_name_that_is_no_constant_is_a_problem_naming_the_nearest(tmp_path):
    assert problems(_settings(tmp_path, TUNING_PLAN_MINUTE="1")) == [
        "TUNING_PLAN_MINUTE is no setting: did you mean TUNING_PLAN_MINUTES?"
    ]


def test_a_constant_is_its_value_in_the_config_unless_a_tuning_setting_sets_it(tmp_path):
    from landing import tuning
    from landing.config import of_settings

    assert of_settings(_settings(tmp_path)).plan_minutes == tuning.PLAN_MINUTES == 60.0
    assert of_settings(_settings(tmp_path, TUNING_PLAN_MINUTES="1")).plan_minutes == 1.0
    assert problems(_settings(tmp_path, TUNING_PLAN_MINUTES="0")) == ["TUNING_PLAN_MINUTES='0' must be more than 0"]


def test_the_export_check_waits_twice_the_export_interval(tmp_path):
    from landing.config import of_settings

    assert of_settings(_settings(tmp_path)).health_export_hours == 48.0
    assert of_settings(_settings(tmp_path, LANDING_EXPORT_EVERY="6")).health_export_hours == 12.0
