"""The visitor: a DOI's visit from the resolver, through every redirect Scrapy follows and every script hop, to the
page, with the HTTP client or Chromium (landing/browser/driver.py). Each visit ends in a Visit for the pipelines."""

import json
from urllib.parse import urlsplit

import redis
import scrapy
from scrapy.spidermiddlewares.httperror import HttpError

from landing import clock
from landing.browser import driver as browser
from landing.browser.rules import BrowserRules
from landing.core.pages import documents, reading
from landing.core.pages.page import Page
from landing.core.pids.doi import resolver_path
from landing.core.sampling import runs
from landing.core.web import failures
from landing.crawl.failed_visits import exception_failure
from landing.crawl.responses import headers
from landing.crawl.retry import OUTAGE_ERRORS
from landing.crawl.sent_requests import SENT
from landing.crawl.signals import chain_ended
from landing.crawl.stopping import Stopped
from landing.sampler import frontier_redis
from landing.sampler.frontier import Frontier
from landing.sampler.frontier_redis import LEASE
from landing.sampler.items import Visit

# A DOI the registries say moved is visited before the queued refreshes (visits rank 0 down), after the API requests
# (landing.sampler.answers.API_PRIORITY), so its move shows in the next version even when the frontier is full.
FIRST_PRIORITY = 50
BEFORE = "landing_browser_before"  # Request.meta: the hops an HTTP chain made before its browser visit took over


