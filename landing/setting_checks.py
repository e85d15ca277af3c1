"""Each LANDING_* setting's check: its kind and bounds (the tables), and the functions that read one value and
raise SettingsError, in the words `landing.config.problems` prints, when the crawl cannot run with it.

Only landing.config calls these: every other module reads the checked `Config` (tests/test_config.py holds to it).
"""

import difflib
import os
import re
import socket

from landing import clock, tuning
from landing.core.matching.cascade import FETCH_POLICIES
from landing.core.matching.exclusions import DOMAINS, ExclusionsError, parse_exclusions

CHOICES = {
    "TUNING_RESOURCE_URL_FROM": ("redirect", "handle"),
    "LANDING_RESOLVER_ROBOTS": ("ignore", "obey"),
    "LANDING_DRIVER": ("http", "browser", "auto"),
    "LANDING_MATCH_FETCH": FETCH_POLICIES,
}
NUMBERS = {
    "LANDING_SAMPLE_MIN": (int, 1),
    "LANDING_SAMPLE_MAX": (int, 1),
    "LANDING_SAMPLE_MIN_PER_PREFIX": (int, 0),
    "TUNING_RETRY_AFTER_MAX": (float, 0),
    "LANDING_BACKOFF_MAX": (float, 1),
    "LANDING_OUTAGE_MAX": (float, 0),
    "LANDING_PROGRESS_INTERVAL": (float, 0),
    "TUNING_DOCS_RETRIES": (int, 0),
    "LANDING_DOCS_OUTAGE_MAX": (float, 0),
    "TUNING_DOCS_BATCH_DOCS": (int, 1),
    "TUNING_DOCS_BATCH_SECONDS": (float, 0),
    "LANDING_BROWSER_PAGES": (int, 1),
    "TUNING_BROWSER_SETTLE": (float, 0),
    "TUNING_BROWSER_NICE": (int, 0, 19),
    "LANDING_FRONTIER": (int, 1),
    "TUNING_KEEPALIVE": (float, 0),
    "TUNING_IDLE_CONNECTIONS": (int, 0),
    "TUNING_ROBOTS_CACHE": (int, 1),
    "LANDING_LEASE_SECONDS": (float, 1),
    "LANDING_WORKERS": (int, 1),
    "LANDING_RESOLVER_RATE": (float, 0),
    "TUNING_MATCH_TEXT_CANDIDATES": (int, 0),
    "TUNING_MATCH_CONCURRENCY": (int, 1),
    "TUNING_MATCH_PIECES": (int, 1),
    "TUNING_MATCH_CANDIDATES": (int, 1),
    "LANDING_MATCH_REQUESTS": (int, 1),
    "TUNING_MATCH_EVIDENCE": (int, 3),
    "LANDING_MATCH_DEADLINE": (float, 0),
    "LANDING_MATCH_SEEN_WITHIN": (float, 0),
    "TUNING_MATCH_CACHE_ENTRIES": (int, 1),
    "TUNING_MATCH_CACHE_BYTES": (int, 1),
    "LANDING_SERVE_PORT": (int, 0, 65535),
    "LANDING_SERVE_MAX_BODY": (int, 1),
    "LANDING_SERVE_MAX_INPUT": (int, 1),
    "LANDING_SERVE_CLIENT_CONCURRENCY": (int, 1),
    "TUNING_SERVE_REQUEST_CONCURRENCY": (int, 1),
    "TUNING_SERVE_CONNECTIONS": (int, 1),
    "TUNING_SERVE_CLIENT_CONNECTIONS": (int, 1),
    "TUNING_SERVE_DRAIN_SECONDS": (float, 0),
    "TUNING_SERVE_ARTIFACT_SECONDS": (float, 0),
    "TUNING_SERVE_SLOT_RESERVE": (float, 0, 1),
    "TUNING_SERVE_SLOT_WAIT_SECONDS": (float, 0),
    "TUNING_STREAM_BATCH": (int, 1),
    "TUNING_STREAM_CONCURRENCY": (int, 1),
    "LANDING_STREAM_MAXLEN": (int, 0),
    "TUNING_CHANGED_DOIS": (int, 0),
    "LANDING_BUDGET": (float, 0),
    "LANDING_DELTA_HOURS": (float, 0),
    "TUNING_DELTA_OVERLAP_MINUTES": (float, 0),
    "LANDING_KEEP_REPORTS_DAYS": (float, 0),
    "TUNING_KEEP_SNAPSHOTS": (int, 1),
    "TUNING_HEALTH_FAILURES": (float, 0, 1),
    "TUNING_HEALTH_MIN_VISITS": (int, 1),
}
# Numbers that must be more than 0: spans of time and the cost of a visit.
POSITIVE = (
    "LANDING_REFRESH_DAYS",
    "TUNING_RECHECK_DAYS",
    "TUNING_REQUESTS_PER_DOI",
    "TUNING_PLAN_MINUTES",
    "TUNING_RELIST_HOURS",
    "TUNING_DELTA_MAX_DAYS",
    "LANDING_EXPORT_EVERY",
    "TUNING_PRUNE_HOURS",
    "LANDING_MATCH_CACHE_HOURS",
    "TUNING_STREAM_CLAIM_SECONDS",
    "TUNING_SERVE_HEAD_SECONDS",
    "TUNING_SERVE_BODY_SECONDS",
    "TUNING_SERVE_IDLE_SECONDS",
)
FLAGS = (
    "LANDING_ADDRESS_GUARD",
    "LANDING_EXPORT_ON_CLOSE",
    "LANDING_EXPORT_REPORT",
    "LANDING_CONTINUOUS",
    "TUNING_BROWSER_SPARE_CPU",
)
# Taken as given: the stores and the run are checked where they are opened (landing.stores, `problems`).
TEXTS = (
    "LANDING_SANDBOX",
    "LANDING_DOCS",
    "LANDING_DOCS_INDEX_PREFIX",
    "LANDING_UNWRITTEN_DIR",
    "LANDING_BLOBS",
    "LANDING_ARTIFACTS_DIR",
    "LANDING_RUN",
    "LANDING_FRONTIER_REDIS",
    "LANDING_CHROMIUM",
    "LANDING_METRICS_ADDRESS",
    "LANDING_SERVE_ADDRESS",
)
# Secrets may come from the environment, so they stay out of scrapyd's job list and shell history.
SECRETS = ("LANDING_DOCS_API_KEY", "LANDING_DOCS_USERNAME", "LANDING_DOCS_PASSWORD", "LANDING_DOCS_CA_CERTS")
# The internal constants' names as tests and benchmarks set them (landing.tuning).
TUNING_NAMES = tuple(f"TUNING_{name}" for name in tuning.TUNED)
# Settings that became something else: a user who still sets one is told what, not silently ignored.
REMOVED = {
    **{
        f"LANDING_{name}": f"a constant ({name} = {value!r} in landing/tuning.py) that no operator needs to change"
        for name, value in tuning.TUNED.items()
    },
    "LANDING_HEALTH_EXPORT_HOURS": "the export check fails after twice LANDING_EXPORT_EVERY",
    "LANDING_KEEP_VERSIONS_DAYS": "every version's artifact files are kept; LANDING_KEEP_REPORTS_DAYS keeps their "
    "reports",
    **{
        name: "versions come only on LANDING_EXPORT_EVERY's fixed times of the clock, never sooner"
        for name in ("LANDING_EXPORT_CHANGES", "TUNING_EXPORT_CHANGES")
    },
}
ENDPOINTS = ("LANDING_CROSSREF_API", "LANDING_DATACITE_API", "LANDING_DOI_RESOLVER")
SOURCES = ("crossref", "datacite")
RUN_NAME = re.compile(r"^[A-Za-z0-9._:-]{1,100}$")
# An address's shape only (local part, @, a dotted domain): whether anyone reads it no check here can know.
EMAIL = re.compile(r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9-]{1,63}(\.[A-Za-z0-9-]{1,63})+$")


