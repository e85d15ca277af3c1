"""doi_sampler: sample DOIs from Crossref and DataCite, follow each to its landing page, yield what was found."""
import json

import scrapy
from scrapy.spidermiddlewares.httperror import HttpError

from .. import browser
from ..core import documents, failures
from ..core.analysis import analyse
from ..core.reading import read, states_doi
from ..core.doi import normalise, resolver_path
from ..core.sampling import sample_size
from ..endpoints import endpoint, resolver_hosts
from ..failures import exception_failure
from ..items import AnalysisItem, PidItem, SnapshotItem
from ..middlewares import chain_ended
from ..responses import headers
from ..stores.base import content_hash
from ..sources import crossref, datacite

API_PRIORITY = 100  # sampling runs ahead of visits, so every owner's first DOI is visited before any second


class DoiSamplerSpider(scrapy.Spider):
    name = "doi_sampler"

    @classmethod
    def update_settings(cls, settings):
        super().update_settings(settings)
        browser.configure(settings)  # the Playwright handler only when LANDING_DRIVER asks for a browser

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        s = crawler.settings
        spider.crossref_api = endpoint(s, "LANDING_CROSSREF_API")
        spider.datacite_api = endpoint(s, "LANDING_DATACITE_API")
        spider.resolver = endpoint(s, "LANDING_DOI_RESOLVER")
        spider.resolver_hosts = resolver_hosts(s)
        spider.sources = [x.strip() for x in s.get("LANDING_SOURCES", "crossref,datacite").split(",") if x.strip()]
        spider.mailto = s.get("LANDING_MAILTO")
        spider.minimum, spider.maximum = s.getint("LANDING_SAMPLE_MIN"), s.getint("LANDING_SAMPLE_MAX")
        spider.resource_from = s.get("LANDING_RESOURCE_URL_FROM")
        spider.max_hops, spider.maxsize = s.getint("REDIRECT_MAX_TIMES"), s.getint("DOWNLOAD_MAXSIZE")
        spider.driver, spider.sandbox = browser.driver(s), bool(s.get("LANDING_SANDBOX"))
        if spider.driver != s.get("LANDING_DRIVER"):
            crawler.stats.set_value("landing/browser/unavailable", 1)
            spider.logger.warning(
                "LANDING_DRIVER=auto, but LANDING_CHROMIUM=%r is not an executable: DOIs that need a browser keep "
                "their HTTP class. Install Debian's chromium (apt-get install chromium), or set LANDING_DRIVER=http "
                "to say that is what you want.", s.get("LANDING_CHROMIUM"))
        spider.settle_ms = s.getfloat("LANDING_BROWSER_SETTLE") * 1000
        spider.browser_rules = s.get("PLAYWRIGHT_ABORT_REQUEST")  # a BrowserRules, when browser.configure ran
        unknown = set(spider.sources) - {"crossref", "datacite"}
        if unknown or spider.resource_from not in ("redirect", "handle"):
            raise ValueError(f"LANDING_SOURCES takes crossref,datacite (got {sorted(unknown)}); "
                             f"LANDING_RESOURCE_URL_FROM takes redirect|handle (got {spider.resource_from!r})")
        spider.members, spider.clients, spider.seen = [], {}, set()
        return spider

    async def start(self):
        if "crossref" in self.sources:
            yield self._api(crossref.members_url(self.crossref_api, self.mailto), self.parse_members)
        if "datacite" in self.sources:
            yield self._api(datacite.clients_url(self.datacite_api), self.parse_clients)

    def _api(self, url, callback, **meta):
        # APIs are for machines: their terms, not robots.txt, govern them.
        return scrapy.Request(url, callback=callback, errback=self.api_failed, priority=API_PRIORITY,
                              meta={"dont_obey_robotstxt": True, "landing_api": True, **meta})

    def api_failed(self, failure):
        self.crawler.stats.inc_value("landing/api_failed")
        self.logger.error("API request failed, its DOIs are not sampled: %s (%s)", failure.request.url,
                          failure.getErrorMessage())

    # Crossref: all members first (a sample's size depends on the largest member), then one sample each.
    def parse_members(self, response):
        members, cursor, total = crossref.parse_members(json.loads(response.text))
        self.members += members
        if cursor:
            yield self._api(crossref.members_url(self.crossref_api, self.mailto, cursor), self.parse_members)
            return
        if members and len(self.members) < total:
            # The route answered without a next-cursor (member cursors are not everywhere): page by offset.
            url = crossref.members_url(self.crossref_api, self.mailto, offset=len(self.members))
            yield self._api(url, self.parse_members)
            return
        largest = max((m["total"] for m in self.members), default=0)
        self.logger.info("Crossref: %d members, largest has %d DOIs", len(self.members), largest)
        for member in self.members:
            size = sample_size(member["total"], largest, self.minimum, self.maximum)
            if size:
                url = crossref.sample_url(self.crossref_api, member["id"], size, self.mailto)
                yield self._api(url, self.parse_sample, ra="crossref", owner=member["id"])

    def parse_clients(self, response):
        clients, following = datacite.parse_clients(json.loads(response.text))
        for client in clients:
            self.clients[client] = None
            yield self._api(datacite.count_url(self.datacite_api, client), self.parse_count, owner=client)
        if following:
            yield self._api(following, self.parse_clients)

    def parse_count(self, response):
        self.clients[response.meta["owner"]] = datacite.parse_total(json.loads(response.text))
        if any(total is None for total in self.clients.values()):
            return
        largest = max(self.clients.values(), default=0)
        self.logger.info("DataCite: %d clients, largest has %d DOIs", len(self.clients), largest)
        for client, total in self.clients.items():
            size = sample_size(total, largest, self.minimum, self.maximum)
            if size:
                url = datacite.sample_url(self.datacite_api, client, size)
                yield self._api(url, self.parse_sample, ra="datacite", owner=client)

    def parse_sample(self, response):
        payload = json.loads(response.text)
        ra, owner = response.meta["ra"], response.meta["owner"]
        dois = crossref.parse_dois(payload) if ra == "crossref" else datacite.parse_dois(payload)
        timestamp = documents.now()
        for rank, doi in enumerate(dict.fromkeys(normalise(d) for d in dois)):
            if doi in self.seen:
                continue
            self.seen.add(doi)
            pid = PidItem(documents.pid(doi, ra, owner, timestamp))
            yield pid
            yield self._visit(pid, rank)

    # Visiting: the resolver, then every redirect Scrapy follows, to the page.
    def _visit(self, pid, rank):
        if self.driver == "browser":
            return self._browser_visit(dict(pid), priority=-rank)
        handle = resolver_path(pid["pid/doi"])
        # Each DOI's chain keeps its own cookies (ChainCookiesMiddleware), as a browser visiting it fresh would.
        meta = {"pid": dict(pid), "handle_httpstatus_list": [401], "cookiejar": pid["pid/doi"]}
        if self.resource_from == "handle":
            return scrapy.Request(f"{self.resolver}/api/handles/{handle}?type=URL", callback=self.parse_handle,
                                  errback=self.visit_failed, priority=-rank, meta={**meta, "landing_resolver": True})
        # dont_filter: two DOIs may share a page, and a loop must reach the redirect limit, not the dupefilter.
        return scrapy.Request(f"{self.resolver}/{handle}", callback=self.parse_page, errback=self.visit_failed,
                              priority=-rank, dont_filter=True, meta=meta)

    def parse_handle(self, response):
        values = json.loads(response.text).get("values") or []
        url = next((v["data"]["value"] for v in values if v.get("type") == "URL"), None)
        if not url:
            yield self._snapshot(response.meta, [], None, error="http-4xx", detail="handle has no URL value")
            return
        meta = {"pid": response.meta["pid"], "handle_httpstatus_list": [401], "resource_url": url,
                "cookiejar": response.meta.get("cookiejar")}
        yield scrapy.Request(url, callback=self.parse_page, errback=self.visit_failed, priority=response.request.priority,
                             dont_filter=True, meta=meta)

    def parse_page(self, response):
        hop = self._script_hop(response)
        if hop is not None:
            yield hop
            return
        yield from self._and_maybe_browser(self._page(response), response.meta, response.request.priority)

    def _and_maybe_browser(self, item, meta, priority):
        """The HTTP snapshot, and under LANDING_DRIVER=auto a browser visit when only a browser could do better."""
        if self.driver != "auto":
            yield item
            return
        # Read here rather than in AnalysisPipeline (which passes analysed items on): the class it settles on
        # (js-required, cookie-required ...) is what decides, and the page is parsed once.
        item = AnalysisItem(read(dict(item), item.body, documents.now()), body=item.body)
        yield item
        if item["snapshot/error"] in failures.BROWSER_CLASSES:
            self.crawler.stats.inc_value("landing/browser/sent")
            yield self._browser_visit(meta["pid"], priority=priority)

    # The browser driver (landing/browser.py): Chromium follows everything, scripts included.
    def _browser_visit(self, pid, priority):
        return scrapy.Request(f"{self.resolver}/{resolver_path(pid['pid/doi'])}", callback=self.parse_browser,
                              errback=self.browser_failed, priority=priority, dont_filter=True,
                              meta=browser.request_meta(pid, self.sandbox, self.settle_ms))

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
        return self._snapshot(meta, meta["landing_navigation"].hops(), url, status=status,
                              content_type=content_type, body=body, error=error, driver="browser")

    async def browser_failed(self, failure):
        meta = failure.request.meta
        await browser.end(meta, self.browser_rules)
        if meta["landing_navigation"].stop():
            return self._browser_stopped(meta)
        chain = meta["landing_navigation"].hops()
        url = chain[-1]["url"] if chain else failure.request.url
        error = exception_failure(failure.value, [hop["url"] for hop in chain] + [url])
        return self._snapshot(meta, chain, url, error=error, detail=failure.getErrorMessage()[:500], driver="browser")

    def _browser_stopped(self, meta):
        """The snapshot of a visit that ended where landing.browser_rules kept Chromium out (address, robots)."""
        url, stop = meta["landing_navigation"].stop()
        self.crawler.stats.inc_value(stop.stat)
        return self._snapshot(meta, meta["landing_navigation"].hops_to(url), url, error=stop.error, detail=stop.detail,
                              driver="browser")

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
        if not url or not url.startswith(("http://", "https://")) or url in urls or url == response.url \
                or len(urls) >= self.max_hops:
            return None  # no literal target, a loop, or the hop limit: the page is read as it is (js-required)
        meta = {key: response.meta[key] for key in ("pid", "handle_httpstatus_list", "cookiejar", "resource_url")
                if key in response.meta}
        meta.update(redirect_urls=[*urls, response.url],
                    redirect_reasons=[*response.meta.get("redirect_reasons", []), "js-location"],
                    redirect_times=response.meta.get("redirect_times", 0) + 1)
        return scrapy.Request(url, callback=self.parse_page, errback=self.visit_failed, dont_filter=True,
                              priority=response.request.priority, meta=meta)

    def visit_failed(self, failure):
        request = failure.request
        response = getattr(failure.value, "response", None) if failure.check(HttpError) else None
        if response is not None:  # a 4xx or 5xx that Scrapy's HttpErrorMiddleware turned into a failure
            yield from self._and_maybe_browser(self._page(response, default="http-4xx"), request.meta,
                                               request.priority)
            return
        meta = request.meta
        chain = documents.hops(meta.get("redirect_urls", []), meta.get("redirect_reasons", []), None, None)
        error = exception_failure(failure.value, [h["url"] for h in chain] + [request.url])
        chain.append({"url": request.url, "status": None})
        item = self._snapshot(meta, chain, request.url, error=error, detail=failure.getErrorMessage()[:500])
        yield from self._and_maybe_browser(item, meta, request.priority)

    def _page(self, response, default=None):
        meta, found = response.meta, headers(response)
        chain = documents.hops(meta.get("redirect_urls", []), meta.get("redirect_reasons", []),
                               response.url, response.status)
        content_type = found.get("content-type")
        error = failures.page_failure(response.status, content_type, found, response.body) or default
        return self._snapshot(meta, chain, response.url, status=response.status, content_type=content_type,
                              body=response.body, error=error)

    def _snapshot(self, meta, chain, final_url, status=None, content_type=None, body=None, error=None, detail=None,
                  driver="http"):
        self.crawler.signals.send_catch_log(chain_ended, jar=meta.get("cookiejar"))  # the chain ends here
        resource = meta.get("resource_url") or documents.resource_url(chain, self.resolver_hosts)
        doc = documents.snapshot(meta["pid"], resource_url=resource, timestamp=documents.now(), urls=chain,
                                 final_url=final_url, status=status, content_type=content_type,
                                 content_length=len(body) if body is not None else None, driver=driver,
                                 content_hash=content_hash(body) if body is not None else None,
                                 error=error, error_detail=detail)
        return SnapshotItem(doc, body=body)


def _length(found: dict) -> int:
    """The Content-Length a response declared, or 0: what the page weighed on the wire, before rendering."""
    try:
        return int(found.get("content-length") or 0)
    except ValueError:
        return 0
