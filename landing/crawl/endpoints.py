"""The API and resolver endpoints' pacing from the Config, adjusted when a sandbox stands in for the web.

landing.config resolves the endpoints themselves (Config.crossref_api, datacite_api, doi_resolver, resolver_hosts).
"""

from urllib.parse import urlsplit

from scrapy.settings import SETTINGS_PRIORITIES

from landing.config import Config

# The services' published limits, per IP address (docs/crawl.md "The services' limits"): Crossref's REST API allows
# list queries (a member's sample is one) 3 a second, 3 at once, to clients that name themselves (mailto), and 1 a
# second, 1 at once, to the rest; DataCite's allows 1,000 requests per 5 minutes (3.3 a second) to identified clients
# and 500 to the rest. A slot's delay spaces its requests, whatever its concurrency.
CROSSREF_POLITE, CROSSREF_PUBLIC = {"concurrency": 3, "delay": 1 / 3}, {"concurrency": 1, "delay": 1.0}
DATACITE = {"concurrency": 2, "delay": 0.6}


def service_slots(settings, cfg: Config) -> None:
    """DOWNLOAD_SLOTS with the APIs paced at their published limits; a sandbox, which has none, is not waited on."""
    if cfg.sandbox:
        return
    slots = dict(settings.getdict("DOWNLOAD_SLOTS"))
    for url, pace in (
        (cfg.crossref_api, CROSSREF_POLITE if cfg.mailto else CROSSREF_PUBLIC),
        (cfg.datacite_api, DATACITE),
    ):
        host = urlsplit(url).hostname
        slots[host] = {**slots.get(host, {}), **pace}
    settings.set("DOWNLOAD_SLOTS", slots, priority=settings.getpriority("DOWNLOAD_SLOTS"))


def sandbox_pace(settings, cfg: Config) -> None:
    """Under a sandbox, publisher hosts start at no delay unless AUTOTHROTTLE_START_DELAY was set on purpose.

    A sandbox is one local process: its sites have no one to be polite to, and at AutoThrottle's start delay a small
    world's crawl spent most of its time waiting (bench/README.md "Figures behind choices in the code").
    Concurrency per host and AutoThrottle itself stay as configured; benchmarks that model the real web's pace set
    the start delay explicitly (bench/limits.py, bench/fullrun.py).
    """
    chosen = settings.getpriority("AUTOTHROTTLE_START_DELAY") > SETTINGS_PRIORITIES["project"]
    if cfg.sandbox and not chosen:
        settings.set("AUTOTHROTTLE_START_DELAY", 0.0, priority="spider")
