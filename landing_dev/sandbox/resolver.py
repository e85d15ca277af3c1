"""doi.org: the DOI resolver and the Handle API, answering as the real ones do."""

from datetime import UTC, datetime
from urllib.parse import unquote

from landing_dev.sandbox.deposits import registered
from landing_dev.sandbox.http import Reply, html_reply, json_reply, redirect_reply

HOSTS = ("doi.org", "dx.doi.org", "www.doi.org")
_TIMESTAMP = datetime(2020, 1, 1, tzinfo=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _lookup(world, handle: str):
    """The DOI's record with its URL as registered now."""
    return registered(world, world.short(handle) if handle.lower().startswith("10/") else world.doi(handle))


def respond(world, request) -> Reply:
    parts = request.parts
    if parts.scheme == "http":
        # The real resolver answers every plain-http request with a 301 to its https twin.
        target = "https://" + parts.netloc + parts.path + (("?" + parts.query) if parts.query else "")
        return redirect_reply(301, target)
    path = unquote(parts.path)
    if path.startswith("/api/handles/"):
        return _handle_api(world, path[len("/api/handles/") :], request.query)
    handle = path.lstrip("/")
    if not handle:
        return html_reply(200, "DOI resolver", "Resolve a DOI: https://doi.org/<doi>")
    record = _lookup(world, handle)
    if record is None:
        return html_reply(404, "DOI Not Found", f"DOI {handle} could not be found.")
    return redirect_reply(302, record["url"], headers=[("Expires", "Wed, 01 Jan 2020 00:00:00 GMT")])


def _handle_api(world, handle: str, query: dict) -> Reply:
    record = _lookup(world, handle) if handle else None
    if record is None:
        # Handle not found: responseCode 100, HTTP 404; the handle is echoed as it was asked for.
        return json_reply(404, {"responseCode": 100, "handle": handle})
    if handle.lower().startswith("10/"):
        # A shortDOI is a handle alias: its record names the DOI it stands for, which carries the URL.
        first = {
            "index": 1,
            "type": "HS_ALIAS",
            "data": {"format": "string", "value": record["doi"]},
            "ttl": 86400,
            "timestamp": _TIMESTAMP,
        }
    else:
        first = {
            "index": 1,
            "type": "URL",
            "data": {"format": "string", "value": record["url"]},
            "ttl": 86400,
            "timestamp": _TIMESTAMP,
        }
    values = [
        first,
        {
            "index": 100,
            "type": "HS_ADMIN",
            "data": {
                "format": "admin",
                "value": {"handle": "0.na/" + record["prefix"], "index": 200, "permissions": "111111110111"},
            },
            "ttl": 86400,
            "timestamp": _TIMESTAMP,
        },
    ]
    wanted = query.get("type")
    if wanted:
        values = [v for v in values if v["type"] == wanted]
    if "index" in query:
        values = [v for v in values if str(v["index"]) == query["index"]]
    if not values:
        return json_reply(200, {"responseCode": 200, "handle": handle, "values": []})
    return json_reply(200, {"responseCode": 1, "handle": handle, "values": values})
