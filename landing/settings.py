"""Scrapy settings of the landing project. Every LANDING_* setting is documented here, once, with its default.

docs/settings.md lists the names by group; Scrapy's own settings changed from their defaults come last.
"""

import os

from landing.core.web.chromium import default_chromium

BOT_NAME = "landing"
SPIDER_MODULES = ["landing.sampler.doi_sampler", "landing.match.matcher_spider"]
NEWSPIDER_MODULE = "landing.sampler"
COMMANDS_MODULE = "landing.commands"

# --- Where things are -----------------------------------------------------------------------------------
# Each comment says what the setting does, its default, and why an operator would change it ("Change it").
# LANDING_SANDBOX: URL of a running sandbox (`scrapy sandbox serve`), e.g. http://127.0.0.1:8700. When set, every
# request the crawler makes (spider requests, redirects, robots.txt) goes through it as an HTTP proxy, and the two API
# endpoints below switch to plain http (the resolver keeps https). Default: unset, the real web. Change it to try the
# crawler, or a change to it, on an offline copy of the web (docs/sandbox.md).
LANDING_SANDBOX = None

# LANDING_CROSSREF_API, LANDING_DATACITE_API, LANDING_DOI_RESOLVER: the registries' APIs and the DOI resolver, so that
# the same code runs against the real web or a stand-in. Defaults: the public services. Change one to use a mirror, a
# caching proxy or a test server of that service.
LANDING_CROSSREF_API = "https://api.crossref.org"
LANDING_DATACITE_API = "https://api.datacite.org"
LANDING_DOI_RESOLVER = "https://doi.org"

# LANDING_DOCS: the document store (pid, snapshot, analysis and report documents): sqlite:///relative.db,
# sqlite:////absolute.db, or an Elasticsearch cluster, http(s)://host:9200 (docs/production.md "Documents in
# Elasticsearch"). Default: sqlite:///data/landing.db. Change it to keep the data elsewhere, or to share it among
# several workers (Elasticsearch).
LANDING_DOCS = "sqlite:///data/landing.db"
# LANDING_DOCS_INDEX_PREFIX: Elasticsearch only: documents of kind K go to the index <prefix>-K. Default: landing.
# Change it when several deployments share one cluster.
LANDING_DOCS_INDEX_PREFIX = "landing"
# LANDING_DOCS_API_KEY, or LANDING_DOCS_USERNAME and LANDING_DOCS_PASSWORD: Elasticsearch credentials (the
# encoded API key, or basic auth). LANDING_DOCS_CA_CERTS: a CA bundle for https. Defaults: none. Set them for a
# cluster that asks for them. Each may instead be an environment variable of the same name, which keeps it out of
# scrapyd's job list; none is ever logged.
LANDING_DOCS_API_KEY = None
LANDING_DOCS_USERNAME = None
LANDING_DOCS_PASSWORD = None
LANDING_DOCS_CA_CERTS = None
# LANDING_DOCS_OUTAGE_MAX: seconds a crawl goes on, keeping documents in memory, while the document store
# refuses writes. Past it the crawl stops, saves them under LANDING_UNWRITTEN_DIR and exits 1. Default: 300. Change
# it to ride out a longer planned maintenance of the store, or to stop sooner on a machine short of memory.
LANDING_DOCS_OUTAGE_MAX = 300.0
# LANDING_UNWRITTEN_DIR: where documents the store would not take are saved, one JSON line each, for
# `scrapy load FILE` to put into the store once it is back. Default: data/unwritten. Change it to a disk that outlives
# the crawl's machine.
LANDING_UNWRITTEN_DIR = "data/unwritten"
# LANDING_BLOBS: the blob store (page bodies under their sha256, each snapshot's JSON beside its body): file://DIR or
# s3://bucket/prefix. Default: file://data/blobs. Change it to keep the bodies elsewhere, or in S3 for several workers.
LANDING_BLOBS = "file://data/blobs"
# LANDING_ARTIFACTS_DIR: where artifacts are exported: the latest at the top, every version under versions/.
# Default: data/artifacts. Change it to where the matchers (or a web server) read them.
LANDING_ARTIFACTS_DIR = "data/artifacts"
# LANDING_EXCLUDED_DOMAINS: a file of domains (one a line, # comments) that replaces the shipped exclusion list
# (landing/core/matching/exclusions.py: video platforms, social media, file hosting, web archives): domains a DOI may lead
# to but the matcher can never match on; never recognised or confirmed, in the artifacts or by the matcher.
# Default: empty, the shipped list. Change it when a platform should be excluded, or no longer be.
LANDING_EXCLUDED_DOMAINS = ""

