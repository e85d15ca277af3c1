"""The Elasticsearch document store (`LANDING_DOCS=http(s)://host:9200`): one index per kind, `<prefix>-<kind>`.

The official client, 8.x: it sends `compatible-with=8`, which 8.x servers and 9.x servers both accept (a 9.x
client's `compatible-with=9` is refused by 8.x servers). Each index is created on first write with explicit
mappings; writes go through `helpers.streaming_bulk`; scans page with `search_after` on the id field.
"""

import json
import logging
import re
from contextlib import contextmanager
from urllib.parse import urlsplit, urlunsplit

from elasticsearch import ApiError, Elasticsearch, NotFoundError, TransportError, helpers

from landing import settings as defaults
from landing import tuning
from landing.core.pages.documents import ANALYSIS_KEYS, PID_KEYS, SNAPSHOT_KEYS
from landing.core.publishing.report_keys import REPORT_KEYS
from landing.stores.base import DocStore
from landing.stores.checks import StoreError

logger = logging.getLogger(__name__)

# The document id, kept in the source too: Elasticsearch 8 refuses to sort on _id, and scans sort on it.
ID_FIELD = "landing/id"
# Statuses worth retrying with backoff: rejected for load (429) or a cluster that is briefly unwell.
RETRY_STATUSES = (429, 500, 502, 503, 504)

_KEYWORD = {"type": "keyword", "ignore_above": 8191}  # 8191 UTF-8 characters fit Lucene's 32,766-byte term limit
_DATE = {"type": "date", "format": "strict_date_optional_time||epoch_millis"}
_STORED_ONLY = {"type": "object", "enabled": False}  # kept in _source, never parsed or indexed
_TYPES = {
    "pid/timestamp": _DATE,
    "snapshot/timestamp": _DATE,
    "analysis/timestamp": _DATE,
    "snapshot/status": {"type": "integer"},
    "snapshot/content-length": {"type": "long"},
    "snapshot/urls": _STORED_ONLY,  # stored only: indexes made before snapshot/hops hold hop objects here
    "snapshot/hops": _STORED_ONLY,
    "analysis/meta-tags": _STORED_ONLY,
    "report/dois": {"type": "long"},
    "report/errors": _STORED_ONLY,
    "report/correctness": _STORED_ONLY,
}


def mappings() -> dict:
    """Every index's mappings: the known keys typed, anything else kept in _source but not indexed."""
    keys = (ID_FIELD, *PID_KEYS, *SNAPSHOT_KEYS, *ANALYSIS_KEYS, *REPORT_KEYS)  # not in _TYPES: keywords
    # dynamic false: a document with a key nobody mapped (or a mixed-type list) is stored, not refused.
    return {"dynamic": False, "properties": {key: _TYPES.get(key, _KEYWORD) for key in keys}}


def elastic_options(config) -> dict:
    """The store's options from a landing.config.Config's LANDING_DOCS_* (the secrets there from the settings or the
    environment)."""
    return {
        "index_prefix": config.docs_index_prefix,
        "api_key": config.docs_api_key,
        "username": config.docs_username,
        "password": config.docs_password,
        "ca_certs": config.docs_ca_certs,
        "retries": config.docs_retries,
    }


def check_prefix(prefix: str) -> None:
    """Raise StoreError unless `prefix-<kind>` makes a valid index name."""
    bad = set('\\/*?"<>|, #:') & set(prefix)
    if not prefix or prefix != prefix.lower() or prefix[0] in "-_+." or bad or len(prefix) > 200:
        raise StoreError(
            f"bad index prefix {prefix!r}: lower case, at most 200 characters, not starting "
            'with - _ + or ., and none of \\ / * ? " < > | , # : or space'
        )


# The system's words for why a connection failed, at the bottom of the transport's nested errors.
_CAUSE = re.compile(r"\[Errno -?\d+\] ([^)'\"]+)")


