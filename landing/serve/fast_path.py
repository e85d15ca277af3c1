"""GET /match without aiohttp's per-request machinery (docs/service.md "Why aiohttp, and a fast path").

Every connection starts as a `FastConnection`, which reads request heads with httptools (llhttp, the parser uvicorn
uses). A plain `GET /match` (origin form, HTTP/1.1, no body) is answered here. Any other request, or a head llhttp
refuses, hands the connection, from that request's first byte, to aiohttp's RequestHandler, which answers it and every
later request on the connection exactly as it does without this path. A head past the bounds below is refused here
(414, 431), whatever its request, and a connection past its phase's time closed (landing.serve.admission).
"""

import asyncio
import time
from email.utils import formatdate

import httptools

# What a request of the API needs of a head, and all a connection's first head may take here: a request target of
# 8,190 bytes (aiohttp's max_line_size, which the service keeps), fields of 4,096 and 32 of them (a client's and a
# proxy's headers), 16 KiB in all; past one, 414 or 431. aiohttp reads later heads with the same line, field and
# count limits (its refusal is a 400), so that no head holds more than a few hundred kilobytes.
HEAD_LIMIT = 16384
LINE_LIMIT, FIELD_LIMIT, HEADERS_LIMIT = 8190, 4096, 32
# Bytes a connection may buffer while its request is being answered (a client pipelining) before reading pauses.
BUFFER_LIMIT = 1 << 16
# Pipelined requests a connection has answered at once, in one turn of the loop, before the other connections get
# theirs: a buffer of pipelined GETs holds hundreds, which would keep every other client waiting while they are answered.
AT_ONCE = 16
# A connection with no request under way is closed after this long, unless told another time (the service passes
# tuning.SERVE_IDLE_SECONDS): it holds a socket and a buffer.
IDLE_SECONDS = 75.0
REASONS = {200: "OK", 400: "Bad Request", 413: "Payload Too Large", 414: "URI Too Long", 429: "Too Many Requests"}
REASONS |= {431: "Request Header Fields Too Large", 500: "Internal Server Error", 503: "Service Unavailable"}
REFUSED = b'{"error": "too many connections: try again later", "status": 503}'
BODYLESS = (b"content-length", b"transfer-encoding")


def is_fast(method: bytes, version: str, target: bytes, body: bool, upgrade: bool) -> bool:
    """Whether a request head is one this path answers: a GET /match, HTTP/1.1, with no body (nor anything else odd:
    `body`) and no upgrade.

    >>> is_fast(b"GET", "1.1", b"/match?q=10.1/x", False, False), is_fast(b"GET", "1.1", b"/match", False, False)
    (True, True)
    >>> is_fast(b"HEAD", "1.1", b"/match?q=x", False, False), is_fast(b"GET", "1.1", b"/matchx", False, False)
    (False, False)
    >>> is_fast(b"GET", "1.0", b"/match?q=x", False, False), is_fast(b"GET", "1.1", b"/match?q=x", True, False)
    (False, False)
    """
    if method != b"GET" or version != "1.1" or body or upgrade:
        return False
    return target == b"/match" or target.startswith(b"/match?")


class _Date:
    """The Date header's value, formatted once a second."""

    second, value = -1, b""

    @classmethod
    def now(cls) -> bytes:
        second = int(time.time())
        if second != cls.second:
            cls.second, cls.value = second, formatdate(second, usegmt=True).encode()
        return cls.value


def response(status: int, body: bytes, close: bool) -> bytes:
    """An HTTP/1.1 response carrying a JSON body.

    >>> response(200, b"{}", False).split(b"\\r\\n")[0], response(503, b"{}", True).count(b"Connection: close")
    (b'HTTP/1.1 200 OK', 1)
    """
    head = (
        b"HTTP/1.1 %d %s\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: %d\r\nDate: %s\r\n%s\r\n"
        % (status, REASONS[status].encode(), len(body), _Date.now(), b"Connection: close\r\n" if close else b"")
    )
    return head + body


