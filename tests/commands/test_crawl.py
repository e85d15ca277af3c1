"""`scrapy crawl doi_sampler` refuses bad settings up front and fails loudly when nothing could be sampled."""
import socket

from tests.spiders.crawling import Stores


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again on exit: nothing listens there


def test_bad_settings_are_each_named_with_exit_code_2_and_no_traceback(tmp_path):
    done = Stores(tmp_path).scrapy("crawl", "doi_sampler", overrides=[
        "-s", "LANDING_SOURCES=crossref,orcid", "-s", "LANDING_SAMPLE_MAX=lots", "-s", "LANDING_RESOLVER_ROBOTS=maybe"])
    assert done.returncode == 2
    assert "LANDING_SOURCES='crossref,orcid': name one or both of crossref,datacite" in done.stderr
    assert "LANDING_SAMPLE_MAX='lots' is not a number" in done.stderr
    assert "LANDING_RESOLVER_ROBOTS='maybe': use ignore or obey" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_crawl_that_cannot_reach_the_apis_exits_1_and_says_why(tmp_path):
    done = Stores(tmp_path).scrapy("crawl", "doi_sampler", overrides=[
        "-s", f"LANDING_SANDBOX=http://127.0.0.1:{_closed_port()}", "-s", "RETRY_TIMES=0",
        "-s", "TELNETCONSOLE_ENABLED=False"])
    assert done.returncode == 1
    assert "crawl: no DOI could be sampled; 2 API requests failed" in done.stderr
