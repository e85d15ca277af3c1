"""API and resolver endpoints from settings, adjusted when a sandbox stands in for the web."""
from urllib.parse import urlsplit

NAMES = ("LANDING_CROSSREF_API", "LANDING_DATACITE_API", "LANDING_DOI_RESOLVER")


def endpoint(settings, name: str) -> str:
    """The base URL for `name` (one of NAMES), without a trailing slash.

    Through a sandbox the APIs switch to plain http (no TLS tunnel per connection); the resolver keeps
    https, so a DOI's recorded chain starts exactly as it does on the real web.
    """
    url = settings.get(name).rstrip("/")
    if settings.get("LANDING_SANDBOX") and name != "LANDING_DOI_RESOLVER" and url.startswith("https://"):
        return "http://" + url[len("https://"):]
    return url


# The resolver's public host names, whatever LANDING_DOI_RESOLVER says: publishers link through any of them.
RESOLVER_HOSTS = frozenset({"doi.org", "dx.doi.org", "www.doi.org"})


def resolver_hosts(settings) -> frozenset:
    """Every host name a DOI's chain may pass through before it leaves the resolver."""
    return RESOLVER_HOSTS | {urlsplit(endpoint(settings, "LANDING_DOI_RESOLVER")).hostname}
