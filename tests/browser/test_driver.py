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
    visits = visit([url], LANDING_ADDRESS_GUARD=False, TUNING_BROWSER_SETTLE=1.0)
    assert (visits[url]["how"], visits[url]["text"]) == ("visited", "An article whose page never goes quiet.")
    assert visits[url]["hops"] == [{"url": url, "status": 200}]


def test_every_browser_visit_blocks_service_workers():
    from landing.browser.driver import request_meta

    meta = request_meta({"pid/doi": "10.1234/a"}, sandbox=False, settle_ms=10)
    assert meta["playwright_context_kwargs"] == {"service_workers": "block"}


def test_two_browser_visits_of_one_doi_in_flight_borrow_contexts_of_their_own():
    import asyncio

    from landing.browser.contexts import Contexts
    from landing.browser.driver import request_meta

    async def borrowed():
        contexts = Contexts(2)
        metas = [request_meta({"pid/doi": "10.1234/a"}, sandbox=False, settle_ms=10) for _ in range(2)]
        return [await contexts.take(meta) for meta in metas]

    first, second = asyncio.run(borrowed())
    assert first != second


def test_a_retried_browser_visit_keeps_the_context_it_borrowed_and_gives_it_back_once():
    import asyncio

    from landing.browser.contexts import Contexts

    async def borrowed():
        contexts, meta = Contexts(2), {}
        first = await contexts.take(meta)
        again = await contexts.take(meta)
        contexts.give_back(meta)
        contexts.give_back(meta)
        return first, again, contexts.free.qsize()

    assert asyncio.run(borrowed()) == ("landing 0", "landing 0", 2)


# Each page shows what it found of earlier visits (cookies, local and session storage), then leaves its own.
LEAVES = (
    b"<html><body><p id='o'></p><script>"
    b"document.getElementById('o').textContent = ['seen', document.cookie, localStorage.length, "
    b"sessionStorage.length].join(' ');"
    b"document.cookie = 'js=1; path=/'; localStorage.setItem('k', 'v'); sessionStorage.setItem('k', 'v');"
    b"</script></body></html>"
)


@needs_chromium
def test_visits_one_after_another_in_one_reused_context_never_see_each_others_cookies_or_storage():
    def leaves(path):
        return 200, {"Content-Type": "text/html", "Set-Cookie": f"h{path[-1]}=1; Path=/"}, LEAVES

    with serving(leaves) as (port, requests):
        urls = [f"http://127.0.0.1:{port}/p{n}" for n in range(3)]
        visits = visit(urls, LANDING_ADDRESS_GUARD=False, LANDING_BROWSER_PAGES=1, TUNING_BROWSER_SETTLE=0.5)
        asked = list(requests)
    assert [visits[url]["text"] for url in urls] == [f"seen h{n}=1 0 0" for n in range(3)]
    assert [visits[url]["contexts"] for url in urls] == [1, 1, 1]  # one context, lent to each visit in turn
    assert sorted(asked) == [f"/p{n}" for n in range(3)]


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
from landing.browser.rules import rules_of