# --- Sampling -----------------------------------------------------------------------------------------
# LANDING_SOURCES: which registration agencies to sample, comma-separated: crossref, datacite. Default: both. Change it
# to sample one agency's DOIs only.
LANDING_SOURCES = "crossref,datacite"
# LANDING_SAMPLE_MAX / MIN: DOIs sampled from the largest member (or DataCite client) / from any member (all of its
# DOIs when it has fewer); in between, proportional to its DOI count. 100 is the Crossref API's largest sample.
# Defaults: 100 and 10. Change them to trade a run's length (requests) for the precision of each member's figures.
LANDING_SAMPLE_MAX = 100
LANDING_SAMPLE_MIN = 10
# LANDING_SAMPLE_MIN_PER_PREFIX: DOIs each prefix a member (or client) lists gets at least (all of its DOIs when it
# has fewer), within the member's budget: the budget is raised to this many per listed prefix when that is more,
# and a prefix the member-wide sample left short is sampled on its own, one more API request (docs/crawl.md
# "Sampling": the rule and what it costs a full run). 0: per member only. A run keeps the value it began with.
# Default: 3. Change it to trade API requests for the coverage of a member's smaller prefixes.
LANDING_SAMPLE_MIN_PER_PREFIX = 3
# LANDING_MAILTO: your email, sent to Crossref as `mailto` so requests join its "polite" pool. Default: unset. Set it:
# an address that is not one is refused, and a crawl of the real Crossref API without one warns (1 request a second,
# not 3).
LANDING_MAILTO = None
# LANDING_RUN: which run a crawl works on. A run lists every owner once, stores the plan (sample sizes) in
# LANDING_DOCS, then samples and visits owner by owner, recording each visit; a crawl stopped at any moment
# (kill -9 included) is resumed by the same command. auto (default): resume the latest unfinished run in the
# store, or start a new one; new: start a new one; any other name: resume that run, or start one by that name.
# Change it to start afresh while a run is unfinished, or to name runs.
LANDING_RUN = "auto"
# LANDING_CLOCK: the time every timestamp is read from (landing/clock.py: documents, run ids, artifact version names,
# the matcher's LANDING_MATCH_SEEN_WITHIN). Unset (default): the wall clock, UTC. A UTC instant
# (2030-01-01T00:00:00Z): the clock starts there and runs on at real speed. A shift (+30d, -2h, +90m, +15s): the wall
# clock moved by that much. A real crawl leaves it unset; change it to simulate time against a sandbox.
LANDING_CLOCK = None
# LANDING_CLOCK_SPEED: simulated seconds that pass in a real second (default 1: real time). With 1440, a simulated day
# passes in a real minute: continuous sampling's schedule (LANDING_REFRESH_DAYS, LANDING_EXPORT_EVERY, ...) runs
# compressed, while politeness (pacing, timeouts) stays in real seconds. Change it to watch a simulated month of
# continuous sampling in minutes.
LANDING_CLOCK_SPEED = 1.0
# LANDING_CLOCK_SINCE: the real moment (a Unix time, seconds) LANDING_CLOCK's instant stood for; unset (default):
# when the process set its clock. Give every process of one simulation the same value (a crawl, its restart after
# kill -9, the evolving sandbox) and they read the same simulated time.
LANDING_CLOCK_SINCE = None
# LANDING_FRONTIER: at most this many sampled DOIs are in the crawl at once (queued, downloading or being
# stored); the next owners are sampled as it drains, so memory stays flat however long the run. With
# LANDING_FRONTIER_REDIS, per worker: N workers share a frontier of N times this many. Each DOI waits its turn at
# polite hosts, so a smaller frontier leaves CPU idle (bench/README.md "fullrun.py"). Default: 2000. Change it to fit
# a machine's memory.
LANDING_FRONTIER = 2000
# LANDING_FRONTIER_REDIS: redis://host:port/db of a Redis that N crawler processes (on one machine or several)
# share as one frontier (landing.sampler.frontier_redis): one worker leads the run (lists, plans, samples) and all visit,
# each DOI leased to one worker until its visit is stored, so a worker's death loses nothing. All must use the same
# LANDING_DOCS and LANDING_BLOBS (docs/production.md "Several workers"). Its keys are namespaced per store and run.
# Set Redis to maxmemory-policy noeviction, with persistence (appendonly yes): the crawl warns at start otherwise.
# Unset (default): one process, no Redis. Set it to crawl with several workers.
LANDING_FRONTIER_REDIS = None
# LANDING_LEASE_SECONDS: how long a dead worker's DOIs (and its lead of the run) wait before another takes them.
# Default: 120. Change it to take over sooner, or, on a network that pauses workers for longer, later.
LANDING_LEASE_SECONDS = 120
# LANDING_WORKERS: how many workers share the frontier; each takes 1/N of the per-host limits (per-domain
# concurrency, AutoThrottle's target, the resolver's slot and rate), so together they ask a host no more than one
# would, and leases at most 1/N of the DOIs in the frontier, so a worker that starts later still finds some to visit
# (landing.core.sampling.lease_shares). Default: 1. Set it to the number of workers sharing LANDING_FRONTIER_REDIS (or matchers sharing the
# resolver's rate through LANDING_MATCH_REDIS).
LANDING_WORKERS = 1

