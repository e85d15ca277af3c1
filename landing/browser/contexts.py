"""Browser contexts lent to visits one at a time, and emptied between them.

A fresh context per visit costs Chromium a renderer process per visit: renderers belong to one context, so none
is ever reused however few are allowed. Contexts here are kept (LANDING_BROWSER_PAGES of them, by name, which
scrapy-playwright creates at their first visit), each holding a blank page that keeps its renderer alive between
visits. A visit borrows a free one; when it ends, its pages close and its state is emptied before the next borrows
it: every cookie of the context, and all stored data (local and session storage, IndexedDB, Cache Storage, service
workers) of every origin whose document the visit loaded (Navigation.origins); then its renderer's garbage is
collected. A context that cannot be shown empty
(the visit opened pages, whose documents it does not see; a failed clearing) is closed instead, and its name
creates a fresh one; so is one that served VISITS visits.
HTTP caching is off in every context (scrapy-playwright routes every request, and routing disables the cache).
Kept across visits, as in one browser profile: the network state (open connections, DNS answers, HSTS pins).
"""

import asyncio
import logging

logger = logging.getLogger(__name__)

TAKEN = "landing_browser_context"  # Request.meta: the name of the context a visit borrowed
POOL = "landing_browser_contexts"  # Request.meta: the Contexts it borrowed it from
# Without memory pressure a kept renderer never collected its V8 heap, and grew with every visit: each visit's end
# asks for a collection. What a collection does not free is bounded too: a context is closed and made again after
# VISITS visits, at one new renderer per VISITS visits (bench/README.md "browser_visit_cost.py").
VISITS = 16


class Unclean(Exception):
    """A context whose state a visit left where it cannot be emptied with certainty."""


class Contexts:
    """size contexts, by name, each lent to one visit at a time. Used on Playwright's event loop only."""

    def __init__(self, size: int):
        self.names = [f"landing {n}" for n in range(max(1, size))]
        self.free: asyncio.Queue | None = None  # made on first use, on the loop that uses it
        self.keepers: dict = {}  # name -> (context, its blank page, a CDP session on that page)
        self.visits: dict[str, int] = {}  # name -> visits its context has ended

    async def take(self, meta: dict) -> str:
        """The context meta's visit uses (one it borrowed already, when it is retried), waiting for a free one."""
        if meta.get(TAKEN):
            return meta[TAKEN]
        meta[POOL] = self
        if self.free is None:
            # Last given back, first lent: a context (and its renderer) is made only when more visits run at once
            # than ever before, so a crawl sending few DOIs to Chromium holds few.
            self.free = asyncio.LifoQueue()
            for name in reversed(self.names):
                self.free.put_nowait(name)
        meta[TAKEN] = await self.free.get()
        return meta[TAKEN]

    def give_back(self, meta: dict) -> None:
        """Return the context meta's visit borrowed, once; for a visit that never opened a page."""
        name = meta.pop(TAKEN, None)
        if name is not None and self.free is not None:
            self.free.put_nowait(name)

    async def end(self, meta: dict, page, origins, fetching=()) -> None:
        """Empty the context of page's visit for the next one, or close it, and give its name back. origins: those
        of the documents the visit loaded, None when they are not all known (it opened pages). fetching: what the
        visit's rules still fetch through the context (robots.txt), awaited first, since a response's cookies would
        land in the next visit."""
        name, context = meta.get(TAKEN), page.context
        try:
            if name is None:
                raise Unclean("a page in no context of the pool")
            if origins is None:
                raise Unclean("the visit opened pages of its own")
            if fetching:
                await asyncio.wait(fetching)
            self.visits[name] = self.visits.get(name, 0) + 1
            if self.visits[name] >= VISITS:
                raise Unclean(f"{VISITS} visits ended in it")
            await self._empty(name, context, page, origins)
        except Exception as error:  # Playwright's errors, a context closed under the visit, Unclean
            logger.debug("closing browser context %s instead of reusing it: %r", name, error)
            self.keepers.pop(name, None)
            self.visits.pop(name, None)
            try:
                await context.close()
            except Exception as closing:  # a browser that already went away has nothing left to close
                logger.debug("closing browser context %s: %r", name, closing)
        finally:
            self.give_back(meta)

    async def _empty(self, name: str, context, page, origins) -> None:
        kept = self.keepers.get(name)
        if kept is None or kept[0] is not context or kept[1].is_closed():
            self.keepers.pop(name, None)
            keeper = await context.new_page()  # opened before the visit's page closes, its renderer is kept
            kept = self.keepers[name] = (context, keeper, await context.new_cdp_session(keeper))
        # A page opened otherwise than as the visit's popup: the origins its documents loaded were never seen.
        others = [other for other in context.pages if other is not page and other is not kept[1]]
        if others:
            raise Unclean(f"{len(others)} page(s) other than the visit's")
        await page.close()
        await context.clear_cookies()
        for origin in sorted(origins):
            await kept[2].send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
        await kept[2].send("HeapProfiler.collectGarbage")