class Mixed(scrapy.Spider):
    name = "mixed"

    setting_changes = (browser.configure,)

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
            await browser.end(response.meta, rules_of(self.crawler))
        kind = "browser" if response.meta.get("playwright") else "http"
        drivers = [c for c in psutil.Process().children() if "run-driver" in c.cmdline()]
        chromium = [p for c in drivers for p in c.children(recursive=True)]
        priorities, renderer_threads = set(), set()
        for p in chromium:
            try:
                priorities |= {os.getpriority(os.PRIO_PROCESS, t.id) for t in p.threads()}
                if "--type=renderer" in p.cmdline():
                    for t in p.threads():
                        with open(f"/proc/{p.pid}/task/{t.id}/comm") as comm:
                            renderer_threads.add(comm.read().strip())
            except (psutil.NoSuchProcess, ProcessLookupError, FileNotFoundError):  # a renderer that exited meanwhile
                pass
        groups = set()  # the session groups (autogroups) Chromium's processes run in, where the kernel has them
        for p in chromium:
            try:
                with open(f"/proc/{p.pid}/autogroup") as group:
                    groups.add(group.read().strip())
            except OSError:
                pass
        try:
            with open("/proc/self/autogroup") as group:
                own_group = group.read().strip()
        except OSError:
            own_group = None
        browsers = [p for p in chromium if p.name().startswith("chrom") and "--type=" not in " ".join(p.cmdline())]
        switches = browsers[0].cmdline()[1:] if browsers else []
        nice = {"own": os.nice(0), "browser": sorted(priorities),
                "processes": len(chromium), "own_group": own_group, "groups": sorted(groups)}
        cpus = set()  # the CPU sets Chromium's processes may run on
        for p in chromium:
            try:
                cpus.add(tuple(sorted(os.sched_getaffinity(p.pid))))
            except OSError:
                pass
        print(json.dumps({"kind": kind, "playwright_tasks": len(playwright), "nice": nice, "switches": switches,
                          "renderer_threads": sorted(renderer_threads), "cpus": sorted(cpus),
                          "own_cpus": sorted(os.sched_getaffinity(0))}), flush=True)

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
    # TUNING_BROWSER_NICE: under CPU contention the crawl's event loop, which every HTTP visit waits on, keeps its
    # core, and Chromium takes what is left. Run as root, Chromium would set some threads back to 0 and -8.
    from landing.tuning import BROWSER_NICE as TUNING_BROWSER_NICE

    ended, _ = shared_host_crawl
    browser_lines = [line["nice"] for line in ended if line["kind"] == "browser"]
    lowered = min(browser_lines[0]["own"] + TUNING_BROWSER_NICE, 19)
    assert [(n["browser"], n["processes"] > 2) for n in browser_lines] == [([lowered], True)] * 2


@needs_chromium
def test_chromium_runs_in_a_session_group_of_lower_priority_than_the_crawls(shared_host_crawl):
    # Playwright starts Chromium in a session of its own: where the kernel groups processes by session, niceness only
    # ranks them within their group, and Chromium's group took as much CPU as the crawl's whole group.
    from landing.tuning import BROWSER_NICE as TUNING_BROWSER_NICE

    ended, _ = shared_host_crawl
    browser_lines = [line["nice"] for line in ended if line["kind"] == "browser"]
    if browser_lines[0]["own_group"] is None:
        pytest.skip("this kernel has no session groups (CONFIG_SCHED_AUTOGROUP)")
    own, lowered = browser_lines[0]["own_group"], f" nice {TUNING_BROWSER_NICE}"
    assert [(len(n["groups"]), n["groups"][0].endswith(lowered), n["groups"][0] != own) for n in browser_lines] == [
        (1, True, True)
    ] * 2


@needs_chromium
def test_chromium_runs_on_every_cpu_of_the_crawls_but_one(shared_host_crawl):
    # TUNING_BROWSER_SPARE_CPU: the crawl's event loop has a core Chromium cannot take.
    ended, _ = shared_host_crawl
    own = ended[0]["own_cpus"]
    if len(own) < 2:
        pytest.skip("the crawl may use one CPU only: Chromium shares it")
    assert {tuple(map(tuple, line["cpus"])) for line in ended if line["kind"] == "browser"} == {(tuple(own[1:]),)}


@needs_chromium
def test_chromium_keeps_playwrights_switches_beside_the_drivers(shared_host_crawl):
    # Playwright's hover and pointer types (its --blink-settings) beside the driver's imagesEnabled=false, and its
    # disabled features (AvoidCorsURLLoaderRestartOnRedirect, which its routing needs) beside the driver's.
    ended, _ = shared_host_crawl
    switches = [line["switches"] for line in ended if line["kind"] == "browser"][0]
    assert [s.split("=")[0] for s in switches].count("--disable-features") == 1
    (blink,) = [s for s in switches if s.startswith("--blink-settings=")]
    (features,) = [s for s in switches if s.startswith("--disable-features=")]
    assert ("primaryHoverType=2" in blink, "imagesEnabled=false" in blink) == (True, True)
    assert ("AvoidCorsURLLoaderRestartOnRedirect" in features, "IsolateOrigins" in features) == (True, True)


