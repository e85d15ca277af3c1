"""The project's internal constants: values no operator has a reason to change, each with why it is what it is.

They were LANDING_* settings once; landing.config reads each into the Config field of its lower-case name. A test or a
benchmark that needs another value (a smaller one, so that it runs fast) sets the Scrapy setting TUNING_<NAME>
(`-s TUNING_PLAN_MINUTES=1`), checked as a setting is; docs/settings.md says an operator never needs one.
"""

# --- The stores ---------------------------------------------------------------------------------------------------
# Documents are written in batches of this many, or once the oldest waiting one is this many seconds old: a batch
# amortises a store's commit (sqlite) or bulk request (Elasticsearch); two seconds is all a crawl's progress waits.
DOCS_BATCH_DOCS = 500
DOCS_BATCH_SECONDS = 2.0
# Elasticsearch only: a bulk write answered 429 or 5xx is retried this often, waiting 1 s, then twice as long each time
# (at most 30 s); past them LANDING_DOCS_OUTAGE_MAX decides.
DOCS_RETRIES = 5

# --- Visiting ---------------------------------------------------------------------------------------------------
# An idle connection is kept this many seconds for its host's next request (Twisted's own: 240), and past this many
# idle connections in all, the one idle longest is closed: a full run meets thousands of hosts, most for a few
# requests, and idle connections to them only hold memory.
KEEPALIVE = 60.0
IDLE_CONNECTIONS = 128
# Parsed robots.txt files kept, for the most recently met hosts (Scrapy keeps every one).
ROBOTS_CACHE = 5000
# The longest Retry-After obeyed, in seconds: a host asking for longer is paused this long, then asked again.
RETRY_AFTER_MAX = 60.0
# After a page's load event, how long (seconds) the browser may wait for the network to go quiet, so that scripts that
# move on (challenges, computed redirects) are followed; a page still busy then (beacons, polling) is read as it is.
BROWSER_SETTLE = 5.0
# The niceness (0-19) Chromium's processes run at, and their session's group where the kernel groups processes by
# session: under contention the crawl's one event loop, which every HTTP visit waits on, keeps its CPU, while a
# niceness much higher starves browser visits into timeouts (docs/drivers.md "Cost").
BROWSER_NICE = 5
# With two CPUs or more, Chromium runs on all those the crawl may use but one (taskset): a core it cannot take from
# the crawl's loop.
BROWSER_SPARE_CPU = True
# redirect takes a DOI's resource URL from the resolver's redirect, as a browser meets it; handle asks the Handle API
# first, in place of the resolver hop (docs/crawl.md "Resource URL"): a choice benchmarks compare.
RESOURCE_URL_FROM = "redirect"

# --- Continuous sampling (docs/continuous.md) ----------------------------------------------------------------------
# A prefix whose last sample signalled a change is sampled again, deeper, this many days later; also the margin by
# which refreshes come before LANDING_REFRESH_DAYS.
RECHECK_DAYS = 1.0
# DOIs a signalled prefix's recheck samples, at least (all it has when fewer).
CHANGED_DOIS = 30
# The planner's estimate of one DOI's visit (resolver and publisher hops) until the crawl has measured its own.
REQUESTS_PER_DOI = 3.0
# The slice: how often, in simulated minutes, continuous mode plans what to sample next.
PLAN_MINUTES = 60.0
# How often, in simulated hours, every owner is listed again, to find new members, clients and prefixes.
RELIST_HOURS = 24.0
# A registry delta asks from the last look's end less this many minutes: the registries index an update some time after
# it is made, and a DOI seen twice changes nothing.
DELTA_OVERLAP_MINUTES = 60.0
# After a stop longer than this many days, a look asks only for this many days of updates: what is older waits for
# the prefixes' refreshes, which a stop that long has made due anyway.
DELTA_MAX_DAYS = 7.0
# How often, in simulated hours, continuous mode applies the retention (LANDING_KEEP_*).
PRUNE_HOURS = 24.0
# A DOI's latest snapshots (and analyses) kept, besides those that show a change and the one reports count: one is
# enough, since each change's snapshot is kept and a DOI's outcome at any time is known from them.
KEEP_SNAPSHOTS = 1

# --- Health checks (landing.crawl.monitors) ------------------------------------------------------------------------
# `failures` fails when more than this share of the visits since the check last judged failed; fewer new visits than
# HEALTH_MIN_VISITS are not judged (the last verdict stands): a handful of visits says nothing about the web.
HEALTH_FAILURES = 0.5
HEALTH_MIN_VISITS = 100

