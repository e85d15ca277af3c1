"""api.datacite.org: the part of the DataCite REST API the project uses, in its JSON:API envelope.

A DOI's `updated` is its update date at the world's clock (landing_dev.sandbox.deposits); `query=updated:[A TO B]`
selects a window of them, paged with `page[cursor]`; `fields[dois]` keeps only the attributes it names.
"""

import math
from urllib.parse import unquote, urlencode

from landing_dev.sandbox import deposits
from landing_dev.sandbox.http import Reply, json_reply

HOSTS = ("api.datacite.org",)
MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE = 1000, 25
_TYPE = "application/vnd.api+json; charset=utf-8"


def _reply(status, value) -> Reply:
    return json_reply(status, value, content_type=_TYPE)


def _not_found() -> Reply:
    return _reply(404, {"errors": [{"status": "404", "title": "The resource you are looking for doesn't exist."}]})


def _bad(title: str) -> Reply:
    return _reply(400, {"errors": [{"status": "400", "title": title}]})


def _paging(query):
    size, number = query.get("page[size]", str(DEFAULT_PAGE_SIZE)), query.get("page[number]", "1")
    if not size.isdigit() or not number.isdigit() or int(number) < 1:
        raise ValueError("page[size] and page[number] must be positive integers")
    return min(int(size), MAX_PAGE_SIZE), int(number)


def _doi(record, fields=None) -> dict:
    """A DOI as the API answers it; `fields` (a `fields[dois]` value) keeps only those attributes."""
    doi = record["doi"].lower()
    found = {
        "id": doi,
        "type": "dois",
        "attributes": {
            "doi": doi,
            "prefix": record["prefix"],
            "suffix": doi.split("/", 1)[1],
            "identifiers": [],
            "url": record["url"],
            "state": "findable",
            "types": {"resourceTypeGeneral": "Dataset"},
            "titles": [{"title": record["title"]}] if record.get("title") else [],
            "updated": deposits.stamp(record["updated"]) if record.get("updated") is not None else None,
        },
        "relationships": {"client": {"data": {"id": record["owner"], "type": "clients"}}},
    }
    if fields:
        wanted = {name.strip() for name in fields.split(",")}
        found["attributes"] = {k: v for k, v in found["attributes"].items() if k in wanted}
        found["relationships"] = {k: v for k, v in found["relationships"].items() if k in wanted}
    return found


def _links(request, query, number, pages):
    base = request.parts._replace(query="", fragment="").geturl()
    links = {"self": request.url}
    if number < pages:
        links["next"] = base + "?" + urlencode({**query, "page[number]": number + 1})
    return links


def _dois(world, request, query, state) -> Reply:
    client, prefix = query.get("client-id"), query.get("prefix")
    if client is not None and world.owner("datacite", client) is None:
        client = "\0unknown"
    window = deposits.lucene_range(query["query"]) if "query" in query else None
    if window is not None:
        return _changed(world, request, query, window, client, prefix)
    size, number = _paging(query)
    total = world.count("datacite", client, prefix)
    if query.get("random") == "true":
        records = world.sample(state.rng, "datacite", client, prefix, size)
        number = 1
    else:
        records = world.page("datacite", client, prefix, (number - 1) * size, size)
    pages = math.ceil(total / size) if size else 0
    meta = {"total": total, "totalPages": pages, "page": number}
    if client is None and prefix is None:
        listed = {c["id"]: c for c in world.listed("datacite")}
        facets = sorted(((world.count("datacite", c), c) for c in listed), reverse=True)[:10]
        meta["clients"] = [{"id": c, "title": listed[c].get("name", c), "count": n} for n, c in facets]
        counts = sorted(
            ((world.prefix_count(p), p) for c in listed.values() for p in c.get("prefixes", [])), reverse=True
        )[:10]
        meta["prefixes"] = [{"id": p, "title": p, "count": n} for n, p in counts]
    data = [_doi(deposits.updated(world, r), query.get("fields[dois]")) for r in records]
    return _reply(200, {"data": data, "meta": meta, "links": _links(request, query, number, pages)})


