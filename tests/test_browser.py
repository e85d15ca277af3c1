"""landing.browser with a real Chromium: what a visit records from pages that real sites serve."""
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.browser_probe import needs_chromium, visit

BUSY = (b"<html><head><title>Article</title></head><body><p>An article whose page never goes quiet.</p>"
        b"<script>setInterval(function () { fetch('/beacon?' + Date.now()); }, 100);</script></body></html>")


@pytest.fixture
def busy_server():
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            body = BUSY if self.path == "/article" else b"ok"
            self.send_response(200)
            self.send_header("Content-Type", "text/html" if self.path == "/article" else "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@needs_chromium
def test_a_page_whose_network_never_goes_quiet_is_read_after_the_settle_time_not_failed(busy_server):
    url = f"{busy_server}/article"
    visits = visit([url], LANDING_ADDRESS_GUARD=False, LANDING_BROWSER_SETTLE=1.0)
    assert (visits[url]["how"], visits[url]["text"]) == ("visited", "An article whose page never goes quiet.")
    assert visits[url]["hops"] == [{"url": url, "status": 200}]
