"""The DataCite REST API: client listing, per-client counts and random samples (https://support.datacite.org/docs/api)."""

from urllib.parse import urlencode

PAGE_SIZE = 1000  # the API's largest page
MAX_SAMPLE = 1000  # random=true returns at most one page


def clients_url(api: str, page: int = 1) -> str:
    """One page of all repositories (clients); each DOI belongs to exactly one."""
    return f"{api}/clients?{urlencode({'page[size]': PAGE_SIZE, 'page[number]': page})}"


def parse_clients(payload: dict):
    """(client ids, URL of the next page or None), following the API's own `links.next`."""
    data = payload.get("data") or []
    ids = [item["id"] for item in data if item.get("id")]
    return ids, ((payload.get("links") or {}).get("next") if data else None)


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
