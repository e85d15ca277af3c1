"""Refused requests in the service's log: one line each, saying the status and the reason, never a traceback
(docs/service.md "Logs"): a client's malformed request is the client's, and a traceback per request is a log any
client can fill."""

import json
import sys
import traceback

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.web_protocol import RequestPayloadError

from landing.core.matching.cascade import FETCHES

# Statuses logged as refusals: a request or line the service cannot read or answer as asked. A busy client's 429 and
# the 503s of a start or a drain say nothing wrong of the request, and are counted in /metrics only.
REFUSED = (400, 404, 405, 413)
REASON_CHARS = 200  # of a reason, at most: a line's own text can be long (a 100,000-character fetch=...)


def reason_of(text: str) -> str:
    """A reason as one log line: its first line, without a closing colon, cut at REASON_CHARS.

    >>> reason_of("Invalid header token:\\n\\n  b'no colon here'\\n      ^"), len(reason_of("x" * 300))
    ('Invalid header token', 200)
    """
    first = text.strip().partition("\n")[0].rstrip(":")
    return first if len(first) <= REASON_CHARS else first[: REASON_CHARS - 1] + "…"


def fault(failed: BaseException) -> str:
    """A fault of the service's in one line: the exception, and where it was raised.

    >>> try:
    ...     {}["q"]
    ... except KeyError as failed:
    ...     fault(failed).split(" (at ")[0]
    "KeyError: 'q'"
    """
    where = traceback.extract_tb(failed.__traceback__)[-1:] if failed.__traceback__ else ()
    at = "".join(f" (at {frame.filename}:{frame.lineno} in {frame.name})" for frame in where)
    return f"{type(failed).__name__}: {reason_of(str(failed))}{at}"


def body_refusal(failed: RequestPayloadError) -> str:
    """Why aiohttp could not read a request's body (its RequestPayloadError wraps its parser's error as text).

    >>> body_refusal(RequestPayloadError("400, message:\\n  Can not decode content-encoding: gzip"))
    'Can not decode content-encoding: gzip'
    """
    cause = failed.__cause__
    if isinstance(cause, HttpProcessingError) and cause.message:
        return reason_of(cause.message)
    text = str(failed)
    return reason_of(text.partition("message:")[2] or text)


def log_refusal(logger, what: str, peer: str, status: int, reason: str) -> None:
    """One line for a refused request (`what`: its method and path, or a POST line)."""
    logger.info("refused %s%s: %d %s", what, f" from {peer}" if peer else "", status, reason_of(reason))


def error_message(body: bytes) -> str:
    """The message of one of the service's JSON error bodies.

    >>> error_message(b'{"error": "give q", "status": 400}'), error_message(b"not JSON")
    ('give q', 'not JSON')
    """
    try:
        return str(json.loads(body)["error"])
    except (ValueError, KeyError, TypeError):
        return body.decode("utf-8", "replace")


class RefusalLog:
    """The logger aiohttp's request handler is given (AppRunner's `logger`): where it logs "Error handling request"
    with a traceback (a head its parser refuses, a handler's fault), one line instead; its other messages as they are,
    without their tracebacks."""

    def __init__(self, logger):
        self.logger = logger

    def __getattr__(self, name):  # any other logger method aiohttp may call, as the service's logger has it
        return getattr(self.logger, name)

    def exception(self, message, *args, exc_info=True, **_):
        self._line(message, args, exc_info)

    def debug(self, message, *args, exc_info=None, **_):
        # aiohttp says "Error handling request" at debug level for a first request that is no HTTP (a TLS hello).
        if exc_info is not None and str(message).startswith("Error handling request"):
            self._line(message, args, exc_info)
        else:
            self.logger.debug(message, *args)

    def _line(self, message, args, exc_info) -> None:
        failed = sys.exc_info()[1] if exc_info is True else exc_info
        peer = args[0] if args and str(message).startswith("Error handling request") else ""
        if isinstance(failed, RequestPayloadError):
            # aiohttp reading the rest of a body the handler refused already, or did not need: said, and answered, then
            self.logger.debug("%s: %s", message % args if args else message, body_refusal(failed))
        elif isinstance(failed, HttpProcessingError):
            log_refusal(
                self.logger, "a request", str(peer), failed.code or 400, failed.message or type(failed).__name__
            )
        elif isinstance(failed, BaseException):
            self.logger.error("%s: %s", message % args if args else message, fault(failed))
        else:
            self.logger.error(message, *args)


def error(status: int, message: str, **extra) -> web.Response:
    """A JSON error: {"error": message, "status": status}."""
    return web.json_response({"error": message, "status": status, **extra}, status=status)


def unknown_fetch(asked: str) -> str:
    """The error of a fetch policy not in FETCHES."""
    return f"fetch={asked!r}: use {', '.join(FETCHES)}"
