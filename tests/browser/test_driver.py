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


def test_two_browser_visits_of_one_doi_get_contexts_of_their_own():
    from landing.browser.driver import request_meta

    first, second = (request_meta({"pid/doi": "10.1234/a"}, sandbox=False, settle_ms=10) for _ in range(2))
    assert first["playwright_context"] != second["playwright_context"]


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


# A crawl of browser visits and plain HTTP requests to one host, whose slot (as the resolver's, DOWNLOAD_SLOTS) lets 2
# requests in at once. Prints a JSON line as each request ends: which kind it was, and how many of the tasks on the
# crawl's event loop then were Playwright's, and the niceness of the crawl and of every thread of Chromium's processes.
SHARED_HOST = """
import asyncio, json, os, sys
import psutil
import scrapy
from scrapy.crawler import AsyncCrawlerProcess
import landing.settings as project
from landing.browser import driver as browser

class Mixed(scrapy.Spider):
    name = "mixed"

    @classmethod
    def update_settings(cls, settings):
        super().update_settings(settings)
        browser.configure(settings)

    async def start(self):
        base = sys.argv[1]
        for n in range(2):
            meta = browser.request_meta({"pid/doi": f"busy {n}"}, False, 2000)
            yield scrapy.Request(f"{base}/busy?{n}", meta=meta, callback=self.ended, priority=10, dont_filter=True)
        for n in range(4):
            yield scrapy.Request(f"{base}/plain?{n}", callback=self.ended, dont_filter=True)

    async def ended(self, response):
        playwright = [t for t in asyncio.all_tasks() if "/playwright/" in t.get_coro().cr_code.co_filename]
        if response.meta.get("playwright"):
            await browser.end(response.meta, self.settings["PLAYWRIGHT_ABORT_REQUEST"])
        kind = "browser" if response.meta.get("playwright") else "http"
        drivers = [c for c in psutil.Process().children() if "run-driver" in c.cmdline()]
        chromium = [p for c in drivers for p in c.children(recursive=True)]
        priorities = set()
        for p in chromium:
            try:
                priorities |= {os.getpriority(os.PRIO_PROCESS, t.id) for t in p.threads()}
            except (psutil.NoSuchProcess, ProcessLookupError):  # a renderer that exited meanwhile
                pass
        nice = {"own": os.nice(0), "browser": sorted(priorities),
                "processes": len(chromium)}
        print(json.dumps({"kind": kind, "playwright_tasks": len(playwright), "nice": nice}), flush=True)

settings = {name: getattr(project, name) for name in dir(project) if name.isupper()}
settings.update(ITEM_PIPELINES={}, EXTENSIONS={}, LOG_LEVEL="WARNING", TELNETCONSOLE_ENABLED=False,
                LANDING_DRIVER="auto", ROBOTSTXT_OBEY=False, LANDING_ADDRESS_GUARD=False, AUTOTHROTTLE_ENABLED=False,
                LANDING_BROWSER_PAGES=2, DOWNLOAD_SLOTS={"127.0.0.1": {"concurrency": 2, "delay": 0}})
process = AsyncCrawlerProcess(settings)
process.crawl(Mixed)
process.start()
"""


def _shared_host(path):
    if path.startswith("/busy"):
        return 200, {"Content-Type": "text/html"}, BUSY
    return 200, {"Content-Type": "text/plain"}, b"ok"


@pytest.fixture(scope="module")
def shared_host_crawl():
    """(the crawl's JSON lines, the paths the host was asked, in order)."""
    import json
    import subprocess
    import sys

    from tests.browser.probe import ROOT

    with serving(_shared_host) as (port, asked):
        done = subprocess.run(
            [sys.executable, "-c", SHARED_HOST, f"http://127.0.0.1:{port}"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,  # Chromium starts slowly on a busy machine
        )
    assert done.returncode == 0, done.stderr[-3000:]
    return [json.loads(line) for line in done.stdout.splitlines()], list(asked)


@needs_chromium
def test_browser_visits_wait_in_a_slot_of_their_own_not_in_the_slot_of_the_host_they_start_from(shared_host_crawl):
    ended, asked = shared_host_crawl
    assert sorted(line["kind"] for line in ended) == ["browser"] * 2 + ["http"] * 4
    # The browser pages never go quiet, so each visit holds its place for the 2 s settle at least: in the host's
    # slot, the plain requests would wait that long, past the pages' first beacons.
    first_beacon = next(n for n, path in enumerate(asked) if path.startswith("/beacon"))
    assert sorted(path for path in asked[:first_beacon] if path.startswith("/plain")) == [
        f"/plain?{n}" for n in range(4)
    ]


@needs_chromium
def test_playwright_runs_on_an_event_loop_of_its_own_not_on_the_crawls(shared_host_crawl):
    # Playwright reads each of its driver's messages only once the loop's queue is empty (or after 100 turns): on a
    # busy crawl's loop, that held every browser visit back.
    ended, _ = shared_host_crawl
    assert [line["playwright_tasks"] for line in ended] == [0] * 6


@needs_chromium
def test_every_thread_of_chromium_runs_at_lower_priority_than_the_crawl(shared_host_crawl):
    # LANDING_BROWSER_NICE (10): under CPU contention the crawl's event loop, which every HTTP visit waits on, keeps
    # its core, and Chromium takes what is left. Run as root, Chromium would set some threads back to 0 and -8.
    ended, _ = shared_host_crawl
    browser_lines = [line["nice"] for line in ended if line["kind"] == "browser"]
    own = browser_lines[0]["own"]
    assert [(n["browser"], n["processes"] > 2) for n in browser_lines] == [([max(own, 10)], True)] * 2
