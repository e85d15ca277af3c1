"""The DataCite REST API: client listing, per-client counts, random samples and the DOIs updated in a window
(https://support.datacite.org/docs/api)."""

from urllib.parse import parse_qsl, quote, urlencode, urlsplit

from landing.core.registries.names import Names, cleaned

PAGE_SIZE = 1000  # the API's largest page
MAX_SAMPLE = 1000  # random=true returns at most one page


def clients_url(api: str, page: int = 1) -> str:
    """One page of all repositories (clients); each DOI belongs to exactly one. `include=provider` side-loads each
    client's provider into the page's `included` (the API's documented include), so its name needs no request."""
    return f"{api}/clients?{urlencode({'page[size]': PAGE_SIZE, 'page[number]': page, 'include': 'provider'})}"


def parse_clients(payload: dict):
    """(client ids, URL of the next page or None), following the API's own `links.next`, which leaves out the
    `include` asked for: asked again there."""
    data = payload.get("data") or []
    ids = [item["id"] for item in data if item.get("id")]
    following = (payload.get("links") or {}).get("next") if data else None
    return ids, (_including_provider(following) if following else None)


def _including_provider(url: str) -> str:
    """The URL with `include=provider` in its query, the rest as it was.

    >>> _including_provider("https://api.datacite.org/clients?page%5Bnumber%5D=2")
    'https://api.datacite.org/clients?page%5Bnumber%5D=2&include=provider'
    """
    parts = urlsplit(url)
    if ("include", "provider") in parse_qsl(parts.query):
        return url
    return parts._replace(query="&".join(filter(None, (parts.query, "include=provider")))).geturl()


def client_names(payload: dict) -> dict[str, Names]:
    """Each client's names on a clients page: its `attributes.name`, and its provider's id
    (`relationships.provider.data.id`) and name (that provider's `attributes.name` among the page's `included`,
    else its `displayName`; None when the page does not include it)."""
    providers = {}
    for item in payload.get("included") or []:
        if isinstance(item, dict) and item.get("type") == "providers" and item.get("id"):
            attributes = item.get("attributes") or {}
            providers[str(item["id"])] = cleaned(attributes.get("name")) or cleaned(attributes.get("displayName"))
    found = {}
    for item in payload.get("data") or []:
        if not isinstance(item, dict) or not item.get("id"):
            continue
        provider = ((item.get("relationships") or {}).get("provider") or {}).get("data") or {}
        provider_id = cleaned(provider.get("id")) if isinstance(provider, dict) else None
        name = cleaned((item.get("attributes") or {}).get("name"))
        found[item["id"]] = Names(name, provider_id, providers.get(provider_id) if provider_id else None)
    return found


def client_prefixes(payload: dict) -> dict[str, list[str]]:
    """Each client's prefixes on a clients page (its `relationships.prefixes`), lower case."""
    found = {}
    for item in payload.get("data") or []:
        related = ((item.get("relationships") or {}).get("prefixes") or {}).get("data") or []
        if item.get("id"):
            found[item["id"]] = sorted({str(p["id"]).lower() for p in related if isinstance(p, dict) and p.get("id")})
    return found


def count_url(api: str, client_id: str) -> str:
    """A one-DOI page: its meta.total is the client's DOI count."""
    return f"{api}/dois?{urlencode({'client-id': client_id, 'page[size]': 1})}"


def parse_total(payload: dict) -> int:
    return int((payload.get("meta") or {}).get("total") or 0)


def sample_url(api: str, client_id: str, size: int) -> str:
    """A random page of the client's DOIs."""
    return f"{api}/dois?{urlencode({'client-id': client_id, 'random': 'true', 'page[size]': min(size, MAX_SAMPLE)})}"


def prefix_sample_url(api: str, client_id: str, prefix: str, size: int) -> str:
    """A random page of the client's DOIs under one of its prefixes."""
    query = {"client-id": client_id, "prefix": prefix, "random": "true", "page[size]": min(size, MAX_SAMPLE)}
    return f"{api}/dois?{urlencode(query)}"


def parse_dois(payload: dict) -> list[str]:
    data = payload.get("data") or []
    return [(item.get("attributes") or {}).get("doi") or item.get("id") for item in data if item.get("id")]


def _lucene_time(moment) -> str:
    """A UTC datetime as a term of the query string: its colons escaped (Lucene's `\\:`)."""
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ").replace(":", "\\:")


def updates_url(api: str, start, end) -> str:
    """The first page of the DOIs updated from `start` to `end` (datetimes in UTC, both bounds inclusive), each
    with its URL and update time only (a sparse fieldset), by cursor: the next pages are the answer's `links.next`.

    >>> from datetime import datetime
    >>> from urllib.parse import unquote
    >>> unquote(updates_url("https://api.datacite.org", datetime(2030, 1, 2, 3), datetime(2030, 1, 2, 4)))
    'https://api.datacite.org/dois?query=updated:[2030-01-02T03\\\\:00\\\\:00Z TO 2030-01-02T04\\\\:00\\\\:00Z]&fields[dois]=url,updated&page[size]=1000&page[cursor]=1'
    """
    query = {
        "query": f"updated:[{_lucene_time(start)} TO {_lucene_time(end)}]",
        "fields[dois]": "url,updated",
        "page[size]": PAGE_SIZE,
        "page[cursor]": 1,
    }
    return f"{api}/dois?{urlencode(query, quote_via=quote)}"  # a space as %20, as DataCite's own examples write it


def parse_updates(payload: dict) -> tuple[list[tuple[str, str | None]], str | None, int]:
    """([(DOI, its URL or None)], the next page's URL or None, meta.total) of a page of updated DOIs.

    >>> page = {"data": [{"id": "10.5061/ABC", "attributes": {"url": "https://repo.example/1"}}],
    ...     "meta": {"total": 1}, "links": {"next": "https://api.datacite.org/dois?page%5Bcursor%5D=x"}}
    >>> parse_updates(page), parse_updates({"data": [], "meta": {"total": 0}, "links": {}})
    (([('10.5061/ABC', 'https://repo.example/1')], 'https://api.datacite.org/dois?page%5Bcursor%5D=x', 1), ([], None, 0))
    """
    data = payload.get("data") or []
    found = [(str(item["id"]), (item.get("attributes") or {}).get("url")) for item in data if item.get("id")]
    following = (payload.get("links") or {}).get("next") if data else None
    return found, following, int((payload.get("meta") or {}).get("total") or 0)