class SettingsError(ValueError):
    """A setting the crawl cannot run with; the message says what to set instead (one line per bad setting)."""


def choice(settings, name: str) -> str:
    """The value of a setting that takes one of CHOICES[name]."""
    value, allowed = settings.get(name), CHOICES[name]
    if value not in allowed:
        raise SettingsError(f"{name}={value!r}: use {' or '.join(allowed)}")
    return value


def number(settings, name: str) -> int | float:
    """The value of a setting that takes a number of NUMBERS[name]'s kind, within its bounds."""
    kind, minimum, *maximum = NUMBERS[name]
    try:
        value = kind(settings.get(name))
    except (TypeError, ValueError):
        raise SettingsError(f"{name}={settings.get(name)!r} is not a number") from None
    if value < minimum:
        raise SettingsError(f"{name}={value} must be at least {minimum}")
    if maximum and value > maximum[0]:
        raise SettingsError(f"{name}={value} must be at most {maximum[0]}")
    return value


def positive(settings, name: str) -> float:
    """The value of a setting that takes a finite number more than 0 (POSITIVE)."""
    try:
        value = float(settings.get(name))
    except (TypeError, ValueError):
        raise SettingsError(f"{name}={settings.get(name)!r} is not a number") from None
    if not 0 < value < float("inf"):
        raise SettingsError(f"{name}={settings.get(name)!r} must be more than 0")
    return value


