"""The browser driver: scrapy-playwright driving the system's Chromium, configured only when LANDING_DRIVER asks.

`playwright install` is never needed: Chromium is Debian's (LANDING_CHROMIUM). Each visit borrows a browser context
of its own, emptied of its cookies and storage when the visit ends (landing.browser.contexts), as
ChainCookiesMiddleware keeps each DOI's cookies to itself for the HTTP driver.
Playwright and scrapy-playwright load only once a browser visit is made (landing.browser.handler, `request_meta`),
so an HTTP crawl never loads them.
"""

import asyncio
import logging
import os
import shlex
from urllib.parse import urlsplit

from landing.browser.contexts import POOL
from landing.browser.rules import BrowserRules, Stop, stopped
from landing.config import Config
from landing.crawl.guard import guard_enabled

logger = logging.getLogger(__name__)

HANDLER = "landing.browser.handler.BrowserHandler"
# Browser visits wait in a download slot of their own, as wide as the pages Chromium may have open. In the slot of
# the host they started from (the resolver's, 32 wide) they held every place while they waited for a page, and under
# auto the HTTP visits of every other DOI queued behind them. The slot is in DOWNLOAD_SLOTS, so AutoThrottle leaves
# its delay alone (landing.crawl.slots).
SLOT = "landing-browser"
LOOP = "landing_browser_loop"  # Request.meta: the event loop Playwright runs on (landing.browser.handler)
# Headless, and quiet: this machine's network (and many crawl hosts') refuses Chromium's background calls.
# A renderer process serves one context only. Visits borrow kept contexts (landing.browser.contexts), each holding a
# blank page, and with site isolation off and two renderers wanted at most, Chromium puts a visit's page in its
# context's renderer rather than starting one; no images or web fonts either. Chromium's CPU per visit is most of
# what auto costs on a full run (bench/README.md "Figures behind choices in the code", "browser_visit_cost.py").
# Compositing on each renderer's main thread rather than a thread of its own: nobody looks at the frames, and a
# compositor thread kept making them for the renderer and the GPU process (bench/README.md "browser_visit_cost.py").
# WebRTC may send UDP (STUN) wherever a page says, past any proxy: only proxied TCP is allowed. Chromium's sandbox is
# Playwright's `chromium_sandbox` (landing.browser.handler), not an argument here.
ARGS = [
    "--disable-background-networking",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--disable-component-update",
    "--no-first-run",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-sync",
    "--disable-extensions",
    "--renderer-process-limit=2",
    "--disable-site-isolation-trials",
    "--disable-features=site-per-process,IsolateOrigins,Translate,OptimizationHints,MediaRouter",
    "--blink-settings=imagesEnabled=false",
    "--disable-remote-fonts",
    "--disable-threaded-compositing",
]


def configure(settings, cfg: Config) -> None:
    """Install the Playwright download handler and Chromium's options, unless the driver is plain HTTP."""
    if cfg.driver not in ("browser", "auto"):
        return
    handlers = {**settings.getdict("DOWNLOAD_HANDLERS"), "http": HANDLER, "https": HANDLER}
    settings.set("DOWNLOAD_HANDLERS", handlers, priority="spider")
    # Chromium's sandbox needs a user other than root (Chromium refuses root with it); the handler falls back to
    # none, saying so, where the kernel does not allow it either.
    launch = {
        "executable_path": cfg.chromium,
        "headless": True,
        "args": ARGS,
        "env": chromium_env(os.environ),
        "chromium_sandbox": os.geteuid() != 0,
    }
    if cfg.sandbox and not guard_enabled(cfg):
        launch["proxy"] = {"server": cfg.sandbox}  # Chromium's own requests go there too
    # With the guard on, the handler puts Chromium behind landing.browser.forward_proxy when it starts it.
    settings.set("PLAYWRIGHT_BROWSER_TYPE", "chromium", priority="spider")
    # Playwright on an event loop of its own, in a thread: it reads each message of its driver only once its loop's
    # queue is empty (or after 100 turns), and a crawl's loop is never empty, so on the crawl's loop every browser
    # visit crawled along and its turns went to waiting. scrapy-playwright's own switch (the one Windows needs).
    settings.set("_PLAYWRIGHT_THREADED_LOOP", True, priority="spider")
    settings.set("PLAYWRIGHT_LAUNCH_OPTIONS", launch, priority="spider")
    # PLAYWRIGHT_ABORT_REQUEST stays unset: the handler asks the crawl's BrowserRules (landing.browser.rules.rules_of).
    pages = cfg.browser_pages
    settings.set("PLAYWRIGHT_MAX_CONTEXTS", pages, priority="spider")
    slots = {**settings.getdict("DOWNLOAD_SLOTS"), SLOT: {"concurrency": pages, "delay": 0}}
    settings.set("DOWNLOAD_SLOTS", slots, priority="spider")
    settings.set(
        "PLAYWRIGHT_DEFAULT_NAVIGATION_TIMEOUT", settings.getfloat("DOWNLOAD_TIMEOUT") * 1000, priority="spider"
    )


