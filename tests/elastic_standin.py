"""An in-process stand-in for the slice of the Elasticsearch 8.x REST API a document store uses.

Tests point the real `elasticsearch` client at `StandIn().start().url`, so the client's own request
building, serialisation, product check (X-Elastic-Product), retries and error mapping all run for real.
Standard library only; one lock serialises every request's effect on the state. The indices and queries are modelled in
tests/elastic_index.py, the HTTP side is tests/elastic_http.py.

Served: GET|HEAD /; HEAD|PUT|DELETE /{index}; /_bulk and /{index}/_bulk (index, create, delete; update
is refused per item); GET /{index}/_doc/{id}; /_refresh, /_count, /_search, also under /{index}, where
comma lists, wildcards, ignore_unavailable and allow_no_indices resolve like ES. Queries: match_all,
match_none, term, terms, ids, exists, range, bool. Sorts: keyword fields (UTF-8 byte order) and numbers.

Near-real-time is modelled, with MANUAL refreshes only: writes land in `Index.docs` (what GET _doc
sees, as ES's realtime get does) and reach `Index.visible` (what _search and _count see) only on the
refresh API or a write's `refresh` parameter. There is no periodic 1s refresh and a `refresh_interval`
setting is ignored, so a test that forgets to refresh fails instead of passing by luck.

Mapped top-level properties are type-checked per document; `dynamic: strict` rejects unmapped fields.
Not modelled: dynamic mapping inference, scoring (_score is 1.0, or null when sorted), replicas (every
index is one shard), update actions, aliases, scroll and point in time.
"""

import fnmatch
import functools
import json
import math
import threading
import time
from http.server import ThreadingHTTPServer

from tests.elastic_http import Handler
from tests.elastic_index import (
    INJECTED,
    EsError,
    Index,
    check_index_name,
    compare,
    key,
    matches,
    not_found,
    search_error,
    values_of,
)