def flag(settings, name: str) -> bool:
    """The value of a setting that is true or false, in the forms Scrapy's getbool takes."""
    try:
        return settings.getbool(name)
    except (TypeError, ValueError):
        raise SettingsError(f"{name}={settings.get(name)!r}: use True or False") from None


def sources(settings) -> tuple[str, ...]:
    """The registration agencies LANDING_SOURCES names, in its order."""
    named = tuple(s.strip() for s in str(settings.get("LANDING_SOURCES") or "").split(",") if s.strip())
    if not named or set(named) - set(SOURCES):
        raise SettingsError(
            f"LANDING_SOURCES={settings.get('LANDING_SOURCES')!r}: name one or both of crossref,datacite"
        )
    return named


def mailto(settings) -> str | None:
    """LANDING_MAILTO, an email address, or None when it is unset."""
    value = settings.get("LANDING_MAILTO")
    if value in (None, ""):
        return None
    if not isinstance(value, str) or not EMAIL.match(value):
        raise SettingsError(
            f"LANDING_MAILTO={value!r} is not an email address: give one you read, such as you@example.org "
            "(Crossref writes to it when this crawler troubles its API)"
        )
    return value


def exclusions(settings) -> frozenset[str]:
    """The domains the artifacts and the matcher exclude: LANDING_EXCLUDED_DOMAINS's file, else the shipped list."""
    path = settings.get("LANDING_EXCLUDED_DOMAINS")
    if not path:
        return frozenset(DOMAINS)
    try:
        with open(path, encoding="utf-8") as handle:
            return parse_exclusions(handle.read())
    except (OSError, UnicodeDecodeError) as error:
        raise SettingsError(f"LANDING_EXCLUDED_DOMAINS={path!r}: cannot read it ({error})") from None
    except ExclusionsError as error:
        raise SettingsError(f"LANDING_EXCLUDED_DOMAINS={path!r}: {error}") from None


def clock_value(settings) -> str | None:
    """LANDING_CLOCK, once landing.clock can run on it."""
    value = settings.get("LANDING_CLOCK")
    try:
        clock.parse(value)
    except clock.ClockError as error:
        raise SettingsError(str(error)) from None
    return value


def clock_speed(settings) -> float:
    """LANDING_CLOCK_SPEED: simulated seconds a real second, more than 0."""
    value = settings.get("LANDING_CLOCK_SPEED")
    try:
        speed = float(value)
    except (TypeError, ValueError):
        raise SettingsError(f"LANDING_CLOCK_SPEED={value!r} is not a number") from None
    if not 0 < speed < float("inf"):
        raise SettingsError(f"LANDING_CLOCK_SPEED={value!r}: use a number more than 0 (1: real time)")
    return speed


def clock_since(settings) -> float | None:
    """LANDING_CLOCK_SINCE: a Unix time, or unset."""
    value = settings.get("LANDING_CLOCK_SINCE")
    if value in (None, ""):
        return None
    try:
        since = float(value)
    except (TypeError, ValueError):
        since = float("nan")
    if not 0 <= since < float("inf"):
        raise SettingsError(f"LANDING_CLOCK_SINCE={value!r}: use a Unix time in seconds, such as 1767225600")
    return since


def metrics_port(settings) -> int | None:
    """LANDING_METRICS_PORT: a TCP port (0: any free one), or unset: no exporter."""
    value = settings.get("LANDING_METRICS_PORT")
    if value in (None, ""):
        return None
    try:
        port = int(value)
    except (TypeError, ValueError):
        port = -1
    if not 0 <= port <= 65535 or isinstance(value, float) and value != port:
        raise SettingsError(
            f"LANDING_METRICS_PORT={value!r}: use a TCP port (0 to 65535; 0: any free one), or unset it"
        )
    return port


def match_redis(settings) -> str | None:
    """LANDING_MATCH_REDIS: a redis://, rediss:// or unix:// URL, or unset ("" or None): no shared cache."""
    url = settings.get("LANDING_MATCH_REDIS")
    if not url:
        return None
    if not isinstance(url, str) or not url.startswith(("redis://", "rediss://", "unix://")):
        raise SettingsError("LANDING_MATCH_REDIS: use a URL like redis://host:6379/0, or leave it empty")
    return url


