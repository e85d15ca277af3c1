"""The address guard inside Chromium: what the browser fetches by itself is judged as Scrapy's requests are."""
import asyncio
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace

import pytest

from landing import browser
from landing.settings import DOWNLOADER_MIDDLEWARES
from tests.browser_probe import needs_chromium, visit


def _abort(url, resource_type="document"):
    return asyncio.run(browser.skip_or_refuse(SimpleNamespace(url=url, resource_type=resource_type)))


@pytest.mark.parametrize("url", ["http://127.0.0.1:8080/", "http://169.254.169.254/latest/meta-data/",
                                 "http://localhost/", "https://10.0.0.7/x", "http://[::1]/", "http://metadata.google.internal/"])
def test_a_browser_request_to_a_forbidden_host_is_aborted(url):
    assert _abort(url) is True


def test_a_browser_request_to_a_public_literal_address_goes_ahead():
    assert _abort("https://93.184.215.14/article") is False


def test_a_picture_is_skipped_wherever_it_is():
    assert _abort("https://93.184.215.14/figure.png", resource_type="image") is True


def test_a_script_fetch_to_the_metadata_service_is_aborted_too():
    assert _abort("http://169.254.169.254/latest/api/token", resource_type="fetch") is True


# A real Chromium, driven by scrapy-playwright, with Scrapy's own guard taken out so that only the browser's can
# stop the visit.

@pytest.fixture
def local_server():
    hits = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            hits.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(b"<html><body><p>Only the crawling machine can see this.</p></body></html>")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1], hits
    server.shutdown()
    server.server_close()


@needs_chromium
def test_chromium_never_reaches_a_local_server_and_the_visit_names_the_refusal(local_server):
    port, hits = local_server
    urls = [f"http://127.0.0.1:{port}/page", f"http://localhost:{port}/page"]
    visits = visit(urls, DOWNLOADER_MIDDLEWARES={**DOWNLOADER_MIDDLEWARES, "landing.guard.AddressGuardMiddleware": None})
    assert visits[urls[0]]["how"] == "failed"
    assert visits[urls[0]]["refusal"] == "refused: 127.0.0.1 (loopback)"
    assert visits[urls[1]]["refusal"] == "refused: localhost (loopback)"
    assert hits == []