@needs_chromium
def test_chromium_renderers_composite_on_their_main_thread_with_no_compositor_thread(shared_host_crawl):
    # Nobody looks at a crawl's frames: a compositor thread of its own kept producing them, in the renderer and the
    # GPU process, for about a third of Chromium's CPU per visit (bench/README.md "browser_visit_cost.py").
    ended, _ = shared_host_crawl
    renderers = [line["renderer_threads"] for line in ended if line["kind"] == "browser"]
    assert [(len(names) > 1, "Compositor" in names) for names in renderers] == [(True, False)] * 2


def _opener(path):
    if path == "/opener":
        return 200, {"Content-Type": "text/html"}, b"<p>opens</p><script>window.open('/opened');</script>"
    # Gone before the visit ends: the context no longer shows it, and its origin's storage was never seen.
    return 200, {"Content-Type": "text/html"}, b"<p>opened</p><script>localStorage.k = 'v'; window.close();</script>"


@needs_chromium
def test_a_context_whose_visit_opened_a_page_of_its_own_is_closed_not_lent_again():
    import asyncio

    from playwright.async_api import async_playwright

    from landing.browser.contexts import Contexts
    from landing.browser.driver import ARGS, Navigation, close
    from tests.browser.probe import CHROMIUM

    async def visited(base):
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, chromium_sandbox=False)
            contexts, meta = Contexts(1), {"pid": {"pid/doi": "10.1234/a"}, "landing_navigation": Navigation()}
            await contexts.take(meta)
            context = await browser.new_context()
            page = meta["playwright_page"] = await context.new_page()
            page.on("popup", meta["landing_navigation"].popup)
            async with page.expect_popup() as opened:
                await page.goto(f"{base}/opener")
            popup = await opened.value
            if not popup.is_closed():
                await popup.wait_for_event("close")
            await close(meta)
            closed = context.is_closed()
            await browser.close()
            return closed, contexts.free.qsize()

    with serving(_opener) as (port, _):
        assert asyncio.run(visited(f"http://127.0.0.1:{port}")) == (True, 1)


def test_the_context_given_back_last_is_lent_first_so_contexts_are_made_only_for_visits_at_once():
    import asyncio

    from landing.browser.contexts import Contexts

    async def lent():
        contexts, names = Contexts(8), []
        for _ in range(3):  # one visit after another
            meta = {}
            names.append(await contexts.take(meta))
            contexts.give_back(meta)
        at_once = [{}, {}]
        names += [await contexts.take(meta) for meta in at_once]
        return names

    assert asyncio.run(lent()) == ["landing 0", "landing 0", "landing 0", "landing 0", "landing 1"]


@needs_chromium
def test_a_context_is_closed_once_it_has_served_its_share_of_visits_and_reused_until_then(monkeypatch):
    import asyncio

    from playwright.async_api import async_playwright

    from landing.browser import contexts as pool
    from landing.browser.driver import ARGS, Navigation, close
    from tests.browser.probe import CHROMIUM

    monkeypatch.setattr(pool, "VISITS", 2)

    async def visited(base):
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, chromium_sandbox=False)
            contexts, made, closed = pool.Contexts(1), {}, []
            for n in range(3):
                meta = {"pid": {"pid/doi": f"10.1234/{n}"}, "landing_navigation": Navigation()}
                name = await contexts.take(meta)
                if name not in made or made[name].is_closed():
                    made[name] = await browser.new_context()
                page = meta["playwright_page"] = await made[name].new_page()
                await page.goto(f"{base}/p{n}")
                await close(meta)
                closed.append(page.context.is_closed())
            await browser.close()
            return closed

    with serving(lambda path: (200, {"Content-Type": "text/html"}, b"<p>a page</p>")) as (port, _):
        assert asyncio.run(visited(f"http://127.0.0.1:{port}")) == [False, True, False]