def _describe(error: Exception) -> str:
    """The cause of a failed request in a few words: its HTTP status and reason, or why no connection was made.

    >>> _describe(ConnectionError("NewConnectionError(...: Failed to establish a new connection: [Errno 111] Connection refused))"))
    'Connection refused'
    """
    if isinstance(error, ApiError):
        info = error.body.get("error") if isinstance(error.body, dict) else None
        reason = info.get("reason") if isinstance(info, dict) else None
        return f"HTTP {error.meta.status} {reason or error.message}"
    cause = _CAUSE.search(str(error))
    return cause.group(1).strip() if cause else f"{type(error).__name__}: {error}"


@contextmanager
def _quiet_transport():
    # The client logs each retry of an unreachable cluster with its traceback (9 of them, 186 lines, before the
    # one line that says why): at open, the StoreError says it instead.
    transport = logging.getLogger("elastic_transport")
    level = transport.level
    transport.setLevel(logging.ERROR)
    try:
        yield
    finally:
        transport.setLevel(level)


def _redacted(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


class ElasticDocStore(DocStore):
    """Documents of kind K in the index `<index_prefix>-K`, under their own ids."""

    def __init__(
        self,
        url: str,
        *,
        index_prefix: str = defaults.LANDING_DOCS_INDEX_PREFIX,
        api_key: str | None = None,
        username: str | None = None,
        password: str | None = None,
        ca_certs: str | None = None,
        retries: int = tuning.DOCS_RETRIES,
        backoff: float = 1.0,
        timeout: float = 30.0,
        client=None,
        **options,
    ):
        super().__init__(**options)
        check_prefix(index_prefix)
        if retries < 0:
            raise StoreError(f"retries={retries}: must be at least 0")
        parts = urlsplit(url)
        if parts.username and not username:
            username, password = parts.username, parts.password or ""
        self.url, self.index_prefix, self.retries, self.backoff = _redacted(url), index_prefix, retries, backoff
        self._created: set[str] = set()
        self.client = client or Elasticsearch(
            self.url,
            api_key=api_key,
            basic_auth=(username, password or "") if username else None,
            ca_certs=ca_certs,
            request_timeout=timeout,
            # The transport retries connection failures and these statuses at once, on another node if any;
            # streaming_bulk adds backoff for bulk writes, and the buffer outlives both (DocStore).
            max_retries=3,
            retry_on_status=RETRY_STATUSES,
            retry_on_timeout=True,
        )
        try:
            with _quiet_transport():
                self.version = self.client.info()["version"]["number"]
        except (ApiError, TransportError) as error:
            self.client.close()
            raise StoreError(f"cannot use Elasticsearch at {self.url}: {_describe(error)}") from None

    def __repr__(self):
        return f"ElasticDocStore({self.url!r}, index_prefix={self.index_prefix!r})"

    def index(self, kind: str) -> str:
        """The index holding documents of `kind`."""
        return f"{self.index_prefix}-{kind}"

    def _ensure_index(self, kind: str) -> None:
        if kind in self._created:
            return
        try:
            self.client.indices.create(index=self.index(kind), mappings=mappings())
        except ApiError as error:
            if error.meta.status != 400 or "resource_already_exists" not in str(error.message):
                raise
        self._created.add(kind)

    def _actions(self, rows):
        for kind, doc_id, text in rows:
            if f'"{ID_FIELD}"' in text and ID_FIELD in json.loads(text):
                raise StoreError(f"document {doc_id!r}: the key {ID_FIELD!r} is the Elasticsearch store's own")
            # The id goes in as the first key of the JSON text as it is, rather than decoding and re-encoding.
            id_pair = f"{json.dumps(ID_FIELD)}:{json.dumps(doc_id, ensure_ascii=False)}"
            source = "{" + id_pair + ("}" if text == "{}" else "," + text[1:])
            yield {"_op_type": "index", "_index": self.index(kind), "_id": doc_id, "_source": source}

    def _bulk(self, actions, count: int, deleting: bool = False) -> None:
        """Send bulk actions with streaming_bulk's retries; StoreError naming the first item refused (deleting: a 404,
        the document or its index missing, is no refusal)."""
        refused = []
        try:
            results = helpers.streaming_bulk(
                self.client,
                actions,
                chunk_size=self.batch_docs,
                raise_on_error=False,
                max_retries=self.retries,
                initial_backoff=self.backoff,
                max_backoff=30 * self.backoff,
                retry_on_status=RETRY_STATUSES,
            )
            for ok, result in results:
                item = next(iter(result.values())) if len(result) == 1 else result
                if not ok and not (deleting and item.get("status") == 404):
                    refused.append(item)
        except (ApiError, TransportError) as error:
            doing = "delete {} documents from" if deleting else "write {} documents to"
            raise StoreError(f"cannot {doing.format(count)} Elasticsearch at {self.url}: {_describe(error)}") from None
        if refused:
            first = refused[0]
            reason = (
                (first.get("error") or {}).get("reason") if isinstance(first.get("error"), dict) else first.get("error")
            )
            verb = "refused to delete" if deleting else "refused"
            raise StoreError(
                f"Elasticsearch at {self.url} {verb} {len(refused)} of {count} documents; the first, "
                f"{first.get('_id')!r} in {first.get('_index')}: HTTP {first.get('status')} {reason}"
            )

    def _write(self, rows):
        try:
            for kind in sorted({kind for kind, _, _ in rows}):
                self._ensure_index(kind)
        except (ApiError, TransportError) as error:
            raise StoreError(
                f"cannot write {len(rows)} documents to Elasticsearch at {self.url}: {_describe(error)}"
            ) from None
        self._bulk(self._actions(rows), len(rows))

    def _delete(self, kind, ids):
        actions = ({"_op_type": "delete", "_index": self.index(kind), "_id": doc_id} for doc_id in ids)
        self._bulk(actions, len(ids), deleting=True)

    def _call(self, what: str, call, *args, **kwargs):
        try:
            return call(*args, **kwargs)
        except NotFoundError:
            return None
        except (ApiError, TransportError) as error:
            raise StoreError(f"cannot {what} at Elasticsearch {self.url}: {_describe(error)}") from None

    def _read(self, kind, doc_id):
        found = self._call("read", self.client.get, index=self.index(kind), id=doc_id)
        if not found or not found.get("found"):
            return None
        source = found["_source"]
        source.pop(ID_FIELD, None)
        return source

    def _refresh(self, kind):
        # Searches see a write only after a refresh; reads right after writes are the contract here.
        self._call("refresh", self.client.indices.refresh, index=self.index(kind), ignore_unavailable=True)

    def _count(self, kind):
        self._refresh(kind)
        answer = self._call("count", self.client.count, index=self.index(kind), ignore_unavailable=True)
        return answer["count"] if answer else 0

    def _chunk(self, kind, after, limit, before=None):
        if not after or before is not None:
            self._refresh(kind)
        page = {"search_after": [after]} if after else {}
        query = {"range": {ID_FIELD: {"lt": before}}} if before is not None else {"match_all": {}}
        answer = self._call(
            "scan",
            self.client.search,
            index=self.index(kind),
            ignore_unavailable=True,
            size=limit,
            sort=[{ID_FIELD: "asc"}],
            query=query,
            track_total_hits=False,
            **page,
        )
        rows = []
        for hit in (answer or {}).get("hits", {}).get("hits", []):
            source = hit["_source"]
            rows.append((source.pop(ID_FIELD), source))
        return rows

    def _delete_kind(self, kind):
        self._call("delete an index", self.client.indices.delete, index=self.index(kind), ignore_unavailable=True)
        self._created.discard(kind)

    def _release(self):
        self.client.close()
