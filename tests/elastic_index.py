"""The Elasticsearch stand-in's model (tests/elastic_standin.py): its errors, an index with its mapping checks,
and how queries and sorts read documents."""

import base64
import functools
import json
import math
import re
import uuid

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
