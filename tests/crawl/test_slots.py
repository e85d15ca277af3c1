"""landing.crawl.slots: ServiceSlotsMiddleware keeps AutoThrottle off the download slots named in DOWNLOAD_SLOTS."""

from scrapy.http import Request

from landing.crawl import slots
from tests.crawl.project import crawler

PID = {"pid/doi": "10.1234/abc"}


def _service_slots():
    return slots.ServiceSlotsMiddleware.from_crawler(crawler())


def test_a_resolver_request_is_kept_out_of_autothrottle():
    request = Request("https://doi.org/10.1234/abc", meta={"pid": PID})
    _service_slots().process_request(request)
    assert request.meta["autothrottle_dont_adjust_delay"] is True


def test_a_publisher_hop_that_inherited_the_flag_is_throttled_again():
    request = Request("https://www.publisher.example/article/1", meta={"autothrottle_dont_adjust_delay": True})
    _service_slots().process_request(request)
    assert "autothrottle_dont_adjust_delay" not in request.meta


def test_a_request_in_a_named_slot_of_download_slots_is_kept_out_of_autothrottle():
    request = Request("https://api.datacite.org/dois", meta={"download_slot": "api.crossref.org"})
    _service_slots().process_request(request)
    assert request.meta["autothrottle_dont_adjust_delay"] is True
