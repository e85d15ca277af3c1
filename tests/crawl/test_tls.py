"""TLS: certificates are verified for the registration agencies' APIs and the resolver, not for publisher pages
(landing.config.Config.verified_hosts, landing.crawl.handlers.one_tls_context), through a real crawl."""

import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from scrapy.settings import Settings

import landing.settings
from landing.config import of_settings
from landing_dev.sandbox.server import _certificate
from tests import forked

ROOT = Path(__file__).resolve().parents[2]

# One server with a self-signed certificate for both localhost and 127.0.0.1: named as the Crossref API
# (https://localhost:<port>) it must be refused; as a publisher page (https://127.0.0.1:<port>) it is read.
CRAWL = """
import json, sys
import scrapy
from scrapy.crawler import AsyncCrawlerProcess
import landing.settings as project

class Probe(scrapy.Spider):
    name = "probe"

    async def start(self):
        for url in sys.argv[1:]:
            yield scrapy.Request(url, callback=self.read, errback=self.failed, dont_filter=True,
                                 meta={"dont_retry": True})

    def read(self, response):
        print(json.dumps({response.url: response.status}), flush=True)

    def failed(self, failure):
        print(json.dumps({failure.request.url: type(failure.value).__name__}), flush=True)

settings = {name: getattr(project, name) for name in dir(project) if name.isupper()}
port = sys.argv[1].rsplit(":", 1)[1].split("/")[0]
settings.update(ITEM_PIPELINES={}, LOG_LEVEL="ERROR", TELNETCONSOLE_ENABLED=False, LANDING_ADDRESS_GUARD=False,
                AUTOTHROTTLE_ENABLED=False, LANDING_PROGRESS_INTERVAL=0, ROBOTSTXT_OBEY=False,
                LANDING_CROSSREF_API=f"https://localhost:{port}")
process = AsyncCrawlerProcess(settings)
process.crawl(process.create_crawler(Probe))
process.start()
"""


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    context = _certificate(tmp_path_factory.mktemp("tls"))

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            body = b"<html><title>t</title></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    try:
        urls = [f"https://localhost:{port}/works", f"https://127.0.0.1:{port}/page"]
        done = forked.run([sys.executable, "-c", CRAWL, *urls], ROOT, os.environ, 120)
    finally:
        server.shutdown()
        server.server_close()
    assert done.returncode == 0, done.stderr[-3000:]
    found = {}
    for line in done.stdout.splitlines():
        found.update(json.loads(line))
    return {url.split("/", 3)[2].split(":")[0]: outcome for url, outcome in found.items()}


def test_an_api_host_with_a_certificate_nobody_trusts_is_refused(outcomes):
    assert outcomes["localhost"] == "DownloadFailedError"  # a connection failure, never a page


def test_a_publisher_page_with_the_same_certificate_is_still_read(outcomes):
    assert outcomes["127.0.0.1"] == 200


def _settings(**values):
    settings = Settings()
    settings.setmodule(landing.settings)
    settings.setdict(values)
    return settings


def test_the_apis_and_the_resolver_are_verified_on_the_real_web():
    assert {"api.crossref.org", "api.datacite.org", "doi.org", "dx.doi.org"} <= of_settings(_settings()).verified_hosts


def test_nothing_is_verified_through_a_sandbox_whose_certificate_is_its_own():
    assert of_settings(_settings(LANDING_SANDBOX="http://127.0.0.1:8700")).verified_hosts == frozenset()
