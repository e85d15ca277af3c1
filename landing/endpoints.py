"""API and resolver endpoints from settings, adjusted when a sandbox stands in for the web."""

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