def stream_in(settings) -> str | None:
    """LANDING_STREAM_IN: the stream the service consumes, which needs LANDING_MATCH_REDIS; unset ("" or None): none."""
    key = settings.get("LANDING_STREAM_IN")
    if not key:
        return None
    if not isinstance(key, str):
        raise SettingsError(f"LANDING_STREAM_IN={key!r}: name a Redis stream key, or leave it empty")
    if not settings.get("LANDING_MATCH_REDIS"):
        raise SettingsError(f"LANDING_STREAM_IN={key!r}: set LANDING_MATCH_REDIS to the Redis that holds the stream")
    if key == settings.get("LANDING_STREAM_OUT"):
        raise SettingsError(f"LANDING_STREAM_IN={key!r} is LANDING_STREAM_OUT too: results need a stream of their own")
    return key


def stream_name(settings, name: str) -> str:
    """LANDING_STREAM_OUT or TUNING_STREAM_GROUP: a name that is not empty."""
    value = settings.get(name)
    if not value or not isinstance(value, str):
        raise SettingsError(f"{name}={value!r}: give it a name")
    return value


def stream_consumer(settings) -> str:
    """TUNING_STREAM_CONSUMER, or unset: HOSTNAME-PID, a name no other process of the group has."""
    value = settings.get("TUNING_STREAM_CONSUMER")
    if not value:
        return f"{socket.gethostname()}-{os.getpid()}"
    if not isinstance(value, str):
        raise SettingsError(f"TUNING_STREAM_CONSUMER={value!r}: give a name, unique per process, or leave it empty")
    return value


def chromium_usable(chromium: str | None) -> bool:
    """Whether LANDING_CHROMIUM names an executable."""
    return bool(chromium) and os.access(chromium, os.X_OK)


def endpoint(settings, name: str) -> str:
    """An endpoint (ENDPOINTS) as requests use it: no trailing slash; through a sandbox an API in plain http (no TLS
    tunnel per connection), while the resolver keeps https, so a DOI's chain starts as it does on the real web."""
    url = settings.get(name)
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise SettingsError(f"{name}={url!r}: use an http:// or https:// URL")
    url = url.rstrip("/")
    if settings.get("LANDING_SANDBOX") and name != "LANDING_DOI_RESOLVER" and url.startswith("https://"):
        return "http://" + url[len("https://") :]
    return url


def removed(names) -> list[str]:
    """A line for each setting that is no more, saying what took its place.

    >>> removed(["LANDING_PLAN_MINUTES", "LANDING_RUN"])
    ['LANDING_PLAN_MINUTES is no setting any more: a constant (PLAN_MINUTES = 60.0 in landing/tuning.py) that no operator needs to change']
    """
    return [f"{name} is no setting any more: {REMOVED[name]}" for name in names if name in REMOVED]


def unknown(names, known, environment: bool = False) -> list[str]:
    """A line for each LANDING_* (or TUNING_*) name that is no setting; in the environment only names close to a known
    one count (tests and tools keep LANDING_TEST_* variables there).

    >>> unknown(["LANDING_SAMPEL_MIN", "LANDING_RUN", "LANDING_COLOUR", "BOT_NAME"], ["LANDING_SAMPLE_MIN", "LANDING_RUN"])
    ['LANDING_SAMPEL_MIN is no setting: did you mean LANDING_SAMPLE_MIN?', 'LANDING_COLOUR is no setting']
    >>> unknown(["LANDING_DOCS_PASWORD", "LANDING_TEST_EUID"], ["LANDING_DOCS_PASSWORD"], environment=True)
    ['LANDING_DOCS_PASWORD (in the environment) is no setting: did you mean LANDING_DOCS_PASSWORD?']
    >>> unknown(["TUNING_PLAN_MINUTE"], ["LANDING_PLAN", "TUNING_PLAN_MINUTES"])
    ['TUNING_PLAN_MINUTE is no setting: did you mean TUNING_PLAN_MINUTES?']
    """
    found = []
    for name in sorted(set(names) - set(known), key=list(names).index):
        prefix = next((p for p in ("LANDING_", "TUNING_") if name.startswith(p)), None)
        if prefix is None:
            continue
        # Compared without the prefix every name shares, which would make any two names look alike.
        alike = [k.removeprefix(prefix) for k in known if k.startswith(prefix)]
        close = difflib.get_close_matches(name.removeprefix(prefix), alike, n=1, cutoff=0.8 if environment else 0.6)
        if environment and not close:
            continue
        where = " (in the environment)" if environment else ""
        found.append(f"{name}{where} is no setting" + (f": did you mean {prefix}{close[0]}?" if close else ""))
    return found