# --- Visiting -----------------------------------------------------------------------------------------
# LANDING_RESOLVER_RATE: requests a second to the DOI resolver (a DOI's first request, its retries, Handle API
# lookups; landing.crawl.resolver_pace), a quarter second's worth at once after a pause. doi.org publishes no limit,
# and clients resolving many DOIs in parallel have met its 429s; the default, 100, stays above what sampling feeds on
# the real web (docs/crawl.md). 0: only the slot's concurrency. Through LANDING_SANDBOX: 0 unless set. Change it when
# the resolver asks for a gentler pace, or when a resolver of your own allows more.
LANDING_RESOLVER_RATE = 100
# LANDING_DRIVER: how landing pages are fetched. http: Scrapy's downloader (redirects, meta refresh, script
# redirects to a literal URL, one cookie jar per DOI). browser: headless Chromium through scrapy-playwright, for
# every DOI. auto (default): http first, and the browser only for DOIs whose HTTP snapshot is js-required,
# cookie-required or a challenge (both snapshots kept). Playwright and Chromium start at the first DOI that needs
# them. Without an executable LANDING_CHROMIUM, auto warns and works as http; browser refuses to start. Change it to
# http on a machine without Chromium, or to browser to see every page as a browser does.
LANDING_DRIVER = "auto"
# LANDING_CHROMIUM: the Chromium executable for the browser driver. Default: Debian's chromium-headless-shell
# (apt-get install chromium-headless-shell) where this machine has it, a fraction of the full browser's CPU per
# visit; else Debian's chromium (landing.core.web.chromium). Change it where Chromium is installed elsewhere.
LANDING_CHROMIUM = default_chromium(lambda path: os.access(path, os.X_OK))
# LANDING_BROWSER_PAGES: browser pages open at once, each in a context of its own (as many contexts, kept for the
# crawl and emptied between visits: docs/drivers.md); browser visits wait their turn in a download slot of their own
# this wide, not in the resolver's, where HTTP visits would queue behind them. Default: 8. Change it to fit the
# machine's memory and CPUs.
LANDING_BROWSER_PAGES = 8
# LANDING_RESOLVER_ROBOTS: ignore (default) or obey robots.txt on the DOI resolver's hops. Landing pages
# always follow ROBOTSTXT_OBEY; the API requests never consult robots.txt. Change it to obey should the resolver
# publish rules for crawlers.
LANDING_RESOLVER_ROBOTS = "ignore"
# LANDING_ADDRESS_GUARD: refuse every request (redirect hops and robots.txt fetches included) whose host is, or
# resolves to, a loopback, private, shared (100.64/10), link-local, multicast, reserved or cloud-metadata
# address, or whose URL carries userinfo (http://a@b/) (landing/crawl/guard.py): a `refused-address` failure,
# counted as landing/refused/<reason>. A host with no answer (a failed or timed-out lookup) is refused as `dns`
# (landing/refused/no-answer), never left for the connection to resolve again unchecked. The browser
# driver's own requests are judged too (landing/browser/rules.py; its server redirects only after the fact).
# Off when LANDING_SANDBOX is a sandbox on this machine (a loopback URL: it serves from 127.0.0.1), and the log says
# so; a LANDING_SANDBOX elsewhere (a real proxy put there by mistake) never turns it off. Default: on. Turn it off
# only to crawl a test server of your own on a private address.
LANDING_ADDRESS_GUARD = True
# LANDING_BACKOFF_MAX: seconds a failing host's longest pause between retries may last (docs/crawl.md "Retries").
# Default: 60. Change it to ask failing hosts less often, or (the matcher's 2) to answer sooner.
LANDING_BACKOFF_MAX = 60.0
# LANDING_OUTAGE_MAX: seconds a down host's requests are retried before they fail. Default: 300 (the matcher's: 0).
# Change it to wait out longer outages, or to give up on them sooner.
LANDING_OUTAGE_MAX = 300.0
# LANDING_EXPORT_ON_CLOSE: rebuild reports and export artifacts when the crawl closes. Default: on. Turn it off when
# `scrapy artifacts` exports separately (several crawls into one store).
LANDING_EXPORT_ON_CLOSE = True
# LANDING_EXPORT_REPORT: draw the report directory (report/index.html, a page per member and domain) beside each
# exported version and at the top of LANDING_ARTIFACTS_DIR, in a child process (the crawl's memory never holds it).
# Default: on. Turn it off when only the artifacts are wanted (the matcher's), to spare the drawing's time.
LANDING_EXPORT_REPORT = True
# LANDING_PROGRESS_INTERVAL: seconds between progress lines in the log (0 turns them off). Default: 5. Change it to
# log less (or more) often.
LANDING_PROGRESS_INTERVAL = 5.0