# Chromium gets these of the crawl's environment and nothing else: docs/scrapyd.md puts the stores' secrets in the
# environment, and a page that took over a renderer (no sandbox as root) could read its browser's.
_ENV_KEPT = (
    "PATH",
    "HOME",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "TZ",
    "TMPDIR",
    "XDG_RUNTIME_DIR",
    "FONTCONFIG_PATH",
    "FONTCONFIG_FILE",
)


# Switches Chromium reads once, keeping only the last occurrence's value. Playwright passes its own (features it turns
# off for its routing to work, pointer and hover types) and ARGS come after them: the script merges each into one.
MERGED = ("disable-features", "enable-features", "blink-settings")
_MERGE = """for arg do
  case $arg in
{collect}  esac
done
for arg do
  shift
  case $arg in
{emit}    *) set -- "$@" "$arg" ;;
  esac
done
"""
# Playwright starts Chromium in a session of its own, and where the kernel groups processes by session (autogroups,
# /proc/sys/kernel/sched_autogroup_enabled), niceness only ranks processes within their group: a group gets its share
# of the CPU by the group's own niceness, so a niced Chromium still took as much as the whole crawl. The script lowers
# its session's group too, and only when it leads the session, so that the crawl's own group is never touched.
_AUTOGROUP = """{ read -r stat < /proc/$$/stat; } 2>/dev/null
rest=${stat##*) }; rest=${rest#* }; rest=${rest#* }; rest=${rest#* }
[ "${rest%% *}" = "$$" ] && { echo NICENESS > /proc/self/autogroup; } 2>/dev/null
"""


def browser_cpus(allowed: set[int]) -> str | None:
    """The CPUs Chromium runs on, as taskset lists them, when the crawl may use `allowed`: all but the first, so that
    the crawl's event loop, which every HTTP visit waits on, has a core Chromium cannot take; None with one CPU.

    >>> browser_cpus({0, 1}), browser_cpus({3, 1, 2}), browser_cpus({5})
    ('1', '2,3', None)
    """
    cpus = sorted(allowed)[1:]
    return ",".join(map(str, cpus)) if cpus else None


