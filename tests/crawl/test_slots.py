"""landing.crawl.slots: ServiceSlotsMiddleware keeps AutoThrottle off the download slots named in DOWNLOAD_SLOTS."""
from scrapy.http import Request
from scrapy.spiders import Spider
from scrapy.utils.test import get_crawler

import landing.settings
from landing.crawl import slots

PROJECT = {name: getattr(landing.settings, name) for name in dir(landing.settings) if name.isupper()}
PID = {"pid/doi": "10.1234/abc"}


def crawler(**settings):
    made = get_crawler(settings_dict={**PROJECT, **settings})
    made.spider = Spider.from_crawler(made, name="test")
    return made


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