# --- Continuous sampling (docs/continuous.md) -------------------------------------------------------------
# LANDING_CONTINUOUS: run doi_sampler in continuous mode: one run that never finishes, planned slice by slice by
# freshness (landing.core.continuous.freshness: new prefixes first, then signalled ones, then the most stale), within
# LANDING_BUDGET, exporting a version every LANDING_EXPORT_EVERY hours and a last one when stopped (SIGTERM).
# Default: off (one full run). Turn it on to keep the artifacts fresh in production.
LANDING_CONTINUOUS = False
# LANDING_REFRESH_DAYS: no known prefix older than this many days (since its last sample), budget allowing.
# Default: 7. Change it to trade freshness for requests.
LANDING_REFRESH_DAYS = 7.0
# LANDING_BUDGET: requests a simulated UTC day continuous sampling may send, every one counted (robots.txt,
# Chromium's). Default: 500000. Change it to what the deployment may ask of the web in a day.
LANDING_BUDGET = 500000.0
# LANDING_EXPORT_EVERY: hours between artifact versions in continuous mode, at fixed times of the clock (each multiple
# of it from midnight UTC, the version named for it; none when nothing was sampled since); the `export` health check
# fails after twice this. Default: 24. Change it to publish more or less often.
LANDING_EXPORT_EVERY = 24.0
# LANDING_DELTA_HOURS: every this many simulated hours, continuous mode asks Crossref and DataCite which DOIs were
# updated since its last look (and in each slice that exports a version), and visits first those whose resource URL moved
# to a domain their prefix was not seen on (docs/continuous.md "Registry deltas"). 0: no registry deltas. Default: 1. Change it to learn of moves sooner or
# later; each look costs a request per thousand updated DOIs and one more per registry.
LANDING_DELTA_HOURS = 1.0
# LANDING_KEEP_REPORTS_DAYS: keep every artifact version's report (its HTML pages and the report's data beside it) this
# many days, then only the last of each UTC month's (`scrapy prune`, and continuous mode; docs/continuous.md
# "Retention"). Every version's artifact files are kept for ever, gzipped once older than this. Default: 30. Change it
# to fit the disk.
LANDING_KEEP_REPORTS_DAYS = 30.0

# --- Operating: metrics and health checks (docs/operations.md) -------------------------------------------
# LANDING_METRICS_PORT: serve Prometheus metrics at http://LANDING_METRICS_ADDRESS:PORT/metrics while the crawl runs
# (landing.crawl.exporter), read from the crawl's stats at each scrape. 0: a free port, named in the log. Unset
# (default): no exporter. A port already taken is an ERROR line and the crawl goes on without metrics. Set it when a
# Prometheus scrapes the crawl.
LANDING_METRICS_PORT = None
# LANDING_METRICS_ADDRESS: the address the exporter listens on. Default: 127.0.0.1. Change it to 0.0.0.0 for a
# Prometheus on another machine.
LANDING_METRICS_ADDRESS = "127.0.0.1"

