"""`scrapy match` refuses bad settings up front, as `scrapy crawl` does."""
from tests.sampler.crawling import Stores


def test_a_bad_setting_is_named_with_exit_code_2_and_no_traceback(tmp_path):
    done = Stores(tmp_path).scrapy("match", "https://example.org/article/1", overrides=[
        "-s", "LANDING_RESOLVER_ROBOTS=maybe", "-s", "LANDING_MATCH_CONCURRENCY=many"])
    assert done.returncode == 2
    assert "LANDING_RESOLVER_ROBOTS='maybe': use ignore or obey" in done.stderr
    assert "LANDING_MATCH_CONCURRENCY='many' is not a number" in done.stderr
    assert "Traceback" not in done.stderr
