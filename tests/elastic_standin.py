"""An in-process stand-in for the slice of the Elasticsearch 8.x REST API a document store uses.

Tests point the real `elasticsearch` client at `StandIn().start().url`, so the client's own request
building, serialisation, product check (X-Elastic-Product), retries and error mapping all run for real.
Standard library only; one lock serialises every request's effect on the state.

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

import base64
import fnmatch
import functools
import gzip
import json
import math
import re
import threading
import time
import traceback
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, unquote, urlsplit

SHARDS = {"total": 1, "successful": 1, "failed": 0}
TEXT = {"keyword", "text", "wildcard", "match_only_text", "constant_keyword"}
LIMITS = {"long": 2**63, "integer": 2**31, "short": 2**15, "byte": 2**7}  # magnitude bounds
NUMBERS = {*LIMITS, "double", "float", "half_float", "scaled_float", "unsigned_long"}
# ES's default date format is strict_date_optional_time||epoch_millis; this is the former in outline.
ISO_DATE = re.compile(r"\d{4}(-\d\d(-\d\d(T\d\d(:\d\d(:\d\d([.,]\d{1,9})?)?)?(Z|[+-]\d\d(:?\d\d)?)?)?)?)?$")
INJECTED = {  # what an overloaded or unhealthy cluster answers; see fail_next() and down
    429: ("es_rejected_execution_exception", "rejected execution of coordinating operation"),
    503: ("cluster_block_exception", "blocked by: [SERVICE_UNAVAILABLE/1/state not recovered / initialized];"),
}


class EsError(Exception):
    """An ES exception; `cause` is the {"type", "reason", ...} object ES puts under "error"."""

    def __init__(self, status, type_, reason, root=None, **extra):
        super().__init__(reason)
        self.status, self.cause = status, {"type": type_, "reason": reason, **extra}
        self.root = root or self.cause  # a failed search's root cause is the shard's, not the wrapper

    def body(self):
        return {"error": {"root_cause": [self.root], **self.cause}, "status": self.status}


def not_found(name):
    return EsError(
        404,
        "index_not_found_exception",
        f"no such index [{name}]",
        **{"resource.type": "index_or_alias", "resource.id": name, "index_uuid": "_na_", "index": name},
    )


def search_error(type_, reason):
    """A query that fails on every shard: ES wraps the shard's error in search_phase_execution_exception."""
    cause = {"type": type_, "reason": reason}
    return EsError(
        400,
        "search_phase_execution_exception",
        "all shards failed",
        root=cause,
        phase="query",
        grouped=True,
        caused_by=cause,
    )


def check_index_name(name):
    size = len(name.encode())
    problem = (
        "must not contain the following characters [' ','\"','*',',','/','<','>','?','\\\\','|']"
        if set(name) & set('\\/*?"<>| ,')
        else "must not contain '#'"
        if "#" in name
        else "must not contain ':'"
        if ":" in name
        else "must not start with '_', '-', or '+'"
        if name[0] in "_-+"
        else f"index name is too long, ({size} > 255)"
        if size > 255
        else "must not be '.' or '..'"
        if name in (".", "..")
        else "must be lowercase"
        if name != name.lower()
        else None
    )
    if problem:
        raise EsError(
            400,
            "invalid_index_name_exception",
            f"Invalid index name [{name}], {problem}",
            index_uuid="_na_",
            index=name,
        )


def flat(value):
    """A field's values as ES indexes them: arrays (nested ones too) flattened, nulls dropped."""
    return [v for item in value for v in flat(item)] if isinstance(value, list) else [] if value is None else [value]


def rejection(ftype, spec, value, col):
    """The caused_by ES gives for a value a field of this type refuses, or None if it is accepted."""
    for v in flat(value):
        token = "START_OBJECT" if isinstance(v, dict) else "VALUE_BOOLEAN" if isinstance(v, bool) else "VALUE"
        if ftype in TEXT and isinstance(v, dict):
            return {"type": "illegal_state_exception", "reason": f"Can't get text on a {token} at 1:{col}"}
        if ftype in NUMBERS:
            if isinstance(v, (dict, bool)):
                return {"type": "illegal_argument_exception", "reason": f"Current token ({token}) not numeric"}
            try:
                number = float(v)  # numeric strings and, for integer types, fractions are coerced
            except ValueError:
                return {"type": "number_format_exception", "reason": f'For input string: "{v}"'}
            if not math.isfinite(number) or abs(number) >= LIMITS.get(ftype, math.inf):
                return {"type": "illegal_argument_exception", "reason": f"Value [{v}] is out of range for a {ftype}"}
        if ftype == "date" and (
            isinstance(v, (dict, bool))
            or isinstance(v, str)
            and "format" not in spec
            and not ISO_DATE.match(v)
            and not v.lstrip("-").isdigit()
        ):
            return {
                "type": "illegal_argument_exception",
                "reason": f"failed to parse date field [{v}] with format [strict_date_optional_time||epoch_millis]",
            }
        if ftype == "boolean" and not (isinstance(v, bool) or v in ("true", "false", "")):
            return {
                "type": "illegal_argument_exception",
                "reason": f"Failed to parse value [{v}] as only [true] or [false] are allowed.",
            }
    return None


