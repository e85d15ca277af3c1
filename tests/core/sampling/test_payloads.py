"""The shared frontier's JSON payloads (landing.core.sampling.payloads): a request's data round-trips, code never does."""

import pickle

import pytest
import scrapy

from landing.core.sampling.payloads import PayloadError, dumps, loads


def test_a_request_dict_comes_back_equal_with_bytes_headers_and_body():
    request = scrapy.Request(
        "https://doi.org/10.1/a",
        method="POST",
        headers={"Accept": "text/html", "X-Raw": b"\xe9\x00"},
        body=b"\x00\xff binary",
        meta={"pid": {"pid/doi": "10.1/a"}, "visit": ["run", 3, 7], "landing_shared": "run/0000003/0007"},
        priority=-7,
        dont_filter=True,
        flags=["shared"],
        cb_kwargs={"n": 1},
    ).to_dict()
    assert loads(dumps(request)) == request


def test_a_pickle_is_refused_not_unpickled():
    class Boom:
        def __reduce__(self):
            return (pytest.fail, ("the payload was unpickled",))

    with pytest.raises(PayloadError, match="not a JSON request payload"):
        loads(pickle.dumps({"url": "https://doi.org/10.1/a", "meta": Boom()}))


def test_a_payload_naming_a_request_class_is_refused():
    with pytest.raises(PayloadError, match="would load code"):
        loads('{"landing": 1, "url": "https://doi.org/10.1/a", "_class": "os.system"}')


@pytest.mark.parametrize("callback", ["__class__", "_final", "os.system", 3])
def test_a_callback_that_is_not_a_public_method_name_is_refused(callback):
    payload = dumps({"url": "https://doi.org/10.1/a", "callback": callback})
    with pytest.raises(PayloadError, match="is not a public method name"):
        loads(payload)


def test_json_of_another_version_is_refused():
    with pytest.raises(PayloadError, match="version 1"):
        loads('{"url": "https://doi.org/10.1/a"}')


def test_meta_json_cannot_carry_is_named_when_dumping():
    with pytest.raises(PayloadError, match=r"meta keys \['navigation'\]"):
        dumps({"url": "https://doi.org/10.1/a", "meta": {"pid": {}, "navigation": object()}})


def test_a_request_subclass_is_refused_when_dumping():
    with pytest.raises(PayloadError, match="only plain scrapy.Request"):
        dumps(scrapy.FormRequest("https://example.org/", formdata={"a": "b"}).to_dict())
