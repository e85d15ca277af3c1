"""`scrapy crawl doi_sampler` refuses bad settings up front and fails loudly when its run could not do its work."""

import socket

from tests.sampler.crawling import Stores


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again on exit: nothing listens there


def test_bad_settings_are_each_named_with_exit_code_2_and_no_traceback(tmp_path):
    done = Stores(tmp_path).try_crawl(
        overrides=[
            "-s",
            "LANDING_SOURCES=crossref,orcid",
            "-s",
            "LANDING_SAMPLE_MAX=lots",
            "-s",
            "LANDING_RESOLVER_ROBOTS=maybe",
        ],
    )
    assert done.returncode == 2
    assert "LANDING_SOURCES='crossref,orcid': name one or both of crossref,datacite" in done.stderr
    assert "LANDING_SAMPLE_MAX='lots' is not a number" in done.stderr
    assert "LANDING_RESOLVER_ROBOTS='maybe': use ignore or obey" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_crawl_that_cannot_reach_the_apis_exits_1_and_says_why(tmp_path):
    done = Stores(tmp_path).try_crawl(
        overrides=[
            "-s",
            f"LANDING_SANDBOX=http://127.0.0.1:{_closed_port()}",
            "-s",
            "RETRY_TIMES=0",
            "-s",
            "TELNETCONSOLE_ENABLED=False",
        ],
    )
    assert done.returncode == 1
    assert (
        "crawl: 2 listing requests failed, so only the owners listed were planned and the run stays open: run the "
        "same command again to list the rest"
    ) in done.stderr


def test_jobdir_is_refused_because_the_run_resumes_from_the_store(tmp_path):
    done = Stores(tmp_path).try_crawl(overrides=["-s", f"JOBDIR={tmp_path / 'job'}"])
    assert done.returncode == 2
    assert "JOBDIR=" in done.stderr and "the same command resumes the run from LANDING_DOCS" in done.stderr


def test_a_finished_run_named_again_is_refused_with_exit_1(tmp_path):
    from landing.core.sampling.runs import run_doc
    from landing.stores import open_docs

    stores = Stores(tmp_path)
    with open_docs(stores.docs) as docs:
        docs.put(
            "run",
            "monthly",
            {**run_doc("monthly", "2026-01-01T00:00:00Z", ["crossref"], 10, 100), "run/state": "finished"},
        )
    done = stores.try_crawl(overrides=["-s", "LANDING_RUN=monthly", "-s", "TELNETCONSOLE_ENABLED=False"])
    assert done.returncode == 1
    assert (
        "crawl: the run's state in LANDING_DOCS could not be read or recorded: run 'monthly' is finished" in done.stderr
    )


def test_a_mailto_that_is_not_an_email_address_is_refused_with_exit_2(tmp_path):
    done = Stores(tmp_path).try_crawl(overrides=["-s", "LANDING_MAILTO=notanemail"])
    assert done.returncode == 2
    assert "LANDING_MAILTO='notanemail' is not an email address: " in done.stderr
    assert "Traceback" not in done.stderr


def test_a_crawl_of_the_real_crossref_api_without_mailto_warns_that_it_is_in_the_public_pool(tmp_path):
    # Not a sandbox: the API is named directly (a closed local port, refused by the address guard: no internet).
    done = Stores(tmp_path).try_crawl(
        overrides=[
            "-s",
            f"LANDING_CROSSREF_API=http://127.0.0.1:{_closed_port()}",
            "-s",
            "LANDING_SOURCES=crossref",
            "-s",
            "RETRY_TIMES=0",
            "-s",
            "TELNETCONSOLE_ENABLED=False",
        ],
    )
    assert done.returncode == 1
    assert (
        "WARNING: LANDING_MAILTO is not set: Crossref answers this crawler from its public pool, at 1 request a "
        "second instead of 3; set -s LANDING_MAILTO=you@example.org"
    ) in done.stderr


def test_a_misspelt_setting_is_refused_with_the_setting_it_was_meant_to_be(tmp_path):
    done = Stores(tmp_path).try_crawl(overrides=["-s", "LANDING_SAMPEL_MIN=1"])
    assert done.returncode == 2
    assert "LANDING_SAMPEL_MIN is no setting: did you mean LANDING_SAMPLE_MIN?" in done.stderr
    assert "Traceback" not in done.stderr


# The smallest crawl that exports: samples of one DOI, through the plain client.
_ONE_DOI = (
    "-s",
    "LANDING_DRIVER=http",
    "-s",
    "LANDING_SOURCES=crossref",
    "-s",
    "LANDING_SAMPLE_MIN=1",
    "-s",
    "LANDING_SAMPLE_MAX=1",
)


def test_an_artifacts_directory_that_cannot_be_written_is_refused_before_any_request(small_sandbox, tmp_path):
    # Tests run as root, whom permission bits do not stop: a directory under a regular file cannot be made by anyone.
    (tmp_path / "a-file").write_text("")
    requests = []
    small_sandbox.server.log = requests.append
    try:
        done = Stores(tmp_path, artifacts=tmp_path / "a-file" / "artifacts").try_crawl(small_sandbox.proxy, *_ONE_DOI)
    finally:
        small_sandbox.server.log = None
    assert done.returncode == 2
    assert f"LANDING_ARTIFACTS_DIR: cannot write in '{tmp_path}/a-file/artifacts' (Not a directory)" in done.stderr
    assert requests == []
    assert "Traceback" not in done.stderr


def test_an_export_that_fails_at_the_close_exits_1_and_says_why_in_one_line(small_sandbox, tmp_path):
    # The directory can be written, so the crawl runs; a file where the export makes its versions/ directory fails it.
    (tmp_path / "artifacts").mkdir()
    (tmp_path / "artifacts" / "versions").write_text("")
    done = Stores(tmp_path).try_crawl(small_sandbox.proxy, *_ONE_DOI)
    assert done.returncode == 1
    assert "'landing/snapshots': 1" in done.stderr
    [said] = [line for line in done.stderr.splitlines() if line.startswith("crawl: ")]
    assert said == (
        f"crawl: the artifacts were not exported: the export failed: cannot write the artifacts: not a directory: "
        f"{tmp_path}/artifacts/versions; what the crawl visited is stored, and `scrapy artifacts` exports it"
    )
    # One ERROR line from the project, no traceback (that goes to DEBUG).
    errors = [line for line in done.stderr.splitlines() if "[landing." in line and "] ERROR: " in line]
    assert [line.partition("] ERROR: ")[2] for line in errors] == [
        f"Artifacts not exported: the export failed: cannot write the artifacts: not a directory: "
        f"{tmp_path}/artifacts/versions"
    ]
    assert "PublishError" not in done.stderr


def test_a_run_stopped_by_a_closespider_limit_says_it_is_unfinished_and_exits_75(small_sandbox, tmp_path):
    done = Stores(tmp_path).try_crawl(small_sandbox.proxy, *_ONE_DOI, "-s", "CLOSESPIDER_ITEMCOUNT=1")
    assert "'finish_reason': 'closespider_itemcount'" in done.stderr
    assert done.returncode == 75
    assert (
        "crawl: stopped by CLOSESPIDER_ITEMCOUNT before its run was done; what it held is written, and the same "
        "command resumes the run"
    ) in done.stderr