# --- Matching (`scrapy match`) ----------------------------------------------------------------------------
# LANDING_MATCH_REQUESTS: requests one input may make; once made, it asks no more questions and gets no match
# (docs/matching.md "Limits"). Default: 200. Change it to bound what a hostile input may cost the service.
LANDING_MATCH_REQUESTS = 200
# LANDING_MATCH_DEADLINE: seconds one input may take once its turn came (waiting for a page slot does not count); then
# it gets the outcome `deadline` and no match. 0: none. Waiting for the downloader counts: in a batch, inputs queue behind each other on polite hosts.
# Default: 600. Change it to what the service's callers wait.
LANDING_MATCH_DEADLINE = 600.0
# LANDING_MATCH_SEEN_WITHIN: days; when above 0, the matcher ignores the artifact's domain-prefix pairs last seen
# longer ago (the artifacts are additive: a site that moved keeps its old pair). Pairs without a date are kept.
# Default: 0. Set it to trust only what was seen recently.
LANDING_MATCH_SEEN_WITHIN = 0
# LANDING_MATCH_FETCH: which URLs, alone or in free text, are fetched (their DOIs resolved): known, those whose host
# the artifact lists, as the Percolator does (others are matched from the string alone, the evidence says
# `not-fetched`; no artifact: none); all, every one (`scrapy match --fetch-all`; the service's `fetch=all`).
# Default: known. Change it to all to match URLs of hosts no artifact knows, at the cost of their requests.
LANDING_MATCH_FETCH = "known"
# LANDING_MATCH_REDIS: a redis:// URL shared by matchers (processes, hosts): Handle API, registry and resolver answers
# and finished results are kept there for LANDING_MATCH_CACHE_HOURS, so N instances do not ask doi.org or the APIs
# again, and the resolver's rate (LANDING_RESOLVER_RATE) is booked there, held by all of them together. Page bodies
# are never kept. "" (default): each process caches for itself and paces the resolver alone. Set it to run several
# matchers, or to consume a stream (LANDING_STREAM_IN).
LANDING_MATCH_REDIS = ""
# LANDING_MATCH_CACHE_HOURS: how long an answer or a result is kept, in Redis and in the process (more than 0): a
# DOI registered since, a site that moved, is then asked again. Default: 24. Change it to trade freshness for
# requests.
LANDING_MATCH_CACHE_HOURS = 24.0

# --- The matching service (`scrapy serve`, docs/service.md) ------------------------------------------------
# LANDING_SERVE_ADDRESS, LANDING_SERVE_PORT: where the HTTP service listens; 0: a free port, named in the log.
# Defaults: 127.0.0.1 and 8088. Change them to serve other machines, or beside another service.
LANDING_SERVE_ADDRESS = "127.0.0.1"
LANDING_SERVE_PORT = 8088
# LANDING_SERVE_MAX_BODY: bytes a request's body may hold (a POST's JSON lines); past it: 413. Default: 8 MiB.
# LANDING_SERVE_MAX_INPUT: characters one input may hold; past it: 413 (GET) or that line's error (POST). Default:
# 100000. Change them to what the service's callers send.
LANDING_SERVE_MAX_BODY = 8388608
LANDING_SERVE_MAX_INPUT = 100000
# LANDING_SERVE_CLIENT_CONCURRENCY: requests one client (its peer address) may have in flight; past it: 429.
# Default: 64. Change it to share the service more evenly among its callers, or to let one caller use more of it.
LANDING_SERVE_CLIENT_CONCURRENCY = 64
# Event streams (docs/service.md "Event streams"): LANDING_STREAM_IN, a Redis Stream at LANDING_MATCH_REDIS whose
# entries (field `q`, the input; optional `fetch`: none, known or all) the service answers through a consumer group,
# each result written to LANDING_STREAM_OUT (fields `input`: the input entry's id, `result`: the JSON, `version`: the
# artifact a match used) and the input acknowledged in one script: exactly one output entry per input entry. "" (the
# default): no consumer. In a Redis Cluster give both keys one hash tag, such as {landing}:in and {landing}:out. Set
# them to answer an event pipeline's stream.
LANDING_STREAM_IN = ""
LANDING_STREAM_OUT = "landing:match:results"
# LANDING_STREAM_MAXLEN: the output stream keeps about this many entries (XADD MAXLEN ~; 0: all), ~1.2 KB a result.
# Default: 100000. Change it to fit Redis's memory and how far behind the stream's readers may fall.
LANDING_STREAM_MAXLEN = 100000