def launcher(
    chromium: str,
    niceness: int,
    nice: str | None,
    setpriv: str | None,
    cpus: str | None = None,
    taskset: str | None = None,
) -> str:
    """A shell script that runs `chromium` with its arguments, each of MERGED given once (the values of every
    occurrence joined, where the first was); at `niceness` (with `nice`, unless 0), in a session group (autogroup) of
    that niceness when it leads its session; with `setpriv` (a crawl run as root) also without CAP_SYS_NICE, since
    Chromium, allowed to, sets its threads' priorities back to 0 and -8 itself; on `cpus` only (with `taskset`).

    >>> print(launcher("/usr/bin/chromium", 10, "/usr/bin/nice", None).splitlines()[-2:])
    ['[ "${rest%% *}" = "$$" ] && { echo 10 > /proc/self/autogroup; } 2>/dev/null', \
'exec /usr/bin/nice -n 10 /usr/bin/chromium "$@"']
    >>> print(launcher("/opt/my chromium", 5, "/usr/bin/nice", "/usr/bin/setpriv").splitlines()[-1])
    exec /usr/bin/setpriv --inh-caps=-sys_nice --bounding-set=-sys_nice /usr/bin/nice -n 5 '/opt/my chromium' "$@"
    >>> print(launcher("/usr/bin/chromium", 0, "/usr/bin/nice", None).splitlines()[-1])
    exec /usr/bin/chromium "$@"
    >>> print(launcher("/usr/bin/chromium", 0, None, None, "1,2", "/usr/bin/taskset").splitlines()[-1])
    exec /usr/bin/taskset -c 1,2 /usr/bin/chromium "$@"
    """
    names = {switch: "merged_" + switch.replace("-", "_") for switch in MERGED}
    collect = "".join(f"    --{s}=*) {v}=${{{v}:+${v},}}${{arg#*=}} ;;\n" for s, v in names.items())
    emit = "".join(f'    --{s}=*) [ -n "${v}" ] && set -- "$@" "--{s}=${v}"; {v}= ;;\n' for s, v in names.items())
    script = _MERGE.replace("{collect}", collect).replace("{emit}", emit)
    command = shlex.quote(chromium)
    if niceness and nice:
        script += _AUTOGROUP.replace("NICENESS", str(int(niceness)))
        command = f"{shlex.quote(nice)} -n {int(niceness)} {command}"
        if setpriv:
            command = f"{shlex.quote(setpriv)} --inh-caps=-sys_nice --bounding-set=-sys_nice {command}"
    if cpus and taskset:
        command = f"{shlex.quote(taskset)} -c {shlex.quote(cpus)} {command}"
    return f'#!/bin/sh\n{script}exec {command} "$@"\n'


def chromium_env(environ) -> dict:
    """The environment Chromium runs with: the locale, paths and time zone of environ, no secrets."""
    return {name: environ[name] for name in _ENV_KEPT if name in environ}


class Navigation:
    """The main frame's responses during one visit, in order: every redirect and every page it moved through."""

    def __init__(self):
        self.responses: list[tuple[str, int, dict]] = []
        self.failed: str | None = None  # the main frame's last navigation, when it failed after every response
        self.late: tuple[str, Stop] | None = None  # a redirect Chromium followed that the rules forbid
        self.origins: set[str] = set()  # of every document loaded, frames included: what may have stored data
        self.popups = 0  # pages the visit's page opened: their documents are not seen here
        self.answered = 0  # requests of the page answered (redirects, frames, scripts...): sent to a server

    async def __call__(self, response):
        self.answered += 1
        request = response.request
        if request.resource_type == "document":
            parts = urlsplit(response.url)
            if parts.scheme in ("http", "https"):
                self.origins.add(f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}")
        if request.is_navigation_request() and response.frame == response.frame.page.main_frame:
            self.responses.append((response.url, response.status, response.headers))
            self.failed = None

    async def popup(self, page):
        self.popups += 1

    async def request_failed(self, request):
        if request.is_navigation_request() and request.frame == request.frame.page.main_frame:
            self.failed = request.url

    def stop(self) -> tuple[str, Stop] | None:
        """(URL, why) when landing.browser.rules kept this visit from a URL, or judged a redirect to it after the
        fact; None otherwise."""
        if self.late:
            return self.late
        found = stopped(self.failed)
        return (self.failed, found) if found else None

    def hops_to(self, url: str) -> list[dict]:
        """The hops before url, then url itself, not fetched (status None): the chain of a stopped visit."""
        chain = []
        for hop in self.hops():
            if hop["url"] == url:
                break
            chain.append(hop)
        return chain + [{"url": url, "status": None}]

    def hops(self) -> list[dict]:
        """[{url, status}] like the HTTP driver's; a page that moved on by itself is `kind: client-redirect`."""
        chain = []
        for n, (url, status, _) in enumerate(self.responses):
            hop = {"url": url, "status": status}
            if n < len(self.responses) - 1 and not 300 <= status < 400:
                hop["kind"] = "client-redirect"  # a meta refresh or a script: the browser does not say which
            chain.append(hop)
        return chain

    def last(self) -> tuple[str | None, int | None, dict]:
        return self.responses[-1] if self.responses else (None, None, {})

    def sent_beyond(self) -> int:
        """The requests Chromium sent for the visit besides its first, which Scrapy's downloader counted."""
        return max(self.answered - 1, 0)


