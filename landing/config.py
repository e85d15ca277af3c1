"""The LANDING_* settings, checked and typed once: the `Config` every component reads, and the pre-crawl check.

A component reads `config.of(crawler)` in its `from_crawler` (a command without a crawler, `config.of_settings`):
the one frozen `Config` the project's add-on (landing.addon) built for the crawl, whose field for LANDING_X_Y (or an
internal constant's TUNING_X_Y, landing.tuning) is `x_y`, with derived values resolved (the driver once Chromium is
looked for, the endpoints through a sandbox, the exclusion list, the mailto). Each default and each meaning is in
landing/settings.py or landing/tuning.py only. A bad value is refused by `SettingsError` in the words `problems` uses
before `scrapy crawl`.
"""

import os
from dataclasses import dataclass, field
from datetime import date, timedelta
from urllib.parse import urlsplit

from scrapy.settings import SETTINGS_PRIORITIES, BaseSettings

from landing import clock, tuning
from landing import settings as defaults
from landing.core.matching.decisions import excluding, seen_since
from landing.core.pids.doi import RESOLVER_HOSTS
from landing.setting_checks import (
    CHOICES,
    ENDPOINTS,
    FLAGS,
    NUMBERS,
    POSITIVE,
    REMOVED,
    RUN_NAME,
    SECRETS,
    TEXTS,
    TUNING_NAMES,
    SettingsError,
    choice,
    chromium_usable,
    clock_since,
    clock_speed,
    clock_value,
    endpoint,
    exclusions,
    flag,
    mailto,
    match_redis,
    metrics_port,
    number,
    positive,
    removed,
    sources,
    stream_consumer,
    stream_in,
    stream_name,
    unknown,
)


@dataclass(frozen=True, kw_only=True)
class Config:
    """Every LANDING_* setting and internal constant, checked and typed (LANDING_X_Y or TUNING_X_Y is `x_y`;
    landing/settings.py and landing/tuning.py say what each means).

    Values that may hold credentials (URLs, secrets) are left out of its repr, so no log shows them."""

    sandbox: str | None = field(repr=False)
    crossref_api: str  # the endpoints as requests use them: no trailing slash, the APIs in http through a sandbox
    datacite_api: str
    doi_resolver: str
    docs: str = field(repr=False)
    docs_batch_docs: int
    docs_batch_seconds: float
    docs_index_prefix: str
    docs_api_key: str | None = field(repr=False)  # these four: the setting, else its environment variable
    docs_username: str | None
    docs_password: str | None = field(repr=False)
    docs_ca_certs: str | None
    docs_retries: int
    docs_outage_max: float
    unwritten_dir: str
    blobs: str
    artifacts_dir: str
    excluded_domains: frozenset[str]  # the file's domains, else the shipped list
    sources: tuple[str, ...]
    sample_max: int
    sample_min: int
    sample_min_per_prefix: int
    mailto: str | None
    run: str
    clock: str | None
    clock_speed: float
    clock_since: float | None
    frontier: int
    frontier_redis: str | None = field(repr=False)
    lease_seconds: float
    workers: int
    resource_url_from: str
    resolver_rate: float  # 0 through a sandbox unless set explicitly; 1/LANDING_WORKERS of it with a shared frontier
    driver: str  # http under auto when LANDING_CHROMIUM is no executable
    chromium: str | None
    browser_pages: int
    browser_settle: float
    browser_nice: int
    browser_spare_cpu: bool
    resolver_robots: str
    address_guard: bool
    keepalive: float
    idle_connections: int
    robots_cache: int
    retry_after_max: float
    backoff_max: float
    outage_max: float
    export_on_close: bool
    export_report: bool
    progress_interval: float
    match_text_candidates: int
    match_concurrency: int
    match_pieces: int
    match_candidates: int
    match_requests: int
    match_evidence: int
    match_deadline: float
    match_seen_within: float
    match_fetch: str  # which URLs are fetched: landing.core.matching.cascade.FETCH_POLICIES
    match_redis: str | None = field(repr=False)
    match_cache_hours: float
    match_cache_entries: int
    match_cache_bytes: int
    serve_address: str
    serve_port: int
    serve_max_body: int
    serve_max_input: int
    serve_client_concurrency: int
    serve_request_concurrency: int
    serve_connections: int
    serve_client_connections: int
    serve_head_seconds: float
    serve_body_seconds: float
    serve_idle_seconds: float
    serve_drain_seconds: float
    serve_artifact_seconds: float
    serve_slot_reserve: float
    serve_slot_wait_seconds: float
    stream_in: str | None  # None: no stream consumer
    stream_out: str
    stream_group: str
    stream_consumer: str  # HOSTNAME-PID unless set
    stream_batch: int
    stream_concurrency: int
    stream_claim_seconds: float
    stream_maxlen: int
    continuous: bool
    refresh_days: float
    recheck_days: float
    changed_dois: int
    budget: float
    requests_per_doi: float
    plan_minutes: float
    relist_hours: float
    delta_hours: float
    delta_overlap_minutes: float
    delta_max_days: float
    export_every: float
    keep_reports_days: float
    keep_snapshots: int
    prune_hours: float
    metrics_port: int | None
    metrics_address: str
    health_failures: float
    health_min_visits: int
    # Derived from the settings above, resolved once.
    health_export_hours: float  # twice LANDING_EXPORT_EVERY: continuous mode's `export` check fails past it
    browser_unavailable: bool  # LANDING_DRIVER=auto without an executable LANDING_CHROMIUM: the driver is http
    resolver_hosts: frozenset[str]  # every host a DOI's chain may pass through before it leaves the resolver
    verified_hosts: frozenset[str]  # hosts whose TLS certificates are verified (none through a sandbox)

    @classmethod
    def from_settings(cls, settings) -> "Config":
        """The checked settings; SettingsError names every value that is not one its setting takes."""
        values, found = _read(settings)
        if found:
            raise SettingsError("\n".join(found))
        return cls(**values)