# --- Matching (docs/matching.md "Limits") --------------------------------------------------------------------------
# DOIs found in a page's text checked by resolving them (those the artifact knows on the page's domain first):
# reference lists run to hundreds.
MATCH_TEXT_CANDIDATES = 20
# Inputs doing page work (a page fetched, a DOI resolved) at once, in `scrapy match` and the service: each holds its
# slot until it ends, which bounds the page bodies held; inputs needing no page never wait for one. The downloader's
# limits still pace the requests.
MATCH_CONCURRENCY = 100
# Free text's URLs and DOIs matched, in text order; the rest are counted in the evidence.
MATCH_PIECES = 20
# Candidate DOIs cut from one URL or string, each one Handle API request.
MATCH_CANDIDATES = 20
# Evidence records in one result (at least 3); the middle ones past it are folded into one.
MATCH_EVIDENCE = 100
# Answered questions (and, in the service, results) a process keeps in memory, the least recently used dropped first.
MATCH_CACHE_ENTRIES = 100000
# Bytes the results kept in memory may take, as estimated from their inputs' lengths (landing.match.answer_cache):
# inputs can be up to LANDING_SERVE_MAX_INPUT characters each, and entries alone let long ones fill gigabytes.
MATCH_CACHE_BYTES = 256 * 1024 * 1024

# --- The matching service (docs/service.md) ------------------------------------------------------------------------
# On SIGTERM or Ctrl-C, how long (seconds) requests in flight may take to finish before the service stops anyway (a
# second signal stops at once): an orchestrator's default grace before it kills.
SERVE_DRAIN_SECONDS = 30.0
# Inputs of one POST answered at once (their lines still come out in input order).
SERVE_REQUEST_CONCURRENCY = 32
# Connections open at once, in all and from one peer address (landing.serve.admission); one past either is answered
# 503 and closed at once. In all: each costs a file descriptor and a buffer, and the total stays below three quarters
# of the process's file limit whatever this says (the rest is the crawl's, Redis's and the logs'). Per client: a few
# hundred is more than any client's pool of keep-alive connections; and at least four for each request a client may
# have in flight (LANDING_SERVE_CLIENT_CONCURRENCY), so that a reverse proxy, for which that is raised, is not refused.
SERVE_CONNECTIONS = 4096
SERVE_CLIENT_CONNECTIONS = 256
# Seconds a request head may take from its first byte to its blank line, and a request body may go without a byte
# (a slow client holds a connection and its buffer; a real one sends a head at once).
SERVE_HEAD_SECONDS = 10.0
SERVE_BODY_SECONDS = 10.0
# Seconds a connection may stay open with no request under way, after an answer or before the first: longer than a
# reverse proxy keeps its idle upstream connections (nginx: 60), so that the proxy, not the service, closes them.
SERVE_IDLE_SECONDS = 75.0
# The share of the page slots (MATCH_CONCURRENCY: inputs fetching pages at once) no one client of the service may hold:
# they stay free for the next client with a page to fetch, whose first page then never waits for another's slow ones.
SERVE_SLOT_RESERVE = 0.25
# /healthz says `degraded` (503) once an input has waited longer than this (seconds) for a page slot: slots are not
# freeing as fast as inputs ask, and a page input's answer takes that much longer than its pages do. A page's own
# download may take DOWNLOAD_TIMEOUT (30 s) and its retries, so waits shorter than that are a busy service's.
SERVE_SLOT_WAIT_SECONDS = 60.0
# How often, in seconds, the artifact file is checked for a new version (0: never reloaded).
SERVE_ARTIFACT_SECONDS = 10.0
# The consumer group every instance of the service joins (created reading the stream from its start), and this
# process's name in it, unique per process ("": HOSTNAME-PID, which is).
STREAM_GROUP = "landing"
STREAM_CONSUMER = ""
# Stream entries read in one call, and answered at once by one process.
STREAM_BATCH = 50
STREAM_CONCURRENCY = 100
# An entry pending this many seconds is claimed by another consumer and answered again: its consumer was killed (a
# live one renews its entries every third of this, however long an answer takes).
STREAM_CLAIM_SECONDS = 30.0

# Every constant above, by name: what TUNING_<NAME> may set.
TUNED = {name: value for name, value in dict(globals()).items() if name.isupper() and name != "TUNED"}