class FastConnection(asyncio.Protocol):
    """One connection: its GET /match requests answered in order, one at a time (as aiohttp answers a pipelined
    connection), by `answer(target, peer)` -> (status, JSON body), or at once by `now(target, peer)` when it can (None:
    it cannot, `answer` does); `handover()` makes the aiohttp RequestHandler that takes the connection over;
    `connections`: the set of open fast connections this one joins while it is one; `door`: the
    landing.serve.admission.Admission that counts it in (None: no cap, no head time)."""

    def __init__(self, answer, handover, connections: set, idle: float = IDLE_SECONDS, door=None, now=None):
        self.answer, self.handover, self.connections, self.idle = answer, handover, connections, idle
        self.door, self.now = door, now
        self.began = 0.0  # when the head being read began to come
        self.oversize = None  # (status, why) of a head past the bounds
        self.count = 0  # header fields in the head being read
        self.transport = None
        self.buffer = bytearray()  # bytes from the first byte of the request being read
        self.fed = 0  # of which the parser has read this many
        self.url = bytearray()
        self.body = self.head = self.complete = False
        self.headers: set = set()  # the field names of the head being read, lower case
        self.keep = True
        self.busy = None  # the task answering a request
        self.later = None  # the turn of the loop that reads on, past AT_ONCE answers given at once
        self.paused = self.blocked = self.gone = False
        self.writable = True
        self.timer = None
        self.last = 0.0
        self.loop = None  # the running loop, read once: asyncio.get_running_loop() costs a getpid() a call

    def connection_made(self, transport):
        self.transport = transport
        peer = transport.get_extra_info("peername")
        self.peer = peer[0] if peer else ""  # what aiohttp's request.remote says, the per-client limit's key
        if self.door is not None and not self.door.admit(transport, self.peer):
            self.transport = None  # refused: nothing more of it is read, and connection_lost has nothing to do
            transport.write(response(503, REFUSED, True))
            transport.close()
            return
        self.parser = httptools.HttpRequestParser(self)
        self.connections.add(self)
        self.loop = loop = asyncio.get_running_loop()
        self.last = loop.time()
        self.timer = loop.call_later(self._every(), self._idle)

    def connection_lost(self, exc):
        # An answer under way is not wanted any more: cancelled, as aiohttp cancels the handlers of a client gone, its
        # page slot and questions freed.
        self.gone = True
        if self.transport is not None and self.door is not None:
            self.door.release(self.transport)
        self._leave()
        if self.busy is not None:
            self.busy.cancel()
        if self.later is not None:
            self.later.cancel()

    def _leave(self):
        self.connections.discard(self)
        if self.timer is not None:
            self.timer.cancel()

    def pause_writing(self):
        self.writable = False

    def resume_writing(self):
        self.writable = True
        if self.blocked:
            self.blocked = False
            self._advance()

    # httptools' callbacks
    def on_message_begin(self):
        self.url.clear()
        self.body = self.head = self.complete = False
        self.headers.clear()
        self.count = 0

    def on_url(self, url: bytes):
        self.url += url

    def on_header(self, name: bytes, value: bytes):
        name = name.lower()
        self.count += 1
        if len(name) > FIELD_LIMIT or len(value) > FIELD_LIMIT:
            self.oversize = self.oversize or (431, f"a header field over {FIELD_LIMIT:,} bytes")
        elif self.count > HEADERS_LIMIT:
            self.oversize = self.oversize or (431, f"over {HEADERS_LIMIT} header fields")
        # A body, a field given twice (aiohttp refuses some, such as two Hosts) or a NUL in a value (aiohttp refuses
        # it, llhttp lets it by): not this path's to answer.
        if name in BODYLESS or name in self.headers:
            self.body = True
        elif b"\x00" in value:
            self.body = True
        self.headers.add(name)

    def on_headers_complete(self):
        self.head = True
        self.keep = self.parser.should_keep_alive()  # llhttp says it right here, not once the message is done

    def on_message_complete(self):
        self.complete = True

    def data_received(self, data: bytes):
        if self.transport is None:
            return  # refused, or handed over: bytes still on their way
        if not self.buffer:
            self.began = self.loop.time()
        self.buffer += data
        if self.busy is None and not self.blocked and self.later is None:
            self._advance()
        elif len(self.buffer) > BUFFER_LIMIT and not self.paused:
            self.paused = True
            self.transport.pause_reading()

    def _advance(self):
        """Read the buffer up to the next complete request and start its answer, or hand the connection over."""
        self.later = None
        answered = 0
        while self.fed < len(self.buffer):
            if answered == AT_ONCE:  # the rest in a later turn of the loop, after the other connections'
                self.later = self.loop.call_soon(self._advance)
                return
            # A GET without a body ends with its head's blank line: fed up to there, the parser's end of a request is
            # a known offset, and the buffer from it on is the next request, whole, for aiohttp if need be.
            end = self.buffer.find(b"\r\n\r\n", max(0, self.fed - 3))
            end = len(self.buffer) if end < 0 else end + 4
            try:
                self.parser.feed_data(self.buffer[self.fed : end])
            except (httptools.HttpParserError, httptools.HttpParserUpgrade):
                return self._hand_over()  # aiohttp reads the same bytes and answers as it would have
            self.fed = end
            if len(self.url) > LINE_LIMIT:
                self.oversize = self.oversize or (414, f"a request target over {LINE_LIMIT:,} bytes")
            if self.oversize is not None:
                return self._refuse(*self.oversize)
            if self.head:
                version = self.parser.get_http_version()
                upgrade = self.parser.should_upgrade()
                # HTTP/1.1 without a Host: aiohttp's 400.
                odd = self.body or b"host" not in self.headers
                target = bytes(self.url)
                if not self.complete or not is_fast(self.parser.get_method(), version, target, odd, upgrade):
                    return self._hand_over()
                keep = self.keep
                del self.buffer[:end]
                self.began = self.loop.time()  # the next head, if any of it came already
                self.fed = 0
                self.head = self.complete = False
                # Most answers need no turn of the loop (a result, or every answer its cascade asks for, held here): a
                # Task and its coroutines would cost more than the answer.
                found = self.now(target, self.peer) if self.now is not None else None
                if found is None:
                    self.busy = asyncio.ensure_future(self._respond(target, keep))
                    return
                if not self._sent(found, keep):
                    return
                answered += 1
        if len(self.buffer) > HEAD_LIMIT:
            self._refuse(431, f"a request head over {HEAD_LIMIT:,} bytes")
        elif self.paused:
            self.paused = False
            self.transport.resume_reading()

    async def _respond(self, target: bytes, keep: bool):
        try:
            found = await self.answer(target, self.peer)
        finally:
            self.busy = None
        if self._sent(found, keep):
            self._advance()

    def _sent(self, found: tuple[int, bytes], keep: bool) -> bool:
        """Write an answer (status, body); whether the connection's next request may be read now."""
        if self.gone or self.transport.is_closing():
            return False
        self.transport.write(response(*found, not keep))
        if not keep:
            self.transport.close()
            return False
        self.last = self.loop.time()
        if not self.writable:  # the client is not reading its answers: read no more of its requests meanwhile
            self.blocked = True
            return False
        return True

    def _refuse(self, status: int, why: str):
        """Answer a head past the bounds with `status` and close: its bytes are not kept, nor read further."""
        if self.door is not None:
            self.door.refused_head(self.peer, status, why)
        self.transport.write(response(status, b'{"error": "%s", "status": %d}' % (why.encode(), status), True))
        self.close()
        self.buffer.clear()
        self.fed = 0

    def _hand_over(self):
        handler = self.handover()
        self._leave()
        transport, self.transport = self.transport, None
        transport.set_protocol(handler)
        handler.connection_made(transport)
        if not self.writable:
            handler.pause_writing()
        if self.paused:
            transport.resume_reading()
        handler.data_received(bytes(self.buffer))
        self.buffer.clear()

    def _idle(self):
        if self.transport is None:
            return
        now = self.loop.time()
        # A head under way has the head's time from its first byte; a connection with none, the idle time.
        heading = bool(self.buffer) and not self.blocked and self.door is not None
        ends = self.began + self.door.head if heading else self.last + self.idle
        if self.busy is None and now >= ends:
            self.transport.close()
            self._leave()
        else:
            self.timer = self.loop.call_later(max(min(ends - now, self._every()), 0.05), self._idle)

    def _every(self) -> float:
        """How often the connection's times are checked: a head may begin at any moment."""
        return min(self.idle, self.door.head) if self.door is not None else self.idle

    def close(self):
        """Close the connection once what was written is sent."""
        if self.transport is not None:
            self.transport.close()
