"""API and resolver endpoints from settings: plain http when a sandbox stands in for the web."""

NAMES = ("LANDING_CROSSREF_API", "LANDING_DATACITE_API", "LANDING_DOI_RESOLVER")


def endpoint(settings, name: str) -> str:
    """The base URL for `name` (one of NAMES), without a trailing slash."""
    url = settings.get(name).rstrip("/")
    if settings.get("LANDING_SANDBOX") and url.startswith("https://"):
        return "http://" + url[len("https://"):]
    return url
