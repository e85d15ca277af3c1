"""doi_sampler: sample DOIs from Crossref and DataCite, follow each to its landing page, yield what was found."""

import asyncio
import json

import redis
import scrapy
from scrapy import signals
from scrapy.spidermiddlewares.httperror import HttpError

from landing import clock
from landing.browser import driver as browser
from landing.config import choice, mailto, mailto_warning, sources
from landing.core import documents, failures, runs
from landing.core.analysis import analyse
from landing.core.doi import resolver_path
from landing.core.reading import read, states_doi
from landing.core.runs import RunError
from landing.crawl.endpoints import endpoint, resolver_hosts, sandbox_pace, service_slots
from landing.crawl.failures import exception_failure
from landing.crawl.responses import headers
from landing.crawl.signals import chain_ended
from landing.crawl.stopping import Stopped
from landing.sampler.answers import ApiRequests
from landing.sampler.frontier import Frontier
from landing.sampler.frontier_redis import LEASE, SHARED
from landing.sampler.items import AnalysisItem, PidItem
from landing.sampler.leading import SharedLead
from landing.sampler.ledger import Ledger
from landing.sampler.listing import OwnerListing
from landing.sampler.pipelines import Docs
from landing.sampler.samples import OwnerSamples
from landing.sampler.shared_run import share_hosts
from landing.stores import StoreError