# --- Scrapy settings, changed from Scrapy's defaults --------------------------------------------------------
# The project's add-on reads the LANDING_* settings once into the crawl's Config, then applies the spider's setting
# changes from it (landing.addon).
ADDONS = {"landing.addon.Landing": 0}
DOWNLOADER_MIDDLEWARES = {
    "landing.crawl.hosts.HostnameMiddleware": 75,  # first, sandbox or not: a host that is no hostname is never asked
    "landing.crawl.guard.AddressGuardMiddleware": 80,  # before robots.txt: a refused host gets no request at all
    "landing.crawl.robots.RobotsPolicyMiddleware": 90,  # before RobotsTxtMiddleware (100)
    "landing.crawl.slots.ServiceSlotsMiddleware": 95,
    "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,
    "landing.crawl.robots.RecentRobotsTxtMiddleware": 100,  # where RobotsTxtMiddleware was: a bounded cache
    "landing.crawl.resolver_pace.ResolverPaceMiddleware": 105,  # after robots.txt: a refused request takes no turn
    "scrapy.downloadermiddlewares.cookies.CookiesMiddleware": None,
    "landing.crawl.cookies.ChainCookiesMiddleware": 700,  # where CookiesMiddleware was: one jar per DOI chain
    "scrapy.downloadermiddlewares.retry.RetryMiddleware": None,
    "landing.crawl.retry.BackoffRetryMiddleware": 550,  # where RetryMiddleware was
    "scrapy.downloadermiddlewares.redirect.MetaRefreshMiddleware": None,
    "landing.crawl.redirects.MetaRefreshMiddleware": 580,  # Scrapy's: no Referer, each hop in its host's slot
    "scrapy.downloadermiddlewares.redirect.RedirectMiddleware": None,
    "landing.crawl.redirects.RedirectMiddleware": 600,  # Scrapy's: no Referer, each hop in its host's slot
    "landing.crawl.upstream_proxy.SandboxProxyMiddleware": 740,  # before HttpProxyMiddleware (750)
    "landing.crawl.stopping.StopGateMiddleware": 990,  # last, nearest the downloader: nothing queued once stopping
}
# Spider middlewares the sampler has no use for, each run on every callback output: a DOI's chain has no depth, its
# hops need no Referer (as from the address bar), its URLs come from the resolver, its callbacks share no meta.
SPIDER_MIDDLEWARES = {
    "scrapy.spidermiddlewares.referer.RefererMiddleware": None,
    "scrapy.spidermiddlewares.urllength.UrlLengthMiddleware": None,
    "scrapy.spidermiddlewares.depth.DepthMiddleware": None,
    "scrapy.spidermiddlewares.metacopy.MetaCopyDetectionMiddleware": None,
}
# AnalysisPipeline reads each visit's page into its analysis document; the other two store it.
ITEM_PIPELINES = {
    "landing.sampler.pipelines.AnalysisPipeline": 300,
    "landing.sampler.pipelines.BlobPipeline": 400,
    "landing.sampler.pipelines.DocumentPipeline": 500,
}
# RequestsSent: every request sent, counted once (the budget's count). Progress: the progress line. LevelGate: the root
# logger at LOG_LEVEL while the engine runs. StopAtOnce: a first SIGTERM or Ctrl-C stops the sampler within seconds.
EXTENSIONS = {
    "landing.crawl.sent_requests.RequestsSent": 500,
    "landing.sampler.progress_log.Progress": 500,
    "landing.crawl.log_level.LevelGate": 500,
    "landing.sampler.shutdown.StopAtOnce": 500,
    "landing.crawl.exporter.MetricsExporter": 500,  # only with LANDING_METRICS_PORT
    "landing.crawl.health_watch.ContinuousHealth": 500,  # Spidermon's extension, in continuous mode only
}
# Continuous mode: Spidermon runs the health checks (landing.crawl.monitors, docs/operations.md "Health") every
# SPIDERMON_PERIODIC_MONITORS real seconds, on simulated time, and when the spider closes.
SPIDERMON_ENABLED = True
SPIDERMON_SPIDER_CLOSE_MONITORS = ["landing.crawl.monitors.HealthSuite"]
SPIDERMON_PERIODIC_MONITORS = {"landing.crawl.monitors.HealthSuite": 60}
STATS_CLASS = "landing.crawl.stats.Stats"  # Scrapy's in-memory stats, without a per-call deprecation shim

