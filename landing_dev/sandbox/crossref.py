"""api.crossref.org: the part of the Crossref REST API the project uses, in its JSON envelope.

A work's `deposited` and `indexed` dates are its update date at the world's clock (landing_dev.sandbox.deposits);
`from-update-date`/`until-update-date` (the same as the deposit dates, as documented) select a window of them.
"""

import base64
import json
from urllib.parse import unquote

from landing_dev.sandbox import deposits
from landing_dev.sandbox.http import Reply, json_reply

HOSTS = ("api.crossref.org",)
MAX_ROWS, MAX_SAMPLE, MAX_OFFSET = 1000, 100, 10000
DATES = ("from-update-date", "until-update-date", "from-deposit-date", "until-deposit-date")
FILTERS = ("member", "prefix", "alternative-id", "doi", *DATES)
# Fields the real API lets `select` name; the sandbox returns those of them it has.
SELECTABLE = set(
    "DOI URL abstract accepted alternative-id approved archive article-number assertion author chair "
    "clinical-trial-number container-title content-created content-domain created degree deposited "
    "editor event funder group-title indexed is-referenced-by-count issn-type issue issued ISBN ISSN "
    "license link member original-title page posted prefix published-online published-print publisher "
    "publisher-location reference references-count relation resource score short-container-title "
    "short-title standards-body subject subtitle title translator type update-policy update-to "
    "updated-by volume".split()
)
_HEADERS = (("X-Rate-Limit-Limit", "50"), ("X-Rate-Limit-Interval", "1s"), ("Access-Control-Allow-Origin", "*"))


class Invalid(Exception):
    """A request the real API rejects with a validation failure."""

    def __init__(self, kind: str, value, message: str):
        super().__init__(message)
        self.detail = {"type": kind, "value": value, "message": message}


def _ok(message_type: str, message) -> Reply:
    return json_reply(
        200,
        {"status": "ok", "message-type": message_type, "message-version": "1.0.0", "message": message},
        headers=_HEADERS,
    )


def _failed(error: Invalid) -> Reply:
    return json_reply(
        400, {"status": "failed", "message-type": "validation-failure", "message": [error.detail]}, headers=_HEADERS
    )


def _int(query, name, default, maximum):
    raw = query.get(name)
    if raw is None:
        return default
    if not raw.isdigit() or int(raw) > maximum:
        raise Invalid(
            "integer-not-valid",
            raw,
            f"Integer specified as {raw} but must be a positive integer less than or equal to {maximum}.",
        )
    return int(raw)


def _filters(query) -> dict:
    found = {}
    for part in filter(None, query.get("filter", "").split(",")):
        name, _, value = part.partition(":")
        if name not in FILTERS:
            raise Invalid(
                "filter-not-available", name, f"Filter {name} specified but there is no such filter for this route."
            )
        found[name] = value
    return found


def _select(query):
    raw = query.get("select")
    if not raw:
        return None
    fields = raw.split(",")
    for name in fields:
        if name not in SELECTABLE:
            raise Invalid("select-not-valid", name, f"Field {name} specified but not selectable.")
    return fields


def _date(at: float) -> dict:
    """A date as the API writes a work's `deposited` or `indexed`."""
    stamp = deposits.stamp(at)
    parts = [int(stamp[:4]), int(stamp[5:7]), int(stamp[8:10])]
    return {"date-parts": [parts], "date-time": stamp, "timestamp": int(at * 1000)}


def _window(filters: dict) -> tuple[float, float] | None:
    """The [start, end) of update dates the date filters select (None: no date filter); each bound covers its
    whole date at its precision, as the API's inclusive `from-`/`until-` do."""
    if not any(name in filters for name in DATES):
        return None
    start, end = float("-inf"), float("inf")
    for name in DATES:
        if name in filters:
            try:
                covered = deposits.period(filters[name])
            except ValueError:
                raise Invalid(
                    "date-not-valid", filters[name], f"Date specified as {filters[name]} but is not valid."
                ) from None
            start, end = (max(start, covered[0]), end) if name.startswith("from") else (start, min(end, covered[1]))
    return start, end


def _work(record, fields):
    item = {
        "DOI": record["doi"].lower(),
        "URL": "https://doi.org/" + record["doi"].lower(),
        "prefix": record["prefix"],
        "member": record["owner"],
        "type": "journal-article",
        "resource": {"primary": {"URL": record["url"]}},
    }
    if record["pii"]:
        item["alternative-id"] = [record["pii"]]
    if record.get("title"):
        item["title"] = [record["title"]]
    if record.get("updated") is not None:
        item["deposited"] = _date(record["updated"])
        item["indexed"] = {**_date(record["updated"]), "version": "0.1.0"}
    return {k: item[k] for k in fields if k in item} if fields else item


def _cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(json.dumps({"o": offset}).encode()).decode()


def _uncursor(token: str) -> int:
    if token == "*":
        return 0
    try:
        return int(json.loads(base64.urlsafe_b64decode(token.encode()))["o"])
    except Exception:
        raise Invalid("cursor-not-valid", token, "Cursor specified is not valid.") from None


