"""landing.crawl.slots: ServiceSlotsMiddleware keeps AutoThrottle off the download slots named in DOWNLOAD_SLOTS; and
the project's settings space a slot's requests exactly its delay apart (no jitter)."""

from scrapy.core.downloader import Slot, _default_jitter
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


def test_a_slot_built_from_the_project_settings_waits_exactly_its_delay_every_time():
    settings = crawler().settings
    slot = Slot(settings.getint("CONCURRENT_REQUESTS_PER_DOMAIN"), 0.1, _default_jitter(settings))
    assert {slot.download_delay() for _ in range(1000)} == {0.1}