# Only the web is fetched: a Handle record or a redirect naming file:///etc/passwd ends its visit refused
# (`refused-address`), never in the blob store. data: stays, for the matcher's own requests.
DOWNLOAD_HANDLERS = {
    "http": "landing.crawl.handlers.HttpHandler",
    "https": "landing.crawl.handlers.HttpHandler",
    "file": None,
    "ftp": None,
    "s3": None,
}
ROBOTSTXT_OBEY = True
USER_AGENT = "landing/0.1 (scholarly landing-page sampler)"  # the project has no public page to name
REDIRECT_MAX_TIMES = 10
DOWNLOAD_MAXSIZE = 2 * 1024 * 1024
DOWNLOAD_TIMEOUT = 30
RETRY_TIMES = 2
RETRY_HTTP_CODES = [500, 502, 503, 504, 522, 524, 408, 429]
# A full run has thousands of hosts in flight at once, each held to a few connections and AutoThrottle's pace.
# A request waiting out its host's delay counts against CONCURRENT_REQUESTS, so too few leave the crawl waiting on
# polite hosts with CPU to spare; 512 goes with LANDING_FRONTIER's 2,000 (bench/README.md "fullrun.py").
CONCURRENT_REQUESTS = 512
CONCURRENT_REQUESTS_PER_DOMAIN = 4
# Every hop of a DOI's chain is paced by its own host's slot (landing.crawl.redirects: Scrapy's redirects kept the
# resolver's). Through LANDING_SANDBOX, whose sites have no one to be polite to, hosts start at no delay unless
# AUTOTHROTTLE_START_DELAY is set explicitly (landing.crawl.endpoints.sandbox_pace).
AUTOTHROTTLE_ENABLED = True
AUTOTHROTTLE_START_DELAY = 1.0
AUTOTHROTTLE_MAX_DELAY = 30.0
AUTOTHROTTLE_TARGET_CONCURRENCY = 2.0
# Every slot's requests exactly its delay apart: Scrapy's ±50% jitter, drawn again each time a waiting slot is looked
# at, spaced a busy host's requests wider than the delay, and at times closer (bench/README.md "service.py").
DOWNLOAD_DELAY_JITTER = 0.0
# The resolver's and the APIs' slots, which AutoThrottle leaves alone (ServiceSlotsMiddleware): services built for
# volume. doi.org publishes no limit: 32 at once is what a full run needs; no delay, as a slot with one sends a single
# request per delay (bench/README.md "Figures behind choices in the code"). The API slots are paced at the services'
# published limits when the crawl starts (landing.crawl.endpoints.service_slots), except through LANDING_SANDBOX.
DOWNLOAD_SLOTS = {
    "doi.org": {"concurrency": 32, "delay": 0},
    "api.crossref.org": {"concurrency": 4, "delay": 0},
    "api.datacite.org": {"concurrency": 4, "delay": 0},
}
# One item at a time per response: the default costs throughput for nothing (docs/design.md "Facts measured here").
CONCURRENT_ITEMS = 1
LOG_LEVEL = "INFO"
# No telnet console, in a crawl or in `scrapy serve`: Scrapy's default opens a Python shell into the running process
# on port 6023 and logs its password at INFO, and nothing here needs one. Change it (-s TELNETCONSOLE_ENABLED=True) to
# inspect a live crawl from its own host (its metrics and status line need none: docs/operations.md).
TELNETCONSOLE_ENABLED = False
REQUEST_FINGERPRINTER_IMPLEMENTATION = "2.7"
TWISTED_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
# ASYNCIO_EVENT_LOOP (Scrapy's): the loop under that reactor. Unset here, so crawls run on asyncio's own; `scrapy
# serve` runs on "uvloop.Loop" (its command's default: landing/commands/serve.py says why) unless given another
# (-s ASYNCIO_EVENT_LOOP=asyncio.SelectorEventLoop). The "Serving on" line names the loop it runs on.
FEED_EXPORT_ENCODING = "utf-8"
