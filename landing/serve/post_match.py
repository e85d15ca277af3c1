"""POST /match: a body of JSON lines, each answered as GET /match answers its input, in order, as NDJSON lines
written as they are ready (docs/service.md "The API"). One line's fault is its own error object, never the answer's.
"""

import asyncio
from collections import deque

from aiohttp import web

from landing.core.matching.events import event_line, unshaped
from landing.core.matching.input_lines import dumps, read_line
from landing.match.answering import MatcherClosed
from landing.serve.admission import chunks
from landing.serve.refusals import error, fault, log_refusal, unknown_fetch

NDJSON = "application/x-ndjson"


async def post_match(service, request):
    """POST /match: each JSON line of the body answered as a GET would answer it, in order, as NDJSON."""
    default = service._fetch(request.query.get("fetch"))
    if default is None:
        return error(400, unknown_fetch(request.query["fetch"]))
    shaping = (request.query.get("format", "flat"), request.query.get("subj"))
    refused = unshaped(*shaping)
    if refused is not None:
        return error(400, refused)
    limit = service.cfg.serve_max_body
    if (request.content_length or 0) > limit:
        return error(413, f"a body of {request.content_length:,} bytes, over {limit:,} (LANDING_SERVE_MAX_BODY)")
    body = bytearray()
    try:
        async for chunk in chunks(request.content, service.door.body):  # a chunked body has no length to refuse first
            body += chunk
            if len(body) > limit:
                return error(413, f"a body over {limit:,} bytes (LANDING_SERVE_MAX_BODY)")
    except TimeoutError:
        service.logger.info("refused a POST from %s: 408, its body stalled for %g s", request.remote, service.door.body)
        return error(408, f"the body stalled: no byte of it for {service.door.body:g} s")
    lines = [(n, line) for n, line in enumerate(bytes(body).split(b"\n"), 1) if line.strip()]
    if not lines:
        return error(400, 'give JSON lines: each a string, or {"q": ..., "fetch": ...}')
    response = web.StreamResponse(headers={"Content-Type": NDJSON})
    await response.prepare(request)
    window: deque = deque()  # answers started, in input order; at most serve_request_concurrency at once
    waiting = iter(lines)
    try:
        _start(service, window, waiting, default, shaping, request.remote or "")
        while window:
            ready = [await window[0]]
            window.popleft()
            while window and window[0].done():  # those after it already answered go out with it, in one write
                ready.append(window.popleft().result())
            _start(service, window, waiting, default, shaping, request.remote or "")
            await response.write(b"".join(dumps(found) + b"\n" for found in ready))
        await response.write_eof()
    except ConnectionError:  # the client went away: its answers still running are not wanted
        service.logger.debug("a POST /match client went away with %d answer(s) pending", len(window))
    finally:
        for pending in window:
            pending.cancel()
    return response


def _start(service, window: deque, waiting, default: str, shaping: tuple, peer: str) -> None:
    """Start the next lines' answers, up to serve_request_concurrency in the window (`peer`: whose they are)."""
    while len(window) < service.cfg.serve_request_concurrency:
        following = next(waiting, None)
        if following is None:
            return
        window.append(asyncio.ensure_future(_line(service, *following, default, shaping, peer)))


async def _line(service, number: int, line: bytes, default: str, shaping: tuple, peer: str = "") -> dict:
    """A POST line's result, or its error object (with the line's number); shaping: the request's format and
    citing page, which a line's own `format` and `subj` replace. Whatever the line, it never fails the answer."""
    read = read_line(line, service.cfg.serve_max_input, default, *shaping)
    if isinstance(read, dict):
        log_refusal(service.logger, f"line {number} of a POST /match", "", read["status"], read["error"])
        return {"error": f"line {number}: {read['error']}", "status": read["status"], "line": number}
    try:
        result = await service.matcher.match(read.text, read.fetch, peer)
    except MatcherClosed:
        return {"error": f"line {number}: the service is stopping", "status": 503, "line": number}
    except Exception as failed:  # a fault of the service's: this line's error, every other line still answered
        service.logger.error("POST /match line %d failed: %s", number, fault(failed))
        why = f"line {number}: the service failed: {type(failed).__name__}"
        return {"error": why, "status": 500, "line": number}
    return event_line(result, read.subj) if read.format == "event" else result