class StandIn:
    """The server and its state. Test hooks: requests, fail_next, reject_bulk_items(_after), down, indices,
    require_auth. `requests` holds (method, path with query, headers with lower-cased names)."""

    def __init__(self):
        self.indices, self.requests, self.down, self.url = {}, [], False, None
        self._lock, self._failures, self._rejections, self._auth = threading.Lock(), (0, 503), 0, None
        self._reject_after = None
        self._server = self._thread = None

    def fail_next(self, n, status=503):
        """The next n requests, whatever they ask, fail with this status (429 or 5xx)."""
        self._failures = (n, status)

    def reject_bulk_items(self, n):
        """The next n bulk items fail alone with 429, as when the write thread pool's queue is full."""
        self._rejections = n

    def reject_bulk_items_after(self, index):
        """Every bulk item after the first one written to `index` fails alone with 429: an outage that begins at
        a point of the crawl, whatever its speed."""
        self._reject_after = index

    def require_auth(self, header_value):
        """Answer 401 unless the Authorization header is exactly this (None: no authentication)."""
        self._auth = header_value

    def start(self):
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.standin = self
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        return self

    def stop(self):
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def answer(self, r):
        """(status, JSON body or None, extra headers) for a request; ES errors become ES-shaped bodies."""
        try:
            with self._lock:
                return self._route(r)
        except EsError as e:
            challenge = {"WWW-Authenticate": 'Basic realm="security", charset="UTF-8"'} if e.status == 401 else {}
            return e.status, e.body(), challenge

    def _route(self, r):
        if self.down:
            raise EsError(503, "master_not_discovered_exception", None)  # ES gives this one no reason
        if self._failures[0] > 0:
            self._failures = (self._failures[0] - 1, self._failures[1])
            raise EsError(self._failures[1], *INJECTED.get(self._failures[1], ("exception", "injected failure")))
        if self._auth is not None and r.headers.get("authorization") != self._auth:
            raise EsError(
                401,
                "security_exception",
                "unable to authenticate with provided credentials and anonymous access is not allowed for this request"
                if "authorization" in r.headers
                else f"missing authentication credentials for REST request [{r.path}]",
                header={"WWW-Authenticate": ['Basic realm="security", charset="UTF-8"', "ApiKey"]},
            )
        r.check_media_types()
        # Like ES's router: a literal route (/_bulk) wins, else the first segment is an index name (/_x too).
        name = None if tuple(r.segments[:1]) in ROUTES else (r.segments or [None])[0]
        shape = tuple(
            "{index}" if i == 0 and name else "{id}" if i == 2 and name else s for i, s in enumerate(r.segments)
        )
        methods = ROUTES.get(shape, {})
        if r.method not in methods:
            raise (
                EsError(
                    405,
                    "illegal_argument_exception",
                    f"Incorrect HTTP method for uri [{r.path}] and method "
                    f"[{r.method}], allowed: [{', '.join(sorted(methods))}]",
                )
                if methods
                else EsError(
                    400, "illegal_argument_exception", f"no handler found for uri [{r.path}] and method [{r.method}]"
                )
            )
        return methods[r.method](self, r, name) + ({},)

    def _resolve(self, expr, r):
        """The indices an expression (a,b,logs-*,_all) names, under ES's default indices options."""
        allow_none, names = r.query.get("allow_no_indices", "true") != "false", []
        for part in (expr or "_all").split(","):
            if part == "_all" or "*" in part:
                pattern = "*" if part == "_all" else part
                found = [
                    n
                    for n in self.indices
                    if fnmatch.fnmatchcase(n, pattern) and (pattern.startswith(".") or not n.startswith("."))
                ]  # dot-indices are hidden
                if not found and not allow_none:
                    raise not_found(part)
                names += found
            elif part in self.indices:
                names.append(part)
            elif not r.flag("ignore_unavailable"):
                raise not_found(part)
        if not names and not allow_none:
            raise not_found(expr)
        return list(dict.fromkeys(names))

    def _create(self, name, body=None):
        check_index_name(name)
        if name in self.indices:
            raise EsError(
                400,
                "resource_already_exists_exception",
                f"index [{name}/{self.indices[name].uuid}] already exists",
                index_uuid=self.indices[name].uuid,
                index=name,
            )
        self.indices[name] = Index(name, (body or {}).get("settings"), (body or {}).get("mappings"))
        return self.indices[name]

    # Endpoints: (standin, request, index name from the path) -> (status, body).
    def info(self, r, _):
        return 200, {
            "name": "standin",
            "cluster_name": "landing-standin",
            "cluster_uuid": "c3RhbmRpbi1jbHVzdGVy",
            "version": {
                "number": "8.15.0",
                "build_flavor": "default",
                "build_type": "docker",
                "build_snapshot": False,
                "lucene_version": "9.11.1",
                "minimum_wire_compatibility_version": "7.17.0",
                "minimum_index_compatibility_version": "7.0.0",
            },
            "tagline": "You Know, for Search",
        }

    def exists(self, r, name):
        return (200 if name in self.indices else 404), None

    def create_index(self, r, name):
        self._create(name, r.json())
        return 200, {"acknowledged": True, "shards_acknowledged": True, "index": name}

    def delete_index(self, r, name):
        if "*" in name or name == "_all":  # action.destructive_requires_name defaults to true in 8.x
            raise EsError(400, "illegal_argument_exception", "Wildcard expressions or all indices are not allowed")
        for n in self._resolve(name, r):
            del self.indices[n]
        return 200, {"acknowledged": True}

    def refresh(self, r, name):
        names = self._resolve(name, r)
        for n in names:
            self.indices[n].refresh()
        return 200, {"_shards": {"total": len(names), "successful": len(names), "failed": 0}}

    def get(self, r, name):
        if name not in self.indices:
            raise not_found(name)
        doc_id = r.segments[2]
        doc = self.indices[name].docs.get(doc_id)  # realtime: unrefreshed writes are seen, as in ES
        if doc is None:
            return 404, {"_index": name, "_id": doc_id, "found": False}
        return 200, {"_index": name, "_id": doc_id, **doc, "_primary_term": 1, "found": True}

    def bulk(self, r, name):
        started, text, items, touched = time.monotonic(), r.raw.decode(), [], set()
        if not text.strip():
            raise EsError(400, "action_request_validation_exception", "Validation Failed: 1: no requests added;")
        if not text.endswith("\n"):
            raise EsError(400, "illegal_argument_exception", "The bulk request must be terminated by a newline [\\n]")
        lines = iter(text.split("\n")[:-1])
        for line in lines:
            try:
                action = json.loads(line)
            except ValueError:
                action = None
            if (
                not isinstance(action, dict)
                or len(action) != 1
                or next(iter(action)) not in ("index", "create", "delete", "update")
            ):
                raise EsError(
                    400,
                    "illegal_argument_exception",
                    f"Malformed action/metadata line [{line}], expected one of [create], [delete], [index] or [update]",
                )
            ((op, meta),) = action.items()
            source = None if op == "delete" else next(lines, None)
            index, doc_id = meta.get("_index", name), None if meta.get("_id") is None else str(meta["_id"])
            if index is None:
                raise EsError(400, "action_request_validation_exception", "Validation Failed: 1: index is missing;")
            if doc_id is not None and not 0 < len(doc_id.encode()) <= 512:
                raise EsError(
                    400,
                    "action_request_validation_exception",
                    f"Validation Failed: 1: id [{doc_id}] "
                    f"is too long, must be no longer than 512 bytes but was: {len(doc_id.encode())};"
                    if doc_id
                    else "Validation Failed: 1: if _id is specified it must not be empty;",
                )
            try:
                if self._rejections > 0:  # what streaming_bulk's per-item retries are for
                    self._rejections -= 1
                    raise EsError(429, "es_rejected_execution_exception", "rejected execution of primary operation")
                if op == "update":
                    raise EsError(400, "illegal_argument_exception", "update is not supported by the stand-in")
                if index not in self.indices and op == "delete":
                    raise not_found(index)
                target = self.indices.get(index) or self._create(index)  # action.auto_create_index is on
                status, item = target.write(op, doc_id, source)
                touched.add(target)
                if index == self._reject_after:  # the outage begins with this write, in the same request
                    self._rejections, self._reject_after = 10**9, None
            except EsError as e:  # one item fails; the request and the other items go on
                status, item = e.status, {"_index": index, "_id": doc_id, "error": e.cause}
            items.append({op: {**item, "status": status}})
        if r.flag("refresh") or r.query.get("refresh") == "wait_for":
            for index in touched:
                index.refresh()
        if r.flag("refresh"):  # ES marks each write it refreshed for
            for item in (body for i in items for body in i.values() if "error" not in body):
                item["forced_refresh"] = True
        return 200, {
            "took": int((time.monotonic() - started) * 1000),
            "errors": any("error" in next(iter(i.values())) for i in items),
            "items": items,
        }

    def count(self, r, name):
        return self.search(r, name, counting=True)

    def search(self, r, name, counting=False):
        started, names, body = time.monotonic(), self._resolve(name, r), r.json() or {}
        query = body.get("query", {"match_all": {}})
        rows = []  # (index, id, doc, position): only what the last refresh made visible
        for index in map(self.indices.get, names):
            types = index.types()
            rows += [
                (index, doc_id, doc, position)
                for position, (doc_id, doc) in enumerate(index.visible.items())
                if matches(query, doc_id, doc["_source"], types)
            ]
        shards = {"total": len(names), "successful": len(names), "skipped": 0, "failed": 0}
        if counting:
            return 200, {"count": len(rows), "_shards": shards}
        sorts = []
        for spec in body.get("sort", []) if isinstance(body.get("sort", []), list) else [body["sort"]]:
            field, options = (spec, {}) if isinstance(spec, str) else next(iter(spec.items()))
            if field == "_id":  # indices.id_field_data.enabled is false by default in 8.x
                raise search_error(
                    "illegal_argument_exception",
                    "Fielddata access on the _id field is disallowed, "
                    "you can re-enable it by updating the dynamic cluster setting: "
                    "indices.id_field_data.enabled",
                )
            order = options if isinstance(options, str) else options.get("order", "asc")
            ftype = next((self.indices[n].types()[field] for n in names if field in self.indices[n].types()), None)
            sorts.append((field, order, ftype))

        def sort_values(index, doc_id, doc, position):  # a multi-valued field sorts by its min (asc) or max (desc)
            values = [[position] if f == "_doc" else values_of(f, doc_id, doc["_source"]) for f, _, _ in sorts]
            return [
                (min if order == "asc" else max)(v, key=lambda x: key(x, t)) if v else None
                for v, (_, order, t) in zip(values, sorts)
            ]

        ranked = sorted(
            ((sort_values(*row), row) for row in rows),  # stable: ties keep index order
            key=functools.cmp_to_key(lambda a, b: compare(a[0], b[0], sorts)),
        )
        after = body.get("search_after")
        if after is not None:
            if len(after) != len(sorts):
                raise search_error(
                    "illegal_argument_exception", f"search_after has {len(after)} value(s) but sort has {len(sorts)}."
                )
            ranked = [hit for hit in ranked if compare(hit[0], after, sorts) > 0]  # strictly after
        start, size = int(body.get("from", r.query.get("from", 0))), int(body.get("size", r.query.get("size", 10)))
        if start + size > 10000:
            raise search_error(
                "illegal_argument_exception",
                "Result window is too large, from + size must be less "
                f"than or equal to: [10000] but was [{start + size}].",
            )
        hits = []
        for values, (index, doc_id, doc, _) in ranked[start : start + size]:
            hit = {"_index": index.name, "_id": doc_id, "_score": None if sorts else 1.0}
            wanted = body.get("_source", True)
            if wanted is not False:
                fields = (
                    [wanted]
                    if isinstance(wanted, str)
                    else wanted.get("includes", ["*"])
                    if isinstance(wanted, dict)
                    else wanted
                )  # top-level field patterns; excludes are not modelled
                hit["_source"] = (
                    doc["_source"]
                    if fields is True
                    else {k: v for k, v in doc["_source"].items() if any(fnmatch.fnmatchcase(k, p) for p in fields)}
                )
            hits.append({**hit, "sort": values} if sorts else hit)
        result = {"max_score": None if sorts or not hits else 1.0, "hits": hits}
        track = body.get("track_total_hits", 10000)  # by default ES counts exactly up to 10,000
        if track is not False:
            limit = math.inf if track is True else int(track)
            result = {
                "total": {"value": min(len(rows), limit), "relation": "eq" if len(rows) <= limit else "gte"},
                **result,
            }
        return 200, {
            "took": int((time.monotonic() - started) * 1000),
            "timed_out": False,
            "_shards": shards,
            "hits": result,
        }


ROUTES = {  # path shape -> method -> endpoint
    (): {"GET": StandIn.info, "HEAD": StandIn.info},
    ("{index}",): {"HEAD": StandIn.exists, "PUT": StandIn.create_index, "DELETE": StandIn.delete_index},
    ("{index}", "_doc", "{id}"): {"GET": StandIn.get},
}
for _endpoint, _methods in [
    (StandIn.bulk, ("POST", "PUT")),
    (StandIn.refresh, ("GET", "POST")),
    (StandIn.count, ("GET", "POST")),
    (StandIn.search, ("GET", "POST")),
]:
    ROUTES[(f"_{_endpoint.__name__}",)] = ROUTES[("{index}", f"_{_endpoint.__name__}")] = dict.fromkeys(
        _methods, _endpoint
    )