class DoiSamplerSpider(ApiRequests, OwnerListing, OwnerSamples, SharedLead, scrapy.Spider):
    name = "doi_sampler"

    @classmethod
    def update_settings(cls, settings):
        super().update_settings(settings)
        browser.configure(settings)  # the Playwright handler only when LANDING_DRIVER asks for a browser
        settings.set("DOWNLOAD_SLOTS", service_slots(settings), priority=settings.getpriority("DOWNLOAD_SLOTS"))
        sandbox_pace(settings)
        if settings.get("LANDING_FRONTIER_REDIS"):
            settings.set(
                "SCHEDULER", "landing.sampler.frontier_redis.Scheduler", priority=settings.getpriority("SCHEDULER")
            )
            share_hosts(settings)

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        s = crawler.settings
        clock.configure(s)  # before the run opens: its id, and every timestamp after, are read from it
        spider.crossref_api = endpoint(s, "LANDING_CROSSREF_API")
        spider.datacite_api = endpoint(s, "LANDING_DATACITE_API")
        spider.resolver = endpoint(s, "LANDING_DOI_RESOLVER")
        spider.resolver_hosts = resolver_hosts(s)
        spider.sources = sources(s)
        spider.mailto = mailto(s)
        if warning := mailto_warning(s):
            spider.logger.warning(warning)
        spider.minimum, spider.maximum = s.getint("LANDING_SAMPLE_MIN"), s.getint("LANDING_SAMPLE_MAX")
        spider.per_prefix = s.getint("LANDING_SAMPLE_MIN_PER_PREFIX")
        spider.resource_from = choice(s, "LANDING_RESOURCE_URL_FROM")
        spider.max_hops, spider.maxsize = s.getint("REDIRECT_MAX_TIMES"), s.getint("DOWNLOAD_MAXSIZE")
        spider.driver, spider.sandbox = browser.driver(s), bool(s.get("LANDING_SANDBOX"))
        if spider.driver != s.get("LANDING_DRIVER"):
            crawler.signals.connect(spider._say_browser_unavailable, signal=signals.spider_opened)
        spider.settle_ms = s.getfloat("LANDING_BROWSER_SETTLE") * 1000
        spider.browser_rules = s.get("PLAYWRIGHT_ABORT_REQUEST")  # a BrowserRules, when browser.configure ran
        spider.frontier, spider.docs, spider.ledger, spider.run = Frontier.of(crawler), None, None, None
        spider.shared = bool(s.get("LANDING_FRONTIER_REDIS"))  # visits go through the workers' Redis frontier
        spider.leading = True  # False once a worker sharing the frontier took the lead from this one
        spider.members, spider.clients, spider.listing, spider.cursors = [], {}, {}, set()
        spider.prefixes_of = {}  # (ra, owner) -> the prefixes its listing names, kept on its sample document
        spider.listed = asyncio.Event()
        return spider

    def _say_browser_unavailable(self, spider=None):
        self.crawler.stats.set_value("landing/browser/unavailable", 1)
        self.logger.warning(
            "LANDING_DRIVER=auto, but LANDING_CHROMIUM=%r is not an executable: DOIs that need a browser keep "
            "their HTTP class. Install Debian's chromium-headless-shell (apt-get install chromium-headless-shell), "
            "or set LANDING_DRIVER=http to say that is what you want.",
            self.settings.get("LANDING_CHROMIUM"),
        )

    # The run (landing.sampler.ledger): list the owners once and store the plan, then walk it, asking for each owner's
    # sample and visiting its DOIs only as the bounded frontier drains. A resumed run walks the same plan, and
    # takes sampled owners' DOIs from their stored sample, skipping those already visited.
    async def start(self):
        try:
            async for request_or_item in self._share() if self.shared else self._run():
                yield request_or_item
        except (StoreError, RunError) as error:
            self.crawler.stats.set_value("landing/run/unreadable", str(error))
            self.logger.error("Cannot read or record the run in LANDING_DOCS: %s", error)
        except redis.RedisError as error:
            self.crawler.stats.set_value("landing/run/unreadable", f"LANDING_FRONTIER_REDIS: {error}")
            self.logger.error("Cannot reach the shared frontier (LANDING_FRONTIER_REDIS): %s", error)

    async def _run(self, wanted=None, publish=None):
        stats = self.crawler.stats
        self.docs = Docs.of(self.crawler)
        self.ledger = Ledger(
            self.docs.store,
            wanted or self.settings.get("LANDING_RUN"),
            self.sources,
            self.minimum,
            self.maximum,
            self.per_prefix,
        )
        self.run, resumed = await self.docs.call(self.ledger.open, clock.stamp())
        run_id = self.run["run/id"]
        if publish:
            publish(run_id)
        stats.set_value("landing/run/id", run_id)
        self.logger.info(
            "%s run %s (started %s, %s)",
            "Resuming" if resumed else "Starting",
            run_id,
            self.run["run/started"],
            self.run["run/state"],
        )
        if self.run["run/state"] == "listing" or self.run.get("run/listing") == "incomplete":
            for request in self._listing_requests():
                yield request
            await self.listed.wait()
            listed = self._owners()
            if listed is None and self.run["run/state"] == "listing":
                return
            if listed is not None:
                self.run = await self.docs.call(
                    self.ledger.store_plan, self.run, *listed, clock.stamp(), self.prefixes_of
                )
                self.logger.info(
                    "Planned %d owners: at most %d DOIs (LANDING_SAMPLE_MIN/MAX %d/%d, at least %d per listed prefix)",
                    self.run["run/owners"],
                    self.run["run/dois-planned"],
                    self.run["run/sample-min"],
                    self.run["run/sample-max"],
                    self.run.get("run/sample-per-prefix", 0),
                )
            self.members, self.clients, self.prefixes_of = [], {}, {}
        stats.set_value("landing/run/owners", self.run["run/owners"])
        stats.set_value("landing/run/dois_planned", self.run.get("run/dois-planned") or 0)
        async for request_or_item in self._walk():
            yield request_or_item
        await self.frontier.drained()
        async for request in self._until_visited():
            yield request
        if not self.leading or stats.get_value("landing/run/unvisited"):
            return
        if self.run.get("run/listing") == "incomplete":
            self.logger.error(
                "Run %s stays open: its owners could not all be listed; the same command lists them "
                "again and samples those missing",
                run_id,
            )
            return
        if stats.get_value("landing/run/samples_failed"):
            self.logger.error(
                "Run %s stays open: %d owners could not be sampled; the same command samples them",
                run_id,
                stats.get_value("landing/run/samples_failed"),
            )
            return
        if not stats.get_value("landing/run/dois"):
            stats.set_value("landing/run/sampled_nothing", 1)
            self.logger.error("Run %s has no sampled DOI: every owner's sample failed or came back empty", run_id)
            return
        self.run = await self.docs.call(self.ledger.finish, self.run, clock.stamp())
        stats.set_value("landing/run/finished", 1)
        self.logger.info("Run %s finished", run_id)

    async def _walk(self):
        after, stats = -1, self.crawler.stats
        while True:
            chunk = await self.docs.call(self.ledger.chunk, self.run, after)
            if not chunk:
                return
            for sample, visited in chunk:
                if not self.leading:
                    return
                after = sample["sample/order"]
                if sample["sample/dois"] is None:
                    await self.frontier.enter(sample["sample/size"])
                    yield self._sample_request(sample)
                    continue
                self._count_sampled(sample)
                stats.inc_value("landing/run/visited_before", len(visited))
                for rank, doi in runs.unvisited(sample, visited):
                    await self.frontier.enter()
                    # The pid again: it may not have reached the store before the crawl stopped.
                    for pid_or_request in self._pid_and_visit(sample, rank, doi):
                        yield pid_or_request
                    self.frontier.queued()

    def _pid_and_visit(self, sample, rank, doi):
        """The pid of a sampled owner's DOI at `rank`, then the first request of its visit (only that, shared)."""
        pid = PidItem(documents.pid(doi, sample["sample/ra"], sample["sample/owner"], sample["sample/timestamp"]))
        request = self._visit(pid, (self.run["run/id"], sample["sample/order"], rank))
        if self.shared:
            # To the workers' Redis frontier, queued once under its visit id. The worker that visits the DOI writes
            # its pid, with its visit record: the leader's buffer may die with it before the pid is written.
            request.meta[SHARED] = runs.visit_id(*request.meta["visit"])
            return (request,)
        return pid, request

    # Visiting: the resolver, then every redirect Scrapy follows, to the page.
    def _visit(self, pid, visit):
        """The first request of a DOI's visit; meta `visit` (run id, plan order, sample rank) names its record."""
        rank = visit[2]
        if self.driver == "browser":
            return self._browser_visit(dict(pid), visit, priority=-rank)
        handle = resolver_path(pid["pid/doi"])
        # Each DOI's chain keeps its own cookies (ChainCookiesMiddleware), as a browser visiting it fresh would.
        meta = {"pid": dict(pid), "visit": visit, "handle_httpstatus_list": [401], "cookiejar": pid["pid/doi"]}
        if self.resource_from == "handle":
            return scrapy.Request(
                f"{self.resolver}/api/handles/{handle}?type=URL",
                callback=self.parse_handle,
                errback=self.visit_failed,
                priority=-rank,
                meta={**meta, "landing_resolver": True},
            )
        # dont_filter: two DOIs may share a page, and a loop must reach the redirect limit, not the dupefilter.
        return scrapy.Request(
            f"{self.resolver}/{handle}",
            callback=self.parse_page,
            errback=self.visit_failed,
            priority=-rank,
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
            callback=self.parse_page,
            errback=self.visit_failed,
            priority=response.request.priority,
            dont_filter=True,
            meta=meta,
        )

    def parse_page(self, response):
        hop = self._script_hop(response)
        if hop is not None:
            yield hop
            return
        yield from self._and_maybe_browser(self._page(response), response.meta, response.request.priority)

    def _and_maybe_browser(self, item, meta, priority):
        """The HTTP snapshot, and under LANDING_DRIVER=auto a browser visit when only a browser could do better."""
        # The class reading settled on (js-required, cookie-required ...) is what decides.
        if self.driver != "auto" or item["snapshot/error"] not in failures.BROWSER_CLASSES:
            yield self._final(item, meta)
            return
        yield item
        self.crawler.stats.inc_value("landing/browser/sent")
        yield self._browser_visit(meta["pid"], meta["visit"], priority=priority, lease=meta.get(LEASE))

    # The browser driver (landing/browser/driver.py): Chromium follows everything, scripts included.
    def _browser_visit(self, pid, visit, priority, lease=None):
        meta = {**browser.request_meta(pid, self.sandbox, self.settle_ms), "visit": visit}
        if lease:
            meta[LEASE] = lease
        return scrapy.Request(
            f"{self.resolver}/{resolver_path(pid['pid/doi'])}",
            callback=self.parse_browser,
            errback=self.browser_failed,
            priority=priority,
            dont_filter=True,
            meta=meta,
        )

    async def parse_browser(self, response):
        meta = response.meta
        await browser.end(meta, self.browser_rules)
        if meta["landing_navigation"].stop():  # a script or a redirect moved the page where the rules forbid
            return self._browser_stopped(meta)
        url, status, found = meta["landing_navigation"].last()
        url, status = url or response.url, status or response.status
        content_type, body = found.get("content-type"), response.body
        error = failures.page_failure(status, content_type, found, body)
        if self.maxsize and max(len(body), _length(found)) > self.maxsize:  # Chromium has no DOWNLOAD_MAXSIZE
            error, body = "too-large", None
        return self._final(
            self._snapshot(
                meta,
                meta["landing_navigation"].hops(),
                url,
                status=status,
                content_type=content_type,
                body=body,
                error=error,
                driver="browser",
            ),
            meta,
        )

    async def browser_failed(self, failure):
        meta = failure.request.meta
        await browser.end(meta, self.browser_rules)
        if failure.check(Stopped):
            return None  # the crawl is stopping: the DOI's visit is left for the next crawl
        if meta["landing_navigation"].stop():
            return self._browser_stopped(meta)
        chain = meta["landing_navigation"].hops()
        url = chain[-1]["url"] if chain else failure.request.url
        error = exception_failure(failure.value, [hop["url"] for hop in chain] + [url])
        return self._final(
            self._snapshot(meta, chain, url, error=error, detail=failure.getErrorMessage()[:500], driver="browser"),
            meta,
        )

    def _browser_stopped(self, meta):
        """The snapshot of a visit that ended where landing.browser.rules kept Chromium out (address, robots)."""
        url, stop = meta["landing_navigation"].stop()
        self.crawler.stats.inc_value(stop.stat)
        return self._final(
            self._snapshot(
                meta,
                meta["landing_navigation"].hops_to(url),
                url,
                error=stop.error,
                detail=stop.detail,
                driver="browser",
            ),
            meta,
        )

    def _script_hop(self, response):
        """The next request when the page is a script-only redirect to a literal URL (recorded `js-location`)."""
        content_type = headers(response).get("content-type")
        if not 200 <= response.status < 300 or not failures.is_html(content_type, response.body):
            return None
        target = failures.script_location(response.body, content_type)
        if target and states_doi(analyse(response.body, response.meta["pid"]["pid/doi"], content_type)):
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
            callback=self.parse_page,
            errback=self.visit_failed,
            dont_filter=True,
            priority=response.request.priority,
            meta=meta,
        )

    def visit_failed(self, failure):
        if failure.check(Stopped):
            return  # the crawl is stopping: no snapshot, no visit record, so the next crawl visits the DOI
        request = failure.request
        response = getattr(failure.value, "response", None) if failure.check(HttpError) else None
        if response is not None:  # a 4xx or 5xx that Scrapy's HttpErrorMiddleware turned into a failure
            yield from self._and_maybe_browser(self._page(response, default="http-4xx"), request.meta, request.priority)
            return
        meta = request.meta
        chain = documents.hops(meta.get("redirect_urls", []), meta.get("redirect_reasons", []), None, None)
        error = exception_failure(failure.value, [h["url"] for h in chain] + [request.url])
        chain.append({"url": request.url, "status": None})
        item = self._snapshot(meta, chain, request.url, error=error, detail=failure.getErrorMessage()[:500])
        yield from self._and_maybe_browser(item, meta, request.priority)

    def _page(self, response, default=None):
        meta, found = response.meta, headers(response)
        chain = documents.hops(
            meta.get("redirect_urls", []), meta.get("redirect_reasons", []), response.url, response.status
        )
        content_type = found.get("content-type")
        error = (
            failures.refused_redirect(response.status, found.get("location"), response.url)
            or failures.page_failure(response.status, content_type, found, response.body)
            or default
        )
        return self._snapshot(
            meta,
            chain,
            response.url,
            status=response.status,
            content_type=content_type,
            body=response.body,
            error=error,
        )

    def _snapshot(
        self, meta, chain, final_url, status=None, content_type=None, body=None, error=None, detail=None, driver="http"
    ):
        self.crawler.signals.send_catch_log(chain_ended, jar=meta.get("cookiejar"))  # the chain ends here
        resource = meta.get("resource_url") or documents.resource_url(chain, self.resolver_hosts)
        if failures.host_failure([resource, final_url, *(hop["url"] for hop in chain)]):  # what Chromium followed too
            error, body = "invalid-host", None
        doc = documents.snapshot(
            meta["pid"],
            resource_url=resource,
            timestamp=clock.stamp(),
            hops=chain,
            final_url=final_url,
            status=status,
            content_type=content_type,
            content_length=len(body) if body is not None else None,
            driver=driver,
            content_hash=documents.content_hash(body) if body is not None else None,
            error=error,
            error_detail=detail,
        )
        # Read here, where every visit ends: under LANDING_DRIVER=auto its class decides whether a browser visits.
        return AnalysisItem(read(doc, body, clock.stamp()), body=body)

    def _final(self, item, meta):
        """The DOI's last snapshot of this run: it carries the visit record that DocumentPipeline stores after it
        (and, from a shared frontier, the lease to ack once that record is written)."""
        run_id, order, rank = meta["visit"]
        item.visit = (
            runs.visit_id(run_id, order, rank),
            runs.visit_doc(run_id, order, rank, item["pid/doi"], documents.snapshot_id(item)),
        )
        item.lease = meta.get(LEASE)
        return item


def _carried(meta: dict) -> dict:
    """What every request of a DOI's visit carries on: its pid, its visit record's name, and its lease, if shared."""
    return {key: meta[key] for key in ("pid", "visit", LEASE) if key in meta}


def _length(found: dict) -> int:
    """The Content-Length a response declared, or 0: what the page weighed on the wire, before rendering."""
    try:
        return int(found.get("content-length") or 0)
    except ValueError:
        return 0