def _works(world, query, state, member=None, prefix=None) -> Reply:
    filters = _filters(query)
    fields = _select(query)
    member = member or filters.get("member")
    prefix = prefix or filters.get("prefix")
    window = _window(filters)
    if window is not None and "doi" not in filters and "alternative-id" not in filters and "sample" not in query:
        return _ok("work-list", _changed(world, query, fields, window, member, prefix))
    if "doi" in filters or "alternative-id" in filters:
        records = [world.doi(filters["doi"])] if "doi" in filters else world.by_pii(filters["alternative-id"])
        records = [
            r
            for r in records
            if r
            and r["ra"] == "crossref"
            and (member is None or r["owner"] == member)
            and (prefix is None or r["prefix"] == prefix)
        ]
        total = len(records)
        start = _int(query, "offset", 0, MAX_OFFSET)
        records = records[start : start + _int(query, "rows", 20, MAX_ROWS)]
        message = {"total-results": total, "items": [_work(deposits.updated(world, r), fields) for r in records]}
    elif "sample" in query:
        if "cursor" in query:
            raise Invalid("parameter-not-allowed", "cursor", "Cursor cannot be combined with sample.")
        n = _int(query, "sample", 20, MAX_SAMPLE)
        records = world.sample(state.rng, "crossref", member, prefix, n)
        message = {"total-results": len(records), "items": [_work(deposits.updated(world, r), fields) for r in records]}
    else:
        rows = _int(query, "rows", 20, MAX_ROWS)
        if "cursor" in query:
            start = _uncursor(query["cursor"])
        else:
            start = _int(query, "offset", 0, MAX_OFFSET)
        records = world.page("crossref", member, prefix, start, rows)
        message = {
            "total-results": world.count("crossref", member, prefix),
            "items": [_work(deposits.updated(world, r), fields) for r in records],
            "items-per-page": rows,
            "query": {"start-index": start, "search-terms": None},
        }
        if "cursor" in query:
            message["next-cursor"] = _cursor(start + len(records))
    message.setdefault("items-per-page", len(message["items"]))
    message.setdefault("query", {"start-index": 0, "search-terms": None})
    message["facets"] = {}
    return _ok("work-list", message)


def _changed(world, query, fields, window, member, prefix) -> dict:
    """A page of the works whose update date falls in the window, by update date then DOI, with a cursor that
    names the last one (so that pages stay right while the clock moves); rows=0 counts them."""
    rows = _int(query, "rows", 20, MAX_ROWS)
    try:
        after = deposits.decursor(query.get("cursor", "*"))
    except ValueError:
        raise Invalid("cursor-not-valid", query["cursor"], "Cursor specified is not valid.") from None
    offset = 0 if "cursor" in query else _int(query, "offset", 0, MAX_OFFSET)
    found, total = deposits.window(world, "crossref", *window, after, rows, member, prefix, offset)
    last = (found[-1]["updated"], found[-1]["rid"]) if found else after
    message = {
        "facets": {},
        "total-results": total,
        "items": [_work(r, fields) for r in found],
        "items-per-page": rows,
        "query": {"start-index": offset, "search-terms": None},
    }
    if "cursor" in query:
        message["next-cursor"] = deposits.cursor(last)
    return message


def _member(world, member: dict) -> dict:
    total = world.count("crossref", member["id"])
    current = total // 4
    prefixes = member.get("prefixes", [])
    return {
        "id": int(member["id"]) if str(member["id"]).isdigit() else member["id"],
        "primary-name": member["primary-name"],
        "names": [member["primary-name"]],
        "location": member.get("location", ""),
        "prefixes": prefixes,
        "prefix": [
            {"value": p, "name": member["primary-name"], "public-references": True, "reference-visibility": "open"}
            for p in prefixes
        ],
        "counts": {"total-dois": total, "current-dois": current, "backfile-dois": total - current},
        "tokens": member["primary-name"].lower().split(),
        "coverage": {},
        "flags": {},
        "breakdowns": {"dois-by-issued-year": []},
    }


def _members(world, query) -> Reply:
    members = world.listed("crossref")
    rows = _int(query, "rows", 20, MAX_ROWS)
    start = _uncursor(query["cursor"]) if "cursor" in query else _int(query, "offset", 0, MAX_OFFSET)
    chosen = members[start : start + rows]
    message = {
        "items-per-page": rows,
        "query": {"start-index": start, "search-terms": None},
        "total-results": len(members),
        "items": [_member(world, m) for m in chosen],
    }
    if "cursor" in query:
        message["next-cursor"] = _cursor(start + len(chosen))
    return _ok("member-list", message)


def respond(world, request, state) -> Reply:
    path = unquote(request.parts.path).rstrip("/")
    if path.startswith("/v1/"):
        path = path[3:]
    query = request.query
    parts = path.split("/")[1:]
    try:
        if parts == ["works"]:
            return _works(world, query, state)
        if parts[:1] == ["works"] and len(parts) > 1:
            record = world.doi("/".join(parts[1:]))
            if record is None or record["ra"] != "crossref":
                return Reply(404, [("Content-Type", "text/plain")], b"Resource not found.")
            return _ok("work", _work(deposits.updated(world, record), None))
        if parts == ["members"]:
            return _members(world, query)
        if len(parts) >= 2 and parts[0] == "members":
            member = world.owner("crossref", parts[1])
            if member is None:
                return Reply(404, [("Content-Type", "text/plain")], b"Resource not found.")
            if len(parts) == 2:
                return _ok("member", _member(world, member))
            if parts[2:] == ["works"]:
                return _works(world, query, state, member=parts[1])
        if len(parts) == 3 and parts[0] == "prefixes" and parts[2] == "works":
            return _works(world, query, state, prefix=parts[1].lower())
    except Invalid as error:
        return _failed(error)
    return Reply(404, [("Content-Type", "text/plain")], b"Resource not found.")
