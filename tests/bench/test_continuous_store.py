"""What the continuous benchmark reads of a run's stores and logs."""

from bench.continuous_store import Served, intact
from landing.core.publishing.artifact_format import BAD_CSV, DECISIONS_JSON, GOOD_CSV


def test_the_sandbox_requests_are_counted_as_its_log_grows_a_complete_line_at_a_time(tmp_path):
    log = tmp_path / "serve.log"
    count = Served(log)
    assert count() == 0
    log.write_bytes(b"sandbox: serving w at http://x\nsandbox: GET https://doi.org/10.1/a -> 302\nsandbox: GET h")
    assert count() == 1
    with log.open("ab") as more:
        more.write(b"ttps://a.example/ -> 200\n")
    assert count() == 2


def test_a_version_is_kept_with_each_of_its_files_plain_or_compressed(tmp_path):
    for name in (GOOD_CSV, BAD_CSV):
        (tmp_path / name).write_text("")
    (tmp_path / f"{DECISIONS_JSON}.gz").write_bytes(b"")
    assert intact(tmp_path)
    (tmp_path / BAD_CSV).unlink()
    assert not intact(tmp_path)
