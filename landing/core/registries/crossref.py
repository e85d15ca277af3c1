"""The Crossref REST API: member listing, per-member samples and the works updated in a window
(https://api.crossref.org/swagger-ui)."""

from urllib.parse import urlencode

from landing.core.registries.names import cleaned

MEMBER_ROWS = 1000  # the API's largest page
MAX_SAMPLE = 100  # the API refuses sample > 100
UPDATES_ROWS = 1000  # the largest page of a works listing
UPDATES_SELECT = "DOI,resource,member,prefix"  # all a registry delta reads of a work
DATE = "%Y-%m-%dT%H:%M:%S"  # a filter's date to the second, UTC (the API takes YYYY up to this)


def _query(mailto, **params) -> str:
    if mailto:
        params["mailto"] = mailto  # Crossref's "polite pool": identified clients get the better-served pool
    return urlencode(params, safe=":,*")


def members_url(api: str, mailto=None, cursor: str | None = "*", offset: int | None = None) -> str:
    """One page of all members, by cursor (deep paging) or, where a deployment has no member cursors, by offset."""
    if offset is not None:
        return f"{api}/members?{_query(mailto, rows=MEMBER_ROWS, offset=offset)}"
    return f"{api}/members?{_query(mailto, rows=MEMBER_ROWS, cursor=cursor)}"


def parse_members(payload: dict):
    """(members, next cursor or None, total-results): each member as {id, name, total, prefixes}, its name its
    `primary-name` (landing.core.registries.names.cleaned; None when it has none)."""
    message = payload.get("message") or {}
    items = message.get("items") or []
    members = [
        {
            "id": str(item["id"]),
            "name": cleaned(item.get("primary-name")),
            "total": int((item.get("counts") or {}).get("total-dois") or 0),
            "prefixes": sorted({str(p).strip().lower() for p in item.get("prefixes") or [] if str(p).strip()}),
        }
        for item in items
    ]
    cursor = message.get("next-cursor")
    return members, (cursor if items and cursor else None), int(message.get("total-results") or 0)


def sample_url(api: str, member_id: str, size: int, mailto=None) -> str:
    """A random sample of a member's works, DOIs only."""
    return f"{api}/works?{_query(mailto, sample=min(size, MAX_SAMPLE), filter=f'member:{member_id}', select='DOI')}"


def prefix_sample_url(api: str, member_id: str, prefix: str, size: int, mailto=None) -> str:
    """A random sample of a member's works under one of its prefixes (the `prefix` filter: its owner prefix)."""
    query = _query(mailto, sample=min(size, MAX_SAMPLE), filter=f"prefix:{prefix},member:{member_id}", select="DOI")
    return f"{api}/works?{query}"


def parse_dois(payload: dict) -> list[str]:
    """The DOIs of a works listing, as returned (normalise before use)."""
    items = (payload.get("message") or {}).get("items") or []
    return [item["DOI"] for item in items if item.get("DOI")]


def updates_url(api: str, start, end, mailto=None, cursor: str = "*") -> str:
    """One page of the works whose record was updated from `start` to `end` (datetimes in UTC, both bounds
    inclusive), DOI, resource URL, member and prefix only, by cursor.

    >>> from datetime import datetime
    >>> updates_url("https://api.crossref.org", datetime(2030, 1, 2, 3), datetime(2030, 1, 2, 4), "a@b.org")
    'https://api.crossref.org/works?filter=from-update-date:2030-01-02T03:00:00,until-update-date:2030-01-02T04:00:00&select=DOI,resource,member,prefix&rows=1000&cursor=*&mailto=a%40b.org'
    """
    window = f"from-update-date:{start:{DATE}},until-update-date:{end:{DATE}}"
    return f"{api}/works?{_query(mailto, filter=window, select=UPDATES_SELECT, rows=UPDATES_ROWS, cursor=cursor)}"


def parse_updates(payload: dict) -> tuple[list[tuple[str, str | None]], str | None, int]:
    """([(DOI, its resource URL or None)], the next cursor or None, total-results) of a page of updated works;
    the last page is the empty one (the API answers a next-cursor even then).

    >>> page = {"message": {"total-results": 1, "next-cursor": "c2", "items": [{"DOI": "10.1/A", "prefix": "10.1",
    ...     "resource": {"primary": {"URL": "https://j.example/a"}}}]}}
    >>> parse_updates(page), parse_updates({"message": {"items": [], "next-cursor": "c3"}})
    (([('10.1/A', 'https://j.example/a')], 'c2', 1), ([], None, 0))
    """
    message = payload.get("message") or {}
    items = message.get("items") or []
    found = [
        (str(item["DOI"]), ((item.get("resource") or {}).get("primary") or {}).get("URL"))
        for item in items
        if item.get("DOI")
    ]
    cursor = message.get("next-cursor")
    return found, (cursor if items and cursor else None), int(message.get("total-results") or 0)
