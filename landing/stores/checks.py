"""What the stores accept: document kinds and ids, blob keys and prefixes, JSON documents; and StoreError."""

import json
import re
import tempfile
from pathlib import Path

# Kinds may become index names (Elasticsearch wants them lower case, short, without punctuation).
_KIND = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")
# Elasticsearch rejects ids over 512 bytes and S3 keys over 1,024; enforced for every backend alike.
_MAX_ID_BYTES = 512
_MAX_KEY_BYTES = 1024
_SURROGATE = re.compile("[\ud800-\udfff]")
# Leaves room under the usual 255-byte file-name limit for the file store's temporary names.
_MAX_SEGMENT_BYTES = 200


class StoreError(ValueError):
    """A store URL, kind, id or key that cannot be used, or a store that cannot be opened."""


def describe(error: OSError) -> str:
    """A short reason for an OSError, naming the file; mkdir's "File exists" means a file is in the way."""
    if isinstance(error, FileExistsError):
        return f"not a directory: {error.filename}"
    return f"{error.strerror}: {error.filename}" if error.strerror and error.filename else str(error)


def unwritable(directory) -> str | None:
    """Why no file can be made in `directory` (created if missing), or None when one can: a real write, because
    permission bits do not stop root and a read-only mount stops everyone."""
    try:
        Path(directory).mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=directory):
            pass
    except FileExistsError:
        return "a file is in its place"
    except OSError as error:
        return error.strerror or str(error)
    return None


def check_kind(kind: str) -> None:
    """Raise StoreError unless `kind` is a short lower-case name such as `pid` or `snapshot`."""
    if not isinstance(kind, str) or not _KIND.match(kind):
        raise StoreError(f"bad document kind {kind!r}: expected a short lower-case name such as 'pid'")


def check_id(doc_id: str) -> None:
    """Raise StoreError unless `doc_id` is a non-empty string of at most 512 UTF-8 bytes."""
    if not isinstance(doc_id, str) or not doc_id:
        raise StoreError(f"bad document id {doc_id!r}: expected a non-empty string")
    if _SURROGATE.search(doc_id):
        raise StoreError(f"bad document id {doc_id[:40]!r}: a lone surrogate is no text a store can hold")
    if len(doc_id.encode("utf-8")) > _MAX_ID_BYTES:
        raise StoreError(f"bad document id {doc_id[:40]!r}...: longer than {_MAX_ID_BYTES} bytes")


def _segment_problem(segment: str) -> str | None:
    if not segment:
        return "empty segment"
    if segment.startswith("."):
        # Covers `.` and `..`, and keeps the file store's dot-named temporary files out of the key space.
        return f"segment {segment!r} starts with '.'"
    if any(ch == "\\" or ord(ch) < 32 or ord(ch) == 127 for ch in segment):
        return f"segment {segment!r} has a backslash or control character"
    if len(segment.encode("utf-8", "surrogatepass")) > _MAX_SEGMENT_BYTES:
        return f"segment longer than {_MAX_SEGMENT_BYTES} bytes"
    return None


def _key_problem(key: str) -> str | None:
    if key.startswith("/"):
        return "absolute key"
    problem = next(filter(None, map(_segment_problem, key.split("/"))), None)
    if problem is None and len(key.encode("utf-8", "surrogatepass")) > _MAX_KEY_BYTES:
        problem = f"longer than {_MAX_KEY_BYTES} bytes"
    return problem


def check_key(key: str) -> None:
    """Raise StoreError unless `key` is relative, `/`-separated, without empty, dot or oversized segments."""
    if not isinstance(key, str) or not key:
        raise StoreError(f"bad blob key {key!r}: expected a non-empty string")
    problem = _key_problem(key)
    if problem:
        raise StoreError(f"bad blob key {key!r}: {problem}")


def check_prefix(prefix: str) -> None:
    """Raise StoreError unless `prefix` is a key's start: whole valid segments, then any partial segment."""
    if not isinstance(prefix, str):
        raise StoreError(f"bad blob key prefix {prefix!r}: expected a string")
    folder = prefix.rpartition("/")[0]
    problem = _key_problem(folder or "/") if prefix.startswith("/") or folder else None
    if problem:
        raise StoreError(f"bad blob key prefix {prefix!r}: {problem}")


def encode(doc: dict) -> str:
    """JSON text of a document; NaN and infinities are refused because other backends cannot store them.

    A lone surrogate (an API's JSON may escape one, "\\ud800") becomes U+FFFD: no backend can store it as UTF-8,
    and SQLite refusing it at flush kept the whole buffer, and every document after it, unwritten."""
    if not isinstance(doc, dict):
        raise TypeError(f"a document is a dict, not {type(doc).__name__}")
    text = json.dumps(doc, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text