class Visitor:
    """Makes a DOI's requests and reads their responses into Visits.

    cfg: the crawl's landing.config.Config; callbacks: the spider, whose parse_handle, parse_page, parse_browser,
    visit_failed and browser_failed hand each response back here; browser_rules: landing.browser.rules' BrowserRules
    when the driver may use Chromium; max_hops, maxsize: REDIRECT_MAX_TIMES and DOWNLOAD_MAXSIZE.
    """

    def __init__(self, crawler, cfg, callbacks, browser_rules, max_hops: int, maxsize: int):
        self.crawler = crawler
        self.callbacks = callbacks
        self.browser_rules = browser_rules
        self.resolver = cfg.doi_resolver
        self.resolver_hosts = cfg.resolver_hosts
        self.resource_from = cfg.resource_url_from
        self.driver = cfg.driver
        self.sandbox = bool(cfg.sandbox)
        self.settle_ms = cfg.browser_settle * 1000
        self.max_hops = max_hops
        self.maxsize = maxsize
        self.robots_counted = 0  # the browser rules' robots.txt fetches counted so far

    def visit(self, pid, visit, first: bool = False):
        """The first request of a DOI's visit; meta `visit` (run id, plan order, sample rank) names its record; `first`:
        ahead of every other visit queued (a DOI the registries say moved), still behind the API's requests."""
        rank = visit[2]
        priority = FIRST_PRIORITY if first else -rank
        if self.driver == "browser":
            return self._browser_visit(dict(pid), visit, priority=priority)
        handle = resolver_path(pid["pid/doi"])
        # Each DOI's chain keeps its own cookies (ChainCookiesMiddleware), as a browser visiting it fresh would.
        meta = {"pid": dict(pid), "visit": visit, "handle_httpstatus_list": [401], "cookiejar": pid["pid/doi"]}
        if self.resource_from == "handle":
            # dont_filter: continuous mode visits a prefix's panel again in the same crawl.
            return scrapy.Request(
                f"{self.resolver}/api/handles/{handle}?type=URL",
                callback=self.callbacks.parse_handle,
                errback=self.callbacks.visit_failed,
                priority=priority,
                dont_filter=True,
                meta={**meta, "landing_resolver": True},
            )
        # dont_filter: two DOIs may share a page, and a loop must reach the redirect limit, not the dupefilter.
        return scrapy.Request(
            f"{self.resolver}/{handle}",
            callback=self.callbacks.parse_page,
            errback=self.callbacks.visit_failed,
            priority=priority,
            dont_filter=True,
            meta=meta,
        )

    def parse_handle(self, response):
        values = json.loads(response.text).get("values") or []
        url = next((v["data"]["value"] for v in values if v.get("type") == "URL"), None)
        if not url:
            yield self._final(
                self._snapshot(response.meta, [], None, error="http-4xx", detail="handle has no URL value"),
                response.meta,
            )
            return
        meta = {
            **_carried(response.meta),
            "handle_httpstatus_list": [401],
            "resource_url": url,
            "cookiejar": response.meta.get("cookiejar"),
        }
        yield scrapy.Request(
            url,
            callback=self.callbacks.parse_page,
            errback=self.callbacks.visit_failed,
            priority=response.request.priority,
            dont_filter=True,
            meta=meta,
        )

    def parse_page(self, response):
        page = Page(response.body, headers(response).get("content-type"))  # the one parse of this body, if any
        hop = self._script_hop(response, page)
        if hop is not None:
            yield hop
            return
        yield from self._and_maybe_browser(self._page(response, page), response.meta, response.request.priority)

    def _and_maybe_browser(self, visit, meta, priority):
        """The HTTP visit, and under LANDING_DRIVER=auto a browser visit when only a browser could do better."""
        # The class reading settles on (js-required, cookie-required ...) is what decides.
        if self.driver != "auto" or reading.page_class(visit.snapshot, visit.page) not in failures.BROWSER_CLASSES:
            yield self._final(visit, meta)
            return
        yield visit
        self.crawler.stats.inc_value("landing/browser/sent")
        # Chromium takes over at the resource URL the HTTP chain reached: the resolver's answer is known, and
        # Chromium's own request to the resolver would pass by its slot's rate (LANDING_RESOLVER_RATE).
        start, before = documents.off_resolver(visit.snapshot["snapshot/hops"] or [], self.resolver_hosts)
        yield self._browser_visit(meta["pid"], meta["visit"], priority, meta.get(LEASE), start, before)

    # The browser driver (landing/browser/driver.py): Chromium follows everything, scripts included.
    def _browser_visit(self, pid, visit, priority, lease=None, start=None, before=()):
        """A browser visit of pid from `start` (the resolver by default), its snapshot's hops after `before`."""
        meta = {**browser.request_meta(pid, self.sandbox, self.settle_ms), "visit": visit, BEFORE: list(before)}
        if lease:
            meta[LEASE] = lease
        return scrapy.Request(
            start or f"{self.resolver}/{resolver_path(pid['pid/doi'])}",
            callback=self.callbacks.parse_browser,
            errback=self.callbacks.browser_failed,
            priority=priority,
            dont_filter=True,
            meta=meta,
        )

    async def parse_browser(self, response):
        meta = response.meta
        await browser.end(meta, self.browser_rules)
        self._count_browser(meta)
        if meta["landing_navigation"].stop():  # a script or a redirect moved the page where the rules forbid
            return self._browser_stopped(meta)
        url, status, found = meta["landing_navigation"].last()
        url, status = url or response.url, status or response.status
        content_type, body = found.get("content-type"), response.body
        error = failures.page_failure(status, content_type, found, body)
        if self.maxsize and max(len(body), _length(found)) > self.maxsize:  # Chromium has no DOWNLOAD_MAXSIZE
            error, body = "too-large", None
        page = Page(body, content_type) if body is not None else None
        hops = meta.get(BEFORE, []) + meta["landing_navigation"].hops()
        visit = self._snapshot(meta, hops, url, status, content_type, page, error, driver="browser")
        return self._final(visit, meta)

    async def browser_failed(self, failure):
        meta = failure.request.meta
        await browser.end(meta, self.browser_rules)
        self._count_browser(meta)
        if failure.check(Stopped):
            return None  # the crawl is stopping: the DOI's visit is left for the next crawl
        if meta["landing_navigation"].stop():
            return self._browser_stopped(meta)
        before, chain = meta.get(BEFORE, []), meta["landing_navigation"].hops()
        url = chain[-1]["url"] if chain else failure.request.url
        if before and not chain:  # taken over from an HTTP chain: it reached the URL Chromium then failed at
            chain = [{"url": url, "status": None}]
        chain = before + chain
        error = exception_failure(failure.value, [hop["url"] for hop in chain] + [url])
        if self.maxsize and _length(meta["landing_navigation"].last()[2]) > self.maxsize:
            error = "too-large"  # a page declared over the limit is too large, however Chromium's load then ended
        return self._final(
            self._snapshot(meta, chain, url, error=error, detail=failure.getErrorMessage()[:500], driver="browser"),
            meta,
        )

    def _count_browser(self, meta):
        """The requests Chromium sent that Scrapy never saw (the visit's beyond its first, robots.txt's since the
        last visit ended) counted with the crawl's (landing.crawl.sent_requests)."""
        sent = meta["landing_navigation"].sent_beyond()
        if isinstance(self.browser_rules, BrowserRules):
            robots = self.browser_rules.robots_sent  # written on Playwright's loop only: read, never reset, here
            sent, self.robots_counted = sent + robots - self.robots_counted, robots
        if sent:
            self.crawler.stats.inc_value(SENT, sent)

    def _browser_stopped(self, meta):
        """The visit that ended where landing.browser.rules kept Chromium out (address, robots)."""
        url, stop = meta["landing_navigation"].stop()
        self.crawler.stats.inc_value(stop.stat)
        hops = meta.get(BEFORE, []) + meta["landing_navigation"].hops_to(url)
        visit = self._snapshot(meta, hops, url, error=stop.error, detail=stop.detail, driver="browser")
        return self._final(visit, meta)

    def _script_hop(self, response, page):
        """The next request when the page is a script-only redirect to a literal URL (recorded `js-location`)."""
        if not 200 <= response.status < 300 or not failures.is_html(page.content_type, page.body):
            return None
        target = failures.script_location(page)
        if target and reading.landing_page(page, response.meta["pid"]["pid/doi"]):
            target = None  # a landing page that also scripts a move is still a landing page
        url = response.urljoin(target) if target else None
        urls = response.meta.get("redirect_urls", [])
        if (
            not url
            or not url.startswith(("http://", "https://"))
            or url in urls
            or url == response.url
            or len(urls) >= self.max_hops
        ):
            return None  # no literal target, a loop, or the hop limit: the page is read as it is (js-required)
        meta = {
            **_carried(response.meta),
            **{
                key: response.meta[key]
                for key in ("handle_httpstatus_list", "cookiejar", "resource_url")
                if key in response.meta
            },
        }
        meta.update(
            redirect_urls=[*urls, response.url],
            redirect_reasons=[*response.meta.get("redirect_reasons", []), "js-location"],
            redirect_times=response.meta.get("redirect_times", 0) + 1,
        )
        return scrapy.Request(
            url,
            callback=self.callbacks.parse_page,
            errback=self.callbacks.visit_failed,
            dont_filter=True,
            priority=response.request.priority,
            meta=meta,
        )

    def visit_failed(self, failure):
        if failure.check(Stopped):
            return  # the crawl is stopping: no snapshot, no visit record, so the next crawl visits the DOI
        request = failure.request
        response = getattr(failure.value, "response", None) if failure.check(HttpError) else None
        if urlsplit(request.url).hostname in self.resolver_hosts and (
            failure.check(*OUTAGE_ERRORS) or (response is not None and _unavailable(response.status))
        ):
            self._deferred(request.meta)  # the resolver was down past LANDING_OUTAGE_MAX: no fault of the publisher's
            return
        if response is not None:  # a 4xx or 5xx that Scrapy's HttpErrorMiddleware turned into a failure
            page = Page(response.body, headers(response).get("content-type"))
            yield from self._and_maybe_browser(self._page(response, page, "http-4xx"), request.meta, request.priority)
            return
        meta = request.meta
        chain = documents.hops(meta.get("redirect_urls", []), meta.get("redirect_reasons", []), None, None)
        error = exception_failure(failure.value, [h["url"] for h in chain] + [request.url])
        chain.append({"url": request.url, "status": None})
        visit = self._snapshot(meta, chain, request.url, error=error, detail=failure.getErrorMessage()[:500])
        yield from self._and_maybe_browser(visit, meta, request.priority)

    def _deferred(self, meta) -> None:
        """Leave a DOI's visit to a later walk of the run: it leaves the frontier with no visit recorded, so the
        planner's walk for DOIs without a visit (landing.sampler.planner.until_visited) queues it again."""
        self.crawler.stats.inc_value("landing/visit/deferred")
        if not meta.get(LEASE):
            Frontier.of(self.crawler).leave()
            return
        try:  # out of the shared frontier: the leader's walk finds it without a visit, as it finds a lost one
            frontier_redis.ack(self.crawler, meta)
        except redis.RedisError:
            pass  # its lease runs out, and another worker visits it

    def _page(self, response, page, default=None):
        meta, found = response.meta, headers(response)
        chain = documents.hops(
            meta.get("redirect_urls", []), meta.get("redirect_reasons", []), response.url, response.status
        )
        error = (
            failures.refused_redirect(response.status, found.get("location"), response.url)
            or failures.page_failure(response.status, page.content_type, found, page.body)
            or default
        )
        return self._snapshot(meta, chain, response.url, response.status, page.content_type, page, error)

    def _snapshot(
        self, meta, chain, final_url, status=None, content_type=None, page=None, error=None, detail=None, driver="http"
    ):
        """The Visit of a chain that ended at `final_url`, with the page it fetched, if any."""
        self.crawler.signals.send_catch_log(chain_ended, jar=meta.get("cookiejar"))  # the chain ends here
        resource = meta.get("resource_url") or documents.resource_url(chain, self.resolver_hosts)
        if failures.host_failure([resource, final_url, *(hop["url"] for hop in chain)]):  # what Chromium followed too
            error, page = "invalid-host", None
        doc = documents.snapshot(
            meta["pid"],
            resource_url=resource,
            timestamp=clock.stamp(),
            hops=chain,
            final_url=final_url,
            status=status,
            content_type=content_type,
            content_length=len(page.body) if page is not None else None,
            driver=driver,
            content_hash=documents.content_hash(page.body) if page is not None else None,
            error=error,
            error_detail=detail,
        )
        return Visit(doc, page)

    def _final(self, visit, meta):
        """The DOI's last visit of this run: it carries the visit record that DocumentPipeline stores after its
        snapshot (and, from a shared frontier, the lease to ack once that record is written)."""
        run_id, order, rank = meta["visit"]
        visit.record = (
            runs.visit_id(run_id, order, rank),
            runs.visit_doc(run_id, order, rank, visit.snapshot["pid/doi"], documents.snapshot_id(visit.snapshot)),
        )
        visit.lease = meta.get(LEASE)
        return visit


def _carried(meta: dict) -> dict:
    """What every request of a DOI's visit carries on: its pid, its visit record's name, and its lease, if shared."""
    return {key: meta[key] for key in ("pid", "visit", LEASE) if key in meta}


def _unavailable(status: int) -> bool:
    """A status that says the server cannot answer now (5xx, 429), not what the DOI's page is."""
    return status >= 500 or status == 429


def _length(found: dict) -> int:
    """The Content-Length a response declared, or 0: what the page weighed on the wire, before rendering."""
    try:
        return int(found.get("content-length") or 0)
    except ValueError:
        return 0
