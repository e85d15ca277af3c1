"""API and resolver endpoints from settings, adjusted when a sandbox stands in for the web."""

from urllib.parse import urlsplit

from scrapy.settings import SETTINGS_PRIORITIES

from landing.config import number
from landing.core.doi import RESOLVER_HOSTS

NAMES = ("LANDING_CROSSREF_API", "LANDING_DATACITE_API", "LANDING_DOI_RESOLVER")


def endpoint(settings, name: str) -> str:
    """The base URL for `name` (one of NAMES), without a trailing slash.

    Through a sandbox the APIs switch to plain http (no TLS tunnel per connection); the resolver keeps
    https, so a DOI's recorded chain starts exactly as it does on the real web.
    """
    url = settings.get(name).rstrip("/")
    if settings.get("LANDING_SANDBOX") and name != "LANDING_DOI_RESOLVER" and url.startswith("https://"):
        return "http://" + url[len("https://") :]
    return url


def resolver_hosts(settings) -> frozenset:
    """Every host name a DOI's chain may pass through before it leaves the resolver."""
    # The public names whatever LANDING_DOI_RESOLVER says: publishers link through any of them.
    return RESOLVER_HOSTS | {urlsplit(endpoint(settings, "LANDING_DOI_RESOLVER")).hostname}


# The services' published limits, per IP address (docs/crawl.md "The services' limits"): Crossref's REST API allows list queries
# (a member's sample is one) 3 a second, 3 at once, to clients that name themselves (mailto), and 1 a second, 1 at
# once, to the rest; DataCite's allows 1,000 requests per 5 minutes (3.3 a second) to identified clients and 500
# to the rest. A slot's delay spaces its requests, whatever its concurrency.
CROSSREF_POLITE, CROSSREF_PUBLIC = {"concurrency": 3, "delay": 1 / 3}, {"concurrency": 1, "delay": 1.0}
DATACITE = {"concurrency": 2, "delay": 0.6}


def verified_hosts(settings) -> frozenset:
    """Hosts whose TLS certificates are verified: the registration agencies' APIs and the resolver, the trust anchor
    for what gets sampled and matched (publisher pages stay lenient). None through a sandbox, whose certificate is
    its own."""
    if settings.get("LANDING_SANDBOX"):
        return frozenset()
    apis = {urlsplit(endpoint(settings, name)).hostname for name in ("LANDING_CROSSREF_API", "LANDING_DATACITE_API")}
    return frozenset(resolver_hosts(settings) | apis)


def service_slots(settings) -> dict:
    """DOWNLOAD_SLOTS with the APIs paced at their published limits; a sandbox, which has none, is not waited on."""
    slots = dict(settings.getdict("DOWNLOAD_SLOTS"))
    if settings.get("LANDING_SANDBOX"):
        return slots
    for name, pace in (
        ("LANDING_CROSSREF_API", CROSSREF_POLITE if settings.get("LANDING_MAILTO") else CROSSREF_PUBLIC),
        ("LANDING_DATACITE_API", DATACITE),
    ):
        host = urlsplit(endpoint(settings, name)).hostname
        slots[host] = {**slots.get(host, {}), **pace}
    return slots


def resolver_rate(settings) -> float:
    """Requests a second to the resolver (LANDING_RESOLVER_RATE); 0, none, through a sandbox unless set."""
    chosen = settings.getpriority("LANDING_RESOLVER_RATE") > SETTINGS_PRIORITIES["project"]
    if settings.get("LANDING_SANDBOX") and not chosen:
        return 0.0
    return number(settings, "LANDING_RESOLVER_RATE")


def sandbox_pace(settings) -> None:
    """Under a sandbox, publisher hosts start at no delay unless AUTOTHROTTLE_START_DELAY was set on purpose.

    A sandbox is one local process: its sites have no one to be polite to, and at a 1 s start a 30-site world spent
    100 s on 650 DOIs waiting out AutoThrottle. Concurrency per host and AutoThrottle itself stay as configured;
    benchmarks that model the real web's pace set the start delay explicitly (bench/limits.py, bench/fullrun.py).
    """
    chosen = settings.getpriority("AUTOTHROTTLE_START_DELAY") > SETTINGS_PRIORITIES["project"]
    if settings.get("LANDING_SANDBOX") and not chosen:
        settings.set("AUTOTHROTTLE_START_DELAY", 0.0, priority="spider")