def field_name(setting: str) -> str:
    """The Config field of a LANDING_* setting, or of a TUNING_* one (landing.tuning).

    >>> field_name("LANDING_SAMPLE_MIN_PER_PREFIX"), field_name("TUNING_PLAN_MINUTES")
    ('sample_min_per_prefix', 'plan_minutes')
    """
    return setting.removeprefix("LANDING_").removeprefix("TUNING_").lower()


# Every setting is in landing/settings.py; any other LANDING_* name is a misspelling, refused with a suggestion.
KNOWN = tuple(name for name in vars(defaults) if name.startswith("LANDING_"))


def of(crawler) -> Config:
    """The crawler's Config: the one landing.addon built, else (a crawler without the add-on) built at the first call
    and the same object after it."""
    found = getattr(crawler, "landing_config", None)
    if found is None:
        found = crawler.landing_config = Config.from_settings(crawler.settings)
    return found


def of_settings(settings) -> Config:
    """The Config of settings that have no crawler (a command's)."""
    return Config.from_settings(settings)


def mailto_warning(settings) -> str | None:
    """What to tell the user when Crossref's real API is asked without LANDING_MAILTO; None when nothing."""
    if settings.get("LANDING_MAILTO") or settings.get("LANDING_SANDBOX"):
        return None
    if "crossref" not in str(settings.get("LANDING_SOURCES") or ""):
        return None
    return (
        "LANDING_MAILTO is not set: Crossref answers this crawler from its public pool, at 1 request a second "
        "instead of 3; set -s LANDING_MAILTO=you@example.org"
    )


def trusted(decisions, settings, today: date | None = None):
    """The artifact's decisions the matcher may use: excluded domains dropped, and with LANDING_MATCH_SEEN_WITHIN
    the pairs not seen for that many days."""
    decisions = excluding(decisions, exclusions(settings))
    days = number(settings, "LANDING_MATCH_SEEN_WITHIN")
    if days:
        since = (today or clock.now().date()) - timedelta(days=days)
        decisions = seen_since(decisions, since.isoformat())
    return decisions


def _read(settings) -> tuple[dict, list[str]]:
    # (every field's value, every problem); a field whose check failed is None.
    values, found = {}, []
    named = [name for name in settings if name.startswith(("LANDING_", "TUNING_"))]
    found += removed(named)
    found += unknown([name for name in named if name not in REMOVED], KNOWN + TUNING_NAMES)
    found += unknown([name for name in os.environ if name.startswith("LANDING_")], SECRETS, environment=True)

    # The internal constants, each as landing.tuning has it unless a test or a benchmark set TUNING_<NAME>.
    tuned = BaseSettings({f"TUNING_{name}": value for name, value in tuning.TUNED.items()}, priority="default")
    tuned.update({name: settings[name] for name in named if name in TUNING_NAMES}, priority="cmdline")

    def take(name, check, *args):
        try:
            values[field_name(name)] = check(tuned if name.startswith("TUNING_") else settings, *args)
        except SettingsError as error:
            values[field_name(name)] = None
            found.append(str(error))

    for name, check in (
        ("LANDING_SOURCES", sources),
        ("LANDING_EXCLUDED_DOMAINS", exclusions),
        ("LANDING_CLOCK", clock_value),
        ("LANDING_CLOCK_SPEED", clock_speed),
        ("LANDING_CLOCK_SINCE", clock_since),
        ("LANDING_MAILTO", mailto),
        ("LANDING_METRICS_PORT", metrics_port),
        ("LANDING_MATCH_REDIS", match_redis),
        ("LANDING_STREAM_IN", stream_in),
        ("TUNING_STREAM_CONSUMER", stream_consumer),
    ):
        take(name, check)
    for name in ("LANDING_STREAM_OUT", "TUNING_STREAM_GROUP"):
        take(name, stream_name, name)
    for names, check in ((CHOICES, choice), (NUMBERS, number), (FLAGS, flag), (POSITIVE, positive)):
        for name in names:
            take(name, check, name)
    for name in TEXTS:
        values[field_name(name)] = settings.get(name)
    for name in SECRETS:
        values[field_name(name)] = settings.get(name) or os.environ.get(name) or None
    for name in ENDPOINTS:
        take(name, endpoint, name)
    sandbox = bool(values["sandbox"])
    chosen = (settings.getpriority("LANDING_RESOLVER_RATE") or 0) > SETTINGS_PRIORITIES["project"]
    if sandbox and not chosen:
        values["resolver_rate"] = 0.0
    if values["frontier_redis"] and isinstance(values["workers"], int) and isinstance(values["resolver_rate"], float):
        values["resolver_rate"] /= values["workers"]  # workers sharing a frontier share the resolver's rate
    every = values["export_every"]
    values["health_export_hours"] = 2 * every if isinstance(every, float) else None
    values["browser_unavailable"] = values["driver"] == "auto" and not chromium_usable(values["chromium"])
    if values["browser_unavailable"]:
        values["driver"] = "http"
    # The public names whatever LANDING_DOI_RESOLVER says: publishers link through any of them.
    hosts = {name: urlsplit(values[name] or "").hostname for name in ("doi_resolver", "crossref_api", "datacite_api")}
    values["resolver_hosts"] = RESOLVER_HOSTS | {hosts.pop("doi_resolver")}
    apis = set(hosts.values())
    values["verified_hosts"] = frozenset() if sandbox else frozenset(values["resolver_hosts"] | apis)
    return values, found


