"""landing.browser.driver with a real Chromium: what a visit records from pages that real sites serve."""

import pytest

from tests.browser.probe import needs_chromium, visit
from tests.local_http import serving

BUSY = (
    b"<html><head><title>Article</title></head><body><p>An article whose page never goes quiet.</p>"
    b"<script>setInterval(function () { fetch('/beacon?' + Date.now()); }, 100);</script></body></html>"
)


def _busy(path):
    if path == "/article":
        return 200, {"Content-Type": "text/html"}, BUSY
    return 200, {"Content-Type": "text/plain"}, b"ok"


@pytest.fixture
def busy_server():
    with serving(_busy) as (port, _):
        yield f"http://127.0.0.1:{port}"


@needs_chromium
def test_a_page_whose_network_never_goes_quiet_is_read_after_the_settle_time_not_failed(busy_server):
    url = f"{busy_server}/article"
    visits = visit([url], LANDING_ADDRESS_GUARD=False, LANDING_BROWSER_SETTLE=1.0)
    assert (visits[url]["how"], visits[url]["text"]) == ("visited", "An article whose page never goes quiet.")
    assert visits[url]["hops"] == [{"url": url, "status": 200}]


def test_every_browser_visit_blocks_service_workers():
    from landing.browser.driver import request_meta

    meta = request_meta({"pid/doi": "10.1234/a"}, sandbox=False, settle_ms=10)
    assert meta["playwright_context_kwargs"] == {"service_workers": "block"}


def test_chromium_is_given_the_locale_and_paths_of_the_environment_and_none_of_its_secrets():
    from landing.browser.driver import chromium_env

    environ = {
        "PATH": "/usr/bin",
        "HOME": "/root",
        "LANG": "C.UTF-8",
        "AWS_SECRET_ACCESS_KEY": "x",
        "LANDING_ES_URL": "https://u:p@es.example",
        "HTTPS_PROXY": "http://corp:3128",
    }
    assert chromium_env(environ) == {"PATH": "/usr/bin", "HOME": "/root", "LANG": "C.UTF-8"}
