"""landing.crawl.hosts: a request whose host is no hostname is refused before it is made, and counted."""

import pytest
from scrapy import Request
from scrapy.statscollectors import MemoryStatsCollector
from scrapy.utils.test import get_crawler

from landing.crawl.hosts import HostnameMiddleware, InvalidHost


@pytest.fixture
def middleware():
    return HostnameMiddleware.from_crawler(get_crawler(settings_dict={"STATS_CLASS": MemoryStatsCollector}))


@pytest.mark.parametrize(
    "url", ["https://a\x1bcred.evil.example/p", "https://a\u202eb.evil.example/", "http://$a__b$.evil.example/"]
)
def test_a_request_to_a_host_that_is_no_hostname_is_refused_and_counted(middleware, url):
    with pytest.raises(InvalidHost) as refused:
        middleware.process_request(Request(url))
    assert (refused.value.url, middleware.stats.get_value("landing/refused/invalid-host")) == (url, 1)


def test_the_refusal_names_the_url_in_ascii_so_a_log_line_carries_no_control_character():
    message = str(InvalidHost("https://a\x1bcred.evil.example/p"))
    assert message == "refused: 'https://a\\x1bcred.evil.example/p' names no valid hostname (invalid-host)"


@pytest.mark.parametrize(
    "url", ["https://journals.plos.org/plosone/", "https://xn--bcher-kva.example/a", "http://192.0.2.1/", "data:,x"]
)
def test_a_request_to_a_hostname_an_address_or_no_host_at_all_goes_on(middleware, url):
    assert middleware.process_request(Request(url)) is None
    assert middleware.stats.get_value("landing/refused/invalid-host") is None
