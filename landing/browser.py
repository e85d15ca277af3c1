"""The browser driver: scrapy-playwright driving the system's Chromium, configured only when LANDING_DRIVER asks.

`playwright install` is never needed: Chromium is Debian's (LANDING_CHROMIUM). Each DOI gets its own browser
context (cookies, storage), closed when its visit ends, as ChainCookiesMiddleware does for the HTTP driver.
"""
import logging

from scrapy_playwright.page import PageMethod

logger = logging.getLogger(__name__)

HANDLER = "scrapy_playwright.handler.ScrapyPlaywrightDownloadHandler"
# Headless, and quiet: this machine's network (and many crawl hosts') refuses Chromium's background calls.
ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--no-first-run",
        "--disable-gpu", "--disable-dev-shm-usage", "--disable-sync"]
# What a landing page needs to say where it is and what DOI it states: documents and scripts, not pictures.
SKIPPED = frozenset({"image", "media", "font", "stylesheet"})
DRIVERS = ("http", "browser", "auto")


def configure(settings) -> None:
    """Install the Playwright download handler and Chromium's options, unless the driver is plain HTTP."""
    if settings.get("LANDING_DRIVER") not in ("browser", "auto"):
        return
    handlers = {**settings.getdict("DOWNLOAD_HANDLERS"), "http": HANDLER, "https": HANDLER}
    settings.set("DOWNLOAD_HANDLERS", handlers, priority="spider")
    launch = {"executable_path": settings.get("LANDING_CHROMIUM"), "headless": True, "args": ARGS}
    if settings.get("LANDING_SANDBOX"):
        launch["proxy"] = {"server": settings.get("LANDING_SANDBOX")}  # Chromium's own requests go there too
    settings.set("PLAYWRIGHT_BROWSER_TYPE", "chromium", priority="spider")
    settings.set("PLAYWRIGHT_LAUNCH_OPTIONS", launch, priority="spider")
    settings.set("PLAYWRIGHT_ABORT_REQUEST", "landing.browser.skip_resource", priority="spider")
    settings.set("PLAYWRIGHT_MAX_CONTEXTS", settings.getint("LANDING_BROWSER_PAGES"), priority="spider")
    settings.set("PLAYWRIGHT_DEFAULT_NAVIGATION_TIMEOUT", settings.getfloat("DOWNLOAD_TIMEOUT") * 1000,
                 priority="spider")


def skip_resource(request) -> bool:
    """PLAYWRIGHT_ABORT_REQUEST: pictures, media, fonts and styles are never fetched."""
    return request.resource_type in SKIPPED


class Navigation:
    """The main frame's responses during one visit, in order: every redirect and every page it moved through."""

    def __init__(self):
        self.responses: list[tuple[str, int, dict]] = []

    async def __call__(self, response):
        request = response.request
        if request.is_navigation_request() and response.frame == response.frame.page.main_frame:
            self.responses.append((response.url, response.status, response.headers))

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


def request_meta(pid: dict, sandbox: bool, settle_ms: float) -> dict:
    """Request.meta for a browser visit of a DOI: its own context, the page kept for closing, navigation recorded."""
    meta = {
        "pid": pid, "playwright": True, "playwright_include_page": True,
        "playwright_context": f"doi {pid['pid/doi']}", "handle_httpstatus_all": True,
        "landing_navigation": Navigation(),
        # After `load`, scripts may still move on (challenges, computed redirects): wait until the network is quiet.
        "playwright_page_methods": [PageMethod("wait_for_load_state", "networkidle", timeout=settle_ms)],
    }
    meta["playwright_page_event_handlers"] = {"response": meta["landing_navigation"]}
    if sandbox:
        meta["playwright_context_kwargs"] = {"ignore_https_errors": True}  # the sandbox's certificate is self-signed
    return meta


async def close(meta: dict) -> None:
    """Close the visit's browser context (and with it the page and its cookies)."""
    page = meta.get("playwright_page")
    if page is not None:
        try:
            await page.context.close()
        except Exception as error:  # a browser that already went away has nothing left to close
            logger.debug("closing the browser context of %s: %r", meta["pid"]["pid/doi"], error)