def request_meta(pid: dict, sandbox: bool, settle_ms: float) -> dict:
    """Request.meta for a browser visit of a DOI: the page kept for ending the visit, navigation recorded. Its
    context is borrowed when the download starts (landing.browser.handler)."""
    from scrapy_playwright.page import PageMethod  # here, not at load: the driver may never visit with a browser

    meta = {
        "pid": pid,
        "playwright": True,
        "playwright_include_page": True,
        "dont_merge_cookies": True,  # Chromium keeps the visit's cookies; Scrapy's jar must not add its own
        "download_slot": SLOT,
        "handle_httpstatus_all": True,
        "landing_navigation": Navigation(),
        "playwright_page_methods": [PageMethod(settle, settle_ms)],
    }
    navigation = meta["landing_navigation"]
    meta["playwright_page_event_handlers"] = {
        "response": navigation,
        "requestfailed": navigation.request_failed,
        "popup": navigation.popup,
    }
    # A service worker fetches on its own, outside the page's routing, and outlives the visit in a shared profile.
    meta["playwright_context_kwargs"] = {"service_workers": "block"}
    if sandbox:
        meta["playwright_context_kwargs"]["ignore_https_errors"] = True  # the sandbox's certificate is self-signed
    return meta


async def settle(page, settle_ms: float) -> None:
    """After `load`, let scripts move on (challenges, computed redirects) until the network is quiet, for at most
    settle_ms. Many real pages never go quiet (analytics beacons, long polling): they are read as they are then."""
    from playwright.async_api import TimeoutError as PlaywrightTimeoutError  # the handler loaded it already

    try:
        await page.wait_for_load_state("networkidle", timeout=settle_ms)
    except PlaywrightTimeoutError:
        logger.debug("%s: the network was still busy after %.0f ms; read as it is", page.url, settle_ms)


async def on_playwright_loop(meta: dict, coro):
    """Await coro on the event loop the visit's Playwright objects belong to (meta[LOOP]), from the crawl's loop."""
    loop = meta.get(LOOP)
    if loop is None or loop is asyncio.get_running_loop():
        return await coro
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, loop))


async def end(meta: dict, rules: BrowserRules | None) -> None:
    """End a visit: judge the redirects Chromium followed by itself (BrowserRules.after_the_fact), then close."""
    await on_playwright_loop(meta, _end(meta, rules))


async def _end(meta: dict, rules: BrowserRules | None) -> None:
    page, navigation = meta.get("playwright_page"), meta["landing_navigation"]
    if page is not None and isinstance(rules, BrowserRules) and navigation.stop() is None:
        try:
            navigation.late = await rules.after_the_fact(navigation.hops(), page.context)
        except Exception as error:  # a context that went away: the robots.txt question cannot be asked
            logger.debug("judging the redirects of %s: %r", meta["pid"]["pid/doi"], error)
    await close(meta, rules.fetching(page.context) if page is not None and isinstance(rules, BrowserRules) else ())


async def close(meta: dict, fetching=()) -> None:
    """End the visit's hold on its browser context: emptied for the next visit (landing.browser.contexts), or closed
    (and with it the page and its cookies) when it was none of the pool's."""
    page = meta.get("playwright_page")
    if page is None:
        return
    if meta.get(POOL) is not None:
        navigation = meta["landing_navigation"]
        await meta[POOL].end(meta, page, None if navigation.popups else navigation.origins, fetching)
        return
    try:
        await page.context.close()
    except Exception as error:  # a browser that already went away has nothing left to close
        logger.debug("closing the browser context of %s: %r", meta["pid"]["pid/doi"], error)