def problems(settings) -> list[str]:
    """Every problem with the sampler's settings (values, run, Redis, Chromium, stores), each a sentence."""
    from landing.stores import StoreError, docs_from, open_blobs  # the stores read a Config: imported when asked

    values, found = _read(settings)
    run = values["run"]
    if not isinstance(run, str) or not RUN_NAME.match(run):
        found.append(f"LANDING_RUN={run!r}: use auto, new, or a run name of letters, digits and . _ : -")
    if settings.get("JOBDIR"):
        # Scrapy's disk queues are not crash-safe (a kill -9 left them unreadable and the crawl hung): the run
        # resumes from the document store instead.
        found.append(
            f"JOBDIR={settings.get('JOBDIR')!r}: not needed, and not safe across a hard kill; drop it: the "
            "same command resumes the run from LANDING_DOCS"
        )
    found += _redis_problems(settings)
    chromium = values["chromium"]
    if settings.get("LANDING_DRIVER") == "browser" and not chromium_usable(chromium):
        found.append(
            f"LANDING_CHROMIUM={chromium!r} is not an executable: install Debian's chromium-headless-shell package "
            "(apt-get install chromium-headless-shell) or name its path, or use LANDING_DRIVER=auto or http"
        )
    # The stores are tried even when other values are bad, so one run of the check names every problem: the
    # Config is built unchecked, and the document store only when the LANDING_DOCS_* values it reads are good.
    partial = Config(**values)
    openers = [lambda: open_blobs(partial.blobs)]
    if not any(problem.startswith("LANDING_DOCS_") for problem in found):
        openers.insert(0, lambda: docs_from(partial))
    for opener in openers:
        try:
            opener().close()
        except StoreError as error:
            found.append(str(error))
    return found + _unwritable(partial, found)


def _unwritable(partial: Config, found: list[str]) -> list[str]:
    # Every output a crawl writes, tried before it visits anything: a read-only artifacts directory let a day's
    # crawl run and then fail at its close. A store that could not be opened is named by its own problem already.
    from landing.stores.checks import unwritable

    outputs = [("LANDING_UNWRITTEN_DIR", partial.unwritten_dir)]
    if partial.export_on_close or partial.continuous:  # else the crawl never writes artifacts
        outputs.insert(0, ("LANDING_ARTIFACTS_DIR", partial.artifacts_dir))
    if str(partial.blobs).startswith("file://") and not any(p.startswith("LANDING_BLOBS") for p in found):
        outputs.append(("LANDING_BLOBS", partial.blobs.removeprefix("file://")))
    if str(partial.docs).startswith("sqlite:///") and not any(p.startswith("LANDING_DOCS") for p in found):
        outputs.append(("LANDING_DOCS", os.path.dirname(partial.docs.removeprefix("sqlite:///")) or "."))
    return [
        f"{name}: cannot write in {directory!r} ({reason})"
        for name, directory in outputs
        if (reason := unwritable(directory))
    ]


def _redis_problems(settings) -> list[str]:
    url = settings.get("LANDING_FRONTIER_REDIS")
    if not url:
        return []
    if not str(url).startswith(("redis://", "rediss://", "unix://")):
        return [f"LANDING_FRONTIER_REDIS={url!r}: use a URL like redis://host:6379/0"]
    if settings.get("LANDING_DRIVER") == "browser":
        # A browser visit's request carries live objects (its navigation record) that cannot be queued in Redis.
        return ["LANDING_FRONTIER_REDIS works with LANDING_DRIVER=http or auto, not browser"]
    import redis

    try:
        with redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=5) as client:
            client.ping()
    except (redis.RedisError, ValueError) as error:
        return [f"LANDING_FRONTIER_REDIS={url!r}: cannot reach Redis ({error})"]
    return []