class Index:
    """One single-shard index: `docs` is the realtime state, `visible` the state at the last refresh."""

    def __init__(self, name, settings=None, mappings=None):
        self.name, self.uuid = name, base64.urlsafe_b64encode(uuid.uuid4().bytes)[:22].decode()
        self.settings, self.mappings = settings or {}, mappings or {}
        self.docs, self.visible = {}, {}  # id -> {"_source", "_version", "_seq_no"}, replaced on write
        self.seq_no, self.versions = -1, {}  # versions outlive deletes, like ES's tombstones

    def refresh(self):
        self.visible = dict(self.docs)  # entries are never mutated, so a shallow copy is a snapshot

    def types(self):
        return {f: spec.get("type", "object") for f, spec in self.mappings.get("properties", {}).items()}

    def check(self, source, line, doc_id):
        """Refuse a document the mappings refuse, with ES's error and (roughly) its [line:column]."""
        strict = str(self.mappings.get("dynamic", "true")).lower() == "strict"
        for field, value in source.items():
            at = re.search(re.escape(json.dumps(field, ensure_ascii=False)) + r"\s*:\s*", line)
            col = at.end() + 1 if at else 1  # ES reports where its parser stood: the value's first character
            spec = self.mappings.get("properties", {}).get(field)
            if spec is None and strict:
                raise EsError(
                    400,
                    "strict_dynamic_mapping_exception",
                    f"[1:{col}] mapping set to strict, dynamic introduction of [{field}] within [_doc] is not allowed",
                )
            if spec is None or str(spec.get("enabled", True)).lower() == "false":
                continue  # unmapped under dynamic false, or a disabled object: kept in _source, not indexed
            ftype = spec.get("type", "object")
            if ftype in ("object", "nested") and any(not isinstance(v, dict) for v in flat(value)):
                raise EsError(
                    400,
                    "document_parsing_exception",
                    f"[1:{col}] object mapping for [{field}] tried "
                    f"to parse field [{field}] as object, but found a concrete value",
                )
            cause = rejection(ftype, spec, value, col)
            if cause:
                preview = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
                raise EsError(
                    400,
                    "document_parsing_exception",
                    f"[1:{col}] failed to parse field [{field}] of "
                    f"type [{ftype}] in document with id '{doc_id}'. Preview of field's value: "
                    f"'{preview}'",
                    caused_by=cause,
                )

    def write(self, op, doc_id, line):
        """One index, create or delete; returns (status, bulk item body)."""
        current, source = self.docs.get(doc_id), None
        if op == "create" and current:
            raise EsError(
                409,
                "version_conflict_engine_exception",
                f"[{doc_id}]: version conflict, document already exists (current version [{current['_version']}])",
                index_uuid=self.uuid,
                shard="0",
                index=self.name,
            )
        if op != "delete":
            try:
                source = json.loads(line or "")
            except ValueError:
                pass
            if not isinstance(source, dict):
                raise EsError(400, "document_parsing_exception", "[1:1] failed to parse: not a JSON object")
            doc_id = doc_id or base64.urlsafe_b64encode(uuid.uuid4().bytes)[:20].decode()  # ES's ids are 20 chars
            self.check(source, line, doc_id)
        self.seq_no += 1
        version = self.versions[doc_id] = self.versions.get(doc_id, 0) + 1
        if op == "delete":
            result, status = ("deleted", 200) if self.docs.pop(doc_id, None) else ("not_found", 404)
        else:
            result, status = ("updated", 200) if current else ("created", 201)
            self.docs[doc_id] = {"_source": source, "_version": version, "_seq_no": self.seq_no}
        return status, {
            "_index": self.name,
            "_id": doc_id,
            "_version": version,
            "result": result,
            "_shards": SHARDS,
            "_seq_no": self.seq_no,
            "_primary_term": 1,
        }


def values_of(field, doc_id, source):
    if field == "_id":
        return [doc_id]
    for part in field.split("."):
        source = source.get(part) if isinstance(source, dict) else None
    return flat(source)


def key(value, ftype=None):
    """Lucene's order for a value: numbers numerically, anything else by its UTF-8 bytes."""
    value = str(value).lower() if isinstance(value, bool) else value
    if ftype in NUMBERS or isinstance(value, (int, float)) and ftype not in TEXT:
        return (0, float(value))
    return (1, str(value).encode())


