"""Check the LANDING_* settings before a crawl starts, so a typo is one clear message, not a traceback.

Each check is here once: `problems` runs them all before `scrapy crawl`; the spider and middlewares read what they
check through `choice`, `number` and `sources`, so a crawler built any other way is refused in the same words.
"""

import os
import re
from datetime import date, timedelta

from landing import clock
from landing.core.decisions import excluding, seen_since
from landing.core.exclusions import DOMAINS, ExclusionsError, parse_exclusions
from landing.stores import StoreError, docs_from, open_blobs

CHOICES = {
    "LANDING_RESOURCE_URL_FROM": ("redirect", "handle"),
    "LANDING_RESOLVER_ROBOTS": ("ignore", "obey"),
    "LANDING_DRIVER": ("http", "browser", "auto"),
}
NUMBERS = {
    "LANDING_SAMPLE_MIN": (int, 1),
    "LANDING_SAMPLE_MAX": (int, 1),
    "LANDING_SAMPLE_MIN_PER_PREFIX": (int, 0),
    "LANDING_RETRY_AFTER_MAX": (float, 0),
    "LANDING_PROGRESS_INTERVAL": (float, 0),
    "LANDING_DOCS_RETRIES": (int, 0),
    "LANDING_DOCS_OUTAGE_MAX": (float, 0),
    "LANDING_DOCS_BATCH_DOCS": (int, 1),
    "LANDING_DOCS_BATCH_SECONDS": (float, 0),
    "LANDING_BROWSER_PAGES": (int, 1),
    "LANDING_BROWSER_SETTLE": (float, 0),
    "LANDING_FRONTIER": (int, 1),
    "LANDING_KEEPALIVE": (float, 0),
    "LANDING_IDLE_CONNECTIONS": (int, 0),
    "LANDING_ROBOTS_CACHE": (int, 1),
    "LANDING_LEASE_SECONDS": (float, 1),
    "LANDING_WORKERS": (int, 1),
    "LANDING_RESOLVER_RATE": (float, 0),
    "LANDING_MATCH_TEXT_CANDIDATES": (int, 0),
    "LANDING_MATCH_CONCURRENCY": (int, 1),
    "LANDING_MATCH_PIECES": (int, 1),
    "LANDING_MATCH_CANDIDATES": (int, 1),
    "LANDING_MATCH_REQUESTS": (int, 1),
    "LANDING_MATCH_EVIDENCE": (int, 3),
    "LANDING_MATCH_DEADLINE": (float, 0),
    "LANDING_MATCH_SEEN_WITHIN": (float, 0),
}
SOURCES = ("crossref", "datacite")
RUN_NAME = re.compile(r"^[A-Za-z0-9._:-]{1,100}$")
# An address's shape only (local part, @, a dotted domain): whether anyone reads it no check here can know.
EMAIL = re.compile(r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9-]{1,63}(\.[A-Za-z0-9-]{1,63})+$")


class SettingsError(ValueError):
    """A setting the crawl cannot run with; the message says what to set instead."""


def choice(settings, name: str) -> str:
    """The value of a setting that takes one of CHOICES[name]."""
    value, allowed = settings.get(name), CHOICES[name]
    if value not in allowed:
        raise SettingsError(f"{name}={value!r}: use {' or '.join(allowed)}")
    return value


def number(settings, name: str) -> int | float:
    """The value of a setting that takes a number of NUMBERS[name]'s kind, at least its minimum."""
    kind, minimum = NUMBERS[name]
    try:
        value = kind(settings.get(name))
    except (TypeError, ValueError):
        raise SettingsError(f"{name}={settings.get(name)!r} is not a number") from None
    if value < minimum:
        raise SettingsError(f"{name}={value} must be at least {minimum}")
    return value


def sources(settings) -> list[str]:
    """The registration agencies LANDING_SOURCES names, in its order."""
    named = [s.strip() for s in str(settings.get("LANDING_SOURCES") or "").split(",") if s.strip()]
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


def trusted(decisions, settings, today: date | None = None):
    """The artifact's decisions the matcher may use: excluded domains dropped, and with LANDING_MATCH_SEEN_WITHIN
    the pairs not seen for that many days."""
    decisions = excluding(decisions, exclusions(settings))
    days = number(settings, "LANDING_MATCH_SEEN_WITHIN")
    if days:
        since = (today or clock.now().date()) - timedelta(days=days)
        decisions = seen_since(decisions, since.isoformat())
    return decisions


def clock_setting(settings) -> tuple:
    """LANDING_CLOCK as landing.clock reads it: (start instant or None, offset of the wall clock)."""
    try:
        return clock.parse(settings.get("LANDING_CLOCK"))
    except clock.ClockError as error:
        raise SettingsError(str(error)) from None


def chromium_usable(chromium: str | None) -> bool:
    """Whether LANDING_CHROMIUM names an executable."""
    return bool(chromium) and os.access(chromium, os.X_OK)


def value_problems(settings) -> list[str]:
    """Every setting whose value is not one it takes, each a sentence saying what to set instead."""
    found = _refused(sources, settings) + _refused(exclusions, settings) + _refused(clock_setting, settings)
    found += _refused(mailto, settings)
    for name in CHOICES:
        found += _refused(choice, settings, name)
    for name in NUMBERS:
        found += _refused(number, settings, name)
    return found


def problems(settings) -> list[str]:
    """Every problem with the sampler's settings (values, run, Redis, Chromium, stores), each a sentence."""
    found = value_problems(settings)
    run = settings.get("LANDING_RUN")
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
    chromium = settings.get("LANDING_CHROMIUM")
    if settings.get("LANDING_DRIVER") == "browser" and not chromium_usable(chromium):
        found.append(
            f"LANDING_CHROMIUM={chromium!r} is not an executable: install Debian's chromium-headless-shell package "
            "(apt-get install chromium-headless-shell) or name its path, or use LANDING_DRIVER=auto or http"
        )
    openers = [lambda s: open_blobs(s.get("LANDING_BLOBS"))]
    if not any(problem.startswith("LANDING_DOCS_") for problem in found):
        openers.insert(0, docs_from)  # it reads the LANDING_DOCS_* numbers
    for opener in openers:
        try:
            opener(settings).close()
        except StoreError as error:
            found.append(str(error))
    return found


def _refused(check, *args) -> list[str]:
    try:
        check(*args)
    except SettingsError as error:
        return [str(error)]
    return []


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
