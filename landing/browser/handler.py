"""The browser driver's download handler: scrapy-playwright's, shared by both schemes, started at the first visit.

The only module of the project that imports Playwright when it loads: Scrapy loads it only when
landing.browser.driver.configure installed it, so an HTTP crawl never does.
"""

import asyncio
import logging
import os
import shutil
import tempfile

from scrapy_playwright.handler import ScrapyPlaywrightDownloadHandler

from landing import config
from landing.browser.contexts import Contexts
from landing.browser.driver import LOOP, browser_cpus, launcher
from landing.browser.forward_proxy import IDLE_TIMEOUT, GuardingProxy, connection_cap, upstream_of
from landing.browser.rules import proxy_refused, rules_of
from landing.crawl.handlers import cap_pool, one_tls_context
from landing.crawl.stopping import StoppableDownloads

logger = logging.getLogger(__name__)


class BrowserHandler(StoppableDownloads, ScrapyPlaywrightDownloadHandler):
    """scrapy-playwright's handler, once per crawl for both schemes, starting Playwright at the first browser visit.

    Scrapy builds one handler per scheme, and each of scrapy-playwright's starts its own Playwright (and later its
    own Chromium) when the engine starts. Under LANDING_DRIVER=auto most crawls need no browser, or need it for a
    handful of DOIs: one shared handler that starts on demand makes auto cost nothing until a DOI needs it.
    Requests without `playwright` meta go through Scrapy's HTTP/1.1 handler, which this one extends.
    """

    lazy = False

    @classmethod
    def from_crawler(cls, crawler):
        shared = getattr(crawler, "_landing_browser_handler", None)
        if shared is None:
            shared = crawler._landing_browser_handler = cls(crawler)
        return shared

    def __init__(self, crawler):
        super().__init__(crawler)
        cap_pool(self, crawler)
        self.cfg = config.of(crawler)  # the project's checked settings; self.config is scrapy-playwright's own
        self.abort_request = rules_of(crawler)  # what Chromium may fetch, asked of every request it makes
        one_tls_context(self, self.cfg.verified_hosts)  # the API requests of auto go through this handler
        self.watch_stopping(crawler)
        self.started, self.closed, self.start_lock = False, False, asyncio.Lock()
        self.proxy: GuardingProxy | None = None
        self.wrapper: tempfile.TemporaryDirectory | None = None
        self.contexts = Contexts(self.config.max_contexts or 1)  # PLAYWRIGHT_MAX_CONTEXTS: LANDING_BROWSER_PAGES

    async def _maybe_launch_in_thread(self) -> None:
        """Connected to engine_started by the parent: nothing to do until a browser visit arrives."""

    async def _download_request(self, request, spider=None):
        # On Playwright's own loop (driver.configure): the spider ends the visit there (driver.end).
        request.meta[LOOP] = asyncio.get_running_loop()
        async with self.start_lock:
            if not self.started:
                await self._guard_chromium()
                self._wrap_chromium()
                await self._launch()
                self.started = True
        request.meta["playwright_context"] = await self.contexts.take(request.meta)
        try:
            return await super()._download_request(request, spider)
        except BaseException:
            if request.meta.get("playwright_page") is None:  # else the spider ends the visit (driver.end)
                self.contexts.give_back(request.meta)
            raise

    async def _guard_chromium(self) -> None:
        """With the address guard on, every connection Chromium makes goes through landing.browser.forward_proxy."""
        rules = self.abort_request
        if rules.guard:
            # A relay silent for as long as a navigation may take (DOWNLOAD_TIMEOUT, driver.configure) serves no visit.
            idle = (self.config.navigation_timeout_ms or 1000 * IDLE_TIMEOUT) / 1000
            cap = connection_cap(self.config.max_contexts or 1)
            self.proxy = GuardingProxy(
                rules.answers, proxy_refused, upstream_of(self.cfg.sandbox), idle_timeout=idle, max_connections=cap
            )
            # Playwright adds <-loopback> to the bypass list: loopback goes through the proxy too (and is refused).
            # The option carries the proxy's per-run credentials, which Playwright answers its 407s with.
            self.config.launch_options["proxy"] = await self.proxy.start()

    def _wrap_chromium(self) -> None:
        """Chromium started through a script of this crawl's (driver.launcher): each switch Chromium reads once given
        once, Chromium at a lower priority (tuning.BROWSER_NICE) and off one of the crawl's CPUs
        (tuning.BROWSER_SPARE_CPU).

        A browser visit waits in its own slot and may take seconds, while every HTTP visit in flight waits on the
        crawl's one event loop: under CPU contention the crawl keeps its core and Chromium takes what is left."""
        chromium = self.config.launch_options.get("executable_path")
        if not chromium:
            return
        niceness = self.cfg.browser_nice
        nice = shutil.which("nice") if niceness else None
        setpriv = shutil.which("setpriv") if nice and os.geteuid() == 0 else None
        self.wrapper = tempfile.TemporaryDirectory(prefix="landing-chromium-")
        script = os.path.join(self.wrapper.name, "chromium")
        with open(script, "w", encoding="utf-8") as handle:
            cpus = browser_cpus(os.sched_getaffinity(0)) if self.cfg.browser_spare_cpu else None
            handle.write(launcher(chromium, niceness, nice, setpriv, cpus, shutil.which("taskset")))
        os.chmod(script, 0o700)
        self.config.launch_options["executable_path"] = script

    async def _maybe_launch_browser(self) -> None:
        try:
            await super()._maybe_launch_browser()
        except Exception as error:
            if not self.config.launch_options.get("chromium_sandbox"):
                raise
            logger.warning(
                "Chromium could not start with its sandbox, so it runs without one: %s",
                str(error).splitlines()[0][:300],
            )
            self.config.launch_options["chromium_sandbox"] = False
            await super()._maybe_launch_browser()

    async def close(self) -> None:
        if not self.closed:  # Scrapy closes each scheme's handler, and both schemes have this one
            self.closed = True
            await super().close()

    async def _close(self) -> None:
        """The parent's, on Playwright's loop (where the first visit started the proxy): Chromium, then its proxy."""
        await super()._close()
        if self.proxy is not None:
            await self.proxy.close()
        if self.wrapper is not None:
            self.wrapper.cleanup()
