"""The Crossref REST API: member listing and per-member samples (https://api.crossref.org/swagger-ui)."""

from urllib.parse import urlencode

from landing.core.registries.names import cleaned

MEMBER_ROWS = 1000  # the API's largest page
MAX_SAMPLE = 100  # the API refuses sample > 100


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