def matches(query, doc_id, source, types):
    if not isinstance(query, dict) or len(query) != 1:
        raise EsError(400, "parsing_exception", "[_na] query malformed, must start with start_object")
    ((kind, arg),) = query.items()
    if kind in ("match_all", "match_none"):
        return kind == "match_all"
    if kind == "bool":

        def clauses(name):
            return arg[name] if isinstance(arg.get(name), list) else [arg[name]] if name in arg else []

        must, should = clauses("must") + clauses("filter"), clauses("should")
        need = int(arg.get("minimum_should_match", 1 if should and not must else 0))
        hit = functools.partial(matches, doc_id=doc_id, source=source, types=types)
        return all(map(hit, must)) and not any(map(hit, clauses("must_not"))) and sum(map(hit, should)) >= need
    if kind == "ids":
        return doc_id in arg.get("values", [])
    if kind == "exists":
        return bool(values_of(arg["field"], doc_id, source))
    if kind not in ("term", "terms", "range"):
        raise EsError(400, "parsing_exception", f"unknown query [{kind}]", line=1, col=1)
    field, spec = next((k, v) for k, v in arg.items() if k != "boost")
    ftype = types.get(field)
    have = [key(v, ftype) for v in values_of(field, doc_id, source)]
    if kind != "range":
        wanted = spec if kind == "terms" else [spec["value"] if isinstance(spec, dict) else spec]
        return any(key(w, ftype) in have for w in wanted)
    tests = {"gt": lambda h, b: h > b, "gte": lambda h, b: h >= b, "lt": lambda h, b: h < b, "lte": lambda h, b: h <= b}
    return any(all(tests[op](h, key(bound, ftype)) for op, bound in spec.items() if op in tests) for h in have)


def compare(a, b, sorts):
    """Order two hits' sort values as ES does; missing values go last in either direction."""
    for x, y, (_, order, ftype) in zip(a, b, sorts):
        if x is None or y is None:
            c = (x is None) - (y is None)
        else:
            c = (key(x, ftype) > key(y, ftype)) - (key(x, ftype) < key(y, ftype))
            c = -c if order == "desc" else c
        if c:
            return c
    return 0


class Request:
    def __init__(self, method, target, headers, raw):
        url = urlsplit(target)
        self.method, self.path, self.headers, self.raw = method, url.path, headers, raw
        self.segments = [unquote(s) for s in url.path.split("/") if s]  # split first: ids may hold "%2F"
        self.query = dict(parse_qsl(url.query, keep_blank_values=True))

    def json(self):
        try:
            return json.loads(self.raw) if self.raw else None
        except ValueError as e:
            raise EsError(400, "x_content_parse_exception", f"[1:1] {e}") from None

    def flag(self, name):
        return self.query.get(name, "false") in ("true", "")  # ES reads a bare ?flag as true


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
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
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
        self._check_media_types(r)
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

    @staticmethod
    def _check_media_types(r):
        """ES 8 serves compatible-with=7 or 8, and Accept must agree with the Content-Type of a body."""
        headers = ["accept", "content-type"] if r.raw else ["accept"]
        found = [re.search(r"compatible-with=(\d+)", r.headers.get(h, "")) for h in headers]
        versions = {m.group(1) if m else None for m in found}
        if versions - {None, "7", "8"} or len(versions) > 1:
            raise EsError(
                400,
                "media_type_header_exception",
                f"Invalid media-type value on headers [{', '.join(h.title() for h in headers)}]",
                caused_by={
                    "type": "status_exception",
                    "reason": "A compatible version is required on both Content-Type and Accept headers if "
                    "either one has requested a compatible version and the compatible versions must match. "
                    + ", ".join(f"{h.title()}={r.headers.get(h)}" for h in headers),
                },
            )

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


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, so the client's connection pool is exercised too
    disable_nagle_algorithm = True  # headers and body are two writes: don't stall on delayed ACKs

    def _handle(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.headers.get("Content-Encoding") == "gzip":  # the client's http_compress=True
            raw = gzip.decompress(raw)
        headers = {k.lower(): v for k, v in self.headers.items()}
        self.server.standin.requests.append((self.command, self.path, headers))
        try:
            status, body, extra = self.server.standin.answer(Request(self.command, self.path, headers, raw))
        except Exception:  # a stand-in bug: answer like ES's generic 500, and leave a trace in the test log
            traceback.print_exc()
            status, body, extra = 500, EsError(500, "exception", "stand-in failure").body(), {}
        data = b"" if body is None or self.command == "HEAD" else json.dumps(body, ensure_ascii=False).encode()
        version = re.search(r"compatible-with=([78])\b", headers.get("accept", ""))
        self.send_response(status)
        self.send_header("X-Elastic-Product", "Elasticsearch")  # on every response, errors too, as ES does
        # ES answers in the compatible media type the client asked for (if it serves it), else in plain JSON.
        self.send_header(
            "Content-Type",
            f"application/vnd.elasticsearch+json;compatible-with={version[1]}" if version else "application/json",
        )
        for header, value in extra.items():
            self.send_header(header, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_HEAD = do_PUT = do_POST = do_DELETE = _handle

    def log_message(self, *args):
        pass  # tests assert on StandIn.requests; stderr noise would only bury real failures