def _changed(world, request, query, window, client, prefix) -> Reply:
    """A page of the DOIs whose `updated` falls in the window, oldest first, with a `links.next` whose cursor names
    the last one (so that pages stay right while the clock moves); none on the last page."""
    size = query.get("page[size]", str(DEFAULT_PAGE_SIZE))
    if not size.isdigit():
        raise ValueError("page[size] must be a positive integer")
    size = min(int(size), MAX_PAGE_SIZE)
    after = deposits.decursor(query.get("page[cursor]", "1"))
    found, total = deposits.window(world, "datacite", *window, after, size + 1, client, prefix)
    links = {"self": request.url}
    if len(found) > size:
        found = found[:size]
        base = request.parts._replace(query="", fragment="").geturl()
        token = deposits.cursor((found[-1]["updated"], found[-1]["rid"]))
        links["next"] = base + "?" + urlencode({**query, "page[cursor]": token, "page[size]": size})
    data = [_doi(r, query.get("fields[dois]")) for r in found]
    meta = {"total": total, "totalPages": math.ceil(total / size) if size else 0}
    return _reply(200, {"data": data, "meta": meta, "links": links})


def _provider_id(client) -> str:
    return client["id"].split(".")[0]


def _client(world, client) -> dict:
    return {
        "id": client["id"],
        "type": "clients",
        "attributes": {
            "name": client.get("name", client["id"]),
            "symbol": client["id"].upper(),
            "clientType": client.get("clientType", "repository"),
            "url": client.get("url"),
        },
        "relationships": {
            "provider": {"data": {"id": _provider_id(client), "type": "providers"}},
            "prefixes": {"data": [{"id": p, "type": "prefixes"} for p in client.get("prefixes", [])]},
        },
    }


def _provider(world, provider_id: str) -> dict:
    """A provider as the API side-loads it: its name from world.json's `providers`, else its symbol."""
    listed = next((p for p in world.meta.get("providers", []) if p.get("id") == provider_id), {})
    return {
        "id": provider_id,
        "type": "providers",
        "attributes": {
            "name": listed.get("name", provider_id.upper()),
            "displayName": listed.get("name", provider_id.upper()),
            "symbol": provider_id.upper(),
        },
    }


def _including(world, query, clients: list[dict]) -> list[dict] | None:
    """The `included` array of a clients answer: with `include=provider`, each provider of its clients once (as
    JSON:API side-loads), else none; the API takes only `provider` and `repository` and ignores other names."""
    asked = {name.strip().lower() for name in query.get("include", "").split(",")}
    if "provider" not in asked:
        return None
    ids = dict.fromkeys(c["relationships"]["provider"]["data"]["id"] for c in clients)
    return [_provider(world, provider_id) for provider_id in ids]


def _prefix(world, prefix: str) -> dict:
    owners = [c["id"] for c in world.listed("datacite") if prefix in c.get("prefixes", [])]
    return {
        "id": prefix,
        "type": "prefixes",
        "attributes": {"prefix": prefix},
        "relationships": {"clients": {"data": [{"id": c, "type": "clients"} for c in owners]}},
    }


def _listing(request, query, items, world=None) -> Reply:
    """A page of `items`; of clients (`world` given) with their providers side-loaded when asked, and a links.next
    that, as the real API's, keeps every parameter but `include`."""
    size, number = _paging(query)
    pages = math.ceil(len(items) / size) if size else 0
    chosen = items[(number - 1) * size : number * size]
    answer = {"data": chosen, "meta": {"total": len(items), "totalPages": pages, "page": number}}
    if world is not None:
        included = _including(world, query, chosen)
        if included is not None:
            answer["included"] = included
        query = {k: v for k, v in query.items() if k != "include"}
    answer["links"] = _links(request, query, number, pages)
    return _reply(200, answer)


def _prefixes(world) -> list[str]:
    return sorted({p for c in world.listed("datacite") for p in c.get("prefixes", [])})


def respond(world, request, state) -> Reply:
    parts = unquote(request.parts.path).strip("/").split("/")
    query = request.query
    try:
        if parts == ["dois"]:
            return _dois(world, request, query, state)
        if parts[0] == "dois" and len(parts) > 1:
            record = world.doi("/".join(parts[1:]))
            if record is None or record["ra"] != "datacite":
                return _not_found()
            return _reply(200, {"data": _doi(deposits.updated(world, record), query.get("fields[dois]"))})
        if parts == ["clients"]:
            return _listing(request, query, [_client(world, c) for c in world.listed("datacite")], world)
        if parts[0] == "clients" and len(parts) == 2:
            client = world.owner("datacite", parts[1])
            if client is None:
                return _not_found()
            answer = {"data": _client(world, client)}
            included = _including(world, query, [answer["data"]])
            return _reply(200, answer if included is None else {**answer, "included": included})
        if parts == ["prefixes"]:
            return _listing(request, query, [_prefix(world, p) for p in _prefixes(world)])
        if parts[0] == "prefixes" and len(parts) == 2:
            known = parts[1] in _prefixes(world)
            return _reply(200, {"data": _prefix(world, parts[1])}) if known else _not_found()
    except ValueError as error:
        return _bad(str(error))
    return _not_found()
