"""The shared frontier's request payloads as JSON (scrapy-redis's SCHEDULER_SERIALIZER: a module with dumps/loads).

scrapy-redis pickles by default, so whoever can write to its Redis runs code on every worker that reads it. JSON
carries only data: a request's dict (Scrapy's ``Request.to_dict``) with its bytes (headers, body) as latin-1
text, which maps every byte to one character and back. ``loads`` refuses what would make a worker load code or
reach past the spider's own methods: a ``_class``, or a callback that is not a plain public name.

>>> request = {"url": "https://doi.org/10.1/a", "headers": {b"Accept": [b"text/html"]}, "body": b"\\xff\\x00",
...            "meta": {"visit": ("run", 1, 2)}, "callback": "parse_page"}
>>> loads(dumps(request)) == {**request, "meta": {"visit": ["run", 1, 2]}}  # a tuple comes back as a list
True
>>> loads(b"\\x80\\x04\\x95")
Traceback (most recent call last):
landing.core.sampling.payloads.PayloadError: not a JSON request payload (a pickle from an older version?)
"""

import json

VERSION = 1  # payloads carry it, so a payload of another format (a pickle, a later version) is refused by name


class PayloadError(ValueError):
    """A payload that is not a request this code wrote, or a request it cannot write as JSON."""


def dumps(request: dict) -> str:
    """The JSON text of a request dict; a PayloadError names what JSON cannot carry."""
    if "_class" in request:
        raise PayloadError(f"only plain scrapy.Request goes to the shared frontier, not {request['_class']}")
    encoded = {"landing": VERSION}
    for key, value in request.items():
        if key == "headers":
            value = {_text(k): [_text(v) for v in values] for k, values in value.items()}
        elif key == "body":
            value = _text(value)
        encoded[key] = value
    try:
        return json.dumps(encoded)
    except (TypeError, ValueError) as error:
        unsafe = [k for k, v in request.get("meta", {}).items() if not _json_safe(v)]
        raise PayloadError(f"a shared request must be JSON: {error} (meta keys {unsafe})") from None


def loads(payload: bytes | str) -> dict:
    """The request dict of a payload dumps wrote; a PayloadError for anything else."""
    try:
        found = json.loads(payload)
    except (UnicodeDecodeError, ValueError):
        raise PayloadError("not a JSON request payload (a pickle from an older version?)") from None
    if not isinstance(found, dict) or found.pop("landing", None) != VERSION:
        raise PayloadError(f"not a request payload of version {VERSION}")
    if "_class" in found:
        raise PayloadError("a payload naming a request class is refused: it would load code")
    for name in ("callback", "errback"):
        value = found.get(name)
        if value is not None and (not isinstance(value, str) or not value.isidentifier() or value.startswith("_")):
            raise PayloadError(f"{name} {value!r} is not a public method name")
    if not isinstance(found.get("url"), str):
        raise PayloadError("a request payload needs a url")
    if "headers" in found:
        found["headers"] = {_bytes(k): [_bytes(v) for v in values] for k, values in found["headers"].items()}
    if "body" in found:
        found["body"] = _bytes(found["body"])
    return found


def _text(value: bytes | str) -> str:
    return value.decode("latin-1") if isinstance(value, bytes) else value


def _bytes(value: str) -> bytes:
    return value.encode("latin-1")


def _json_safe(value) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True
