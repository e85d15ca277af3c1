"""Inputs as bytes, read the same way on every path (GET, POST lines, `scrapy match -i`, a stream's entries), and
answers written as JSON that always encodes (docs/service.md "Bytes and lines").

The reading is UTF-8, each byte that is not a part of UTF-8 read as U+FFFD, a byte-order mark at the start dropped;
never an encoding guessed from a byte-order mark (as `json.loads` does with bytes). A POST line that cannot be read
into a question gets its own error result, so the rest of the answer never depends on it.
"""

import json
import re
from dataclasses import dataclass

import orjson

from landing.core.matching.cascade import FETCHES
from landing.core.matching.events import unshaped

BOM = "\ufeff"
# A code point UTF-8 cannot carry: half of a UTF-16 pair, alone (a JSON string may still spell one, "\ud800").
_LONE = re.compile("[\ud800-\udfff]")
# orjson's output, written by the standard library: for what orjson refuses.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class StreamInput:
    """One input's question, whichever path it came by (named for the stream's entries, where it was first): the
    text to match, how much may be fetched for it, the result's format and, for Events, the citing page (subj)."""

    text: str
    fetch: str = "known"
    format: str = "flat"
    subj: str | None = None


def error(message: str, status: int) -> dict:
    """An error result, shaped as the service's errors are: the message and the HTTP status it stands for."""
    return {"error": message, "status": status}


def text_of(raw: bytes) -> str:
    """The text of an input's bytes: UTF-8, a bad byte read as U+FFFD, a byte-order mark at the start dropped.

    >>> text_of(b"10.1234/x"), text_of(b"\\xef\\xbb\\xbf10.1234/x"), text_of(b"\\xff10.1234/x")
    ('10.1234/x', '10.1234/x', '\\ufffd10.1234/x')
    >>> text_of(b"\\xff\\xfe\\xfd"), text_of("caf\\u00e9".encode())
    ('\\ufffd\\ufffd\\ufffd', 'café')
    """
    return raw.decode("utf-8", "replace").removeprefix(BOM)


def utf8(text: str) -> bytes:
    """JSON text as UTF-8 bytes, each lone surrogate (which UTF-8 cannot carry) written as its JSON escape; the text
    is JSON, so a surrogate can only be inside a string, where the escape means the same.

    >>> utf8('{"input": "caf\\u00e9"}'), utf8('{"input": "\\ud800x"}')
    (b'{"input": "caf\\xc3\\xa9"}', b'{"input": "\\\\ud800x"}')
    """
    try:
        return text.encode()
    except UnicodeEncodeError:  # rare: paid only by the text that has one
        return _LONE.sub(lambda found: f"\\u{ord(found.group()):04x}", text).encode()


def dumps(value) -> bytes:
    """A JSON value as every answer is written (`scrapy match`, the service, the streams): compact, non-ASCII as it is,
    in UTF-8 bytes that always encode.

    >>> dumps({"input": "café", "doi": None, "checks": ()}), dumps({"input": "\\ud800"})
    (b'{"input":"caf\\xc3\\xa9","doi":null,"checks":[]}', b'{"input":"\\\\ud800"}')
    """
    try:
        return orjson.dumps(value)
    except TypeError:  # a lone surrogate (orjson's JSONEncodeError), which UTF-8 cannot carry: the same JSON, escaped
        return utf8(_ENCODER.encode(value))


def read_line(raw: bytes, max_input: int, fetch: str = "known", form: str = "flat", subj=None) -> StreamInput | dict:
    """The question a POST line asks (a JSON string, or an object with q and optionally fetch, format, subj, which
    replace the request's `fetch`, `form` and `subj`), or the error result it gets instead.

    >>> read_line(b'"10.1234/x"', 100), read_line(b'{"q": "10.1234/x", "fetch": "none"}', 100, "all").fetch
    (StreamInput(text='10.1234/x', fetch='known', format='flat', subj=None), 'none')
    >>> read_line(b"\\xff\\xfe\\xfd", 100)
    {'error': 'not JSON (Expecting value: line 1 column 1 (char 0))', 'status': 400}
    >>> read_line(b"[" * 3000 + b"]" * 3000, 100)
    {'error': 'not JSON (nested too deep)', 'status': 400}
    >>> read_line(b'"\\\\ud800"', 100)
    {'error': 'q holds a lone surrogate (U+D800), which is not text', 'status': 400}
    >>> read_line(b"42", 100), read_line(b'{"q": "x" , "fetch": "some"}', 100)["error"]
    ({'error': 'give a string, or {"q": string}', 'status': 400}, "fetch='some': use none, known, all")
    >>> read_line(b'"' + b"x" * 101 + b'"', 100)
    {'error': '101 characters, over 100 (LANDING_SERVE_MAX_INPUT)', 'status': 413}
    """
    try:
        value = json.loads(text_of(raw))
    except RecursionError:  # not a ValueError: the parser's stack, not the text, gave out
        return error("not JSON (nested too deep)", 400)
    except ValueError as bad:
        return error(f"not JSON ({bad})", 400)
    if isinstance(value, dict):
        q, fetch = value.get("q"), value.get("fetch", fetch)
        form, subj = value.get("format", form), value.get("subj", subj)
    else:
        q = value
    if not isinstance(q, str) or not q.strip():
        return error('give a string, or {"q": string}', 400)
    if fetch not in FETCHES:
        return error(f"fetch={fetch!r}: use {', '.join(FETCHES)}", 400)
    refused = unshaped(form, subj)
    if refused is not None:
        return error(refused, 400)
    for name, text in (("q", q), ("subj", subj)):
        lone = _LONE.search(text) if isinstance(text, str) else None
        if lone is not None:
            return error(f"{name} holds a lone surrogate (U+{ord(lone.group()):04X}), which is not text", 400)
    if len(q) > max_input:
        return error(f"{len(q):,} characters, over {max_input:,} (LANDING_SERVE_MAX_INPUT)", 413)
    return StreamInput(q, fetch, form, subj)
