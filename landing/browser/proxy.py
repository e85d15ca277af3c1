"""The guarding forward proxy Chromium is launched behind (--proxy-server), when the address guard is on.

Routing (landing.browser.rules) sees what Playwright shows it: not WebSockets, not service workers' fetches, not
the hops of a redirect chain, not robots.txt asked through `context.request`. A proxy sees every connection, and
before any byte reaches the site. Each is judged by landing.crawl.guard with the rules' own cached answers (one
answer per host for the whole crawl, so routing and connecting agree), then made to the address that was checked,
IPv6 included: Chromium never resolves a name itself. A refused connection is answered 403 and its host:port kept,
for the visit whose navigation it ended to name its class (landing.browser.rules.stopped).

Written here rather than taken from a library: the job is small (CONNECT tunnels and absolute-form http, relayed
as bytes), and what matters, connecting only to the checked address, is exactly what general-purpose proxies do
not expose.
"""

import asyncio
import logging
from asyncio import open_connection
from urllib.parse import urlsplit

from landing.core.addresses import literal_address
from landing.core.forwarding import MAX_HEAD, BadAsk, asked
from landing.crawl.guard import Unresolved, judge

logger = logging.getLogger(__name__)

CONNECT_TIMEOUT = 30.0
_CHUNK = 65536


class GuardingProxy:
    """A forward proxy on 127.0.0.1 that connects only where the guard allows; `upstream` (host, port): another
    proxy every allowed connection goes on through (a LANDING_SANDBOX elsewhere), which then resolves names itself."""

    def __init__(self, answers, refused, upstream: tuple[str, int] | None = None):
        self.answers, self.refused, self.upstream = answers, refused, upstream
        self.server: asyncio.AbstractServer | None = None
        self.relays: set[asyncio.Task] = set()

    async def start(self) -> str:
        """Listen on a free loopback port; the proxy's URL."""
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0, limit=MAX_HEAD)
        port = self.server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
            for relay in list(self.relays):
                relay.cancel()
            await asyncio.gather(*self.relays, return_exceptions=True)

    async def _serve(self, reader, writer) -> None:
        task = asyncio.current_task()
        self.relays.add(task)
        try:
            await self._answer(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # Chromium closed its side (a visit's context closed): nothing is waiting for an answer
        finally:
            self.relays.discard(task)
            writer.close()

    async def _answer(self, reader, writer) -> None:
        try:
            ask = asked(await reader.readuntil(b"\r\n\r\n"), through_proxy=self.upstream is not None)
        except asyncio.LimitOverrunError:
            return await _reply(writer, 431, "request head too long")
        except BadAsk as error:
            return await _reply(writer, 400, str(error))
        refusal = await judge(ask.url, self.answers)
        if refusal is not None:
            failure = "dns" if isinstance(refusal, Unresolved) else "refused-address"
            self.refused(ask.host, ask.port, failure, str(refusal), f"landing/refused/{refusal.reason}")
            logger.warning("browser connection: %s", refusal)
            return await _reply(writer, 403, str(refusal))
        try:
            site_reader, site_writer = await self._connect(ask.host, ask.port)
        except (TimeoutError, OSError) as error:
            return await _reply(writer, 502, f"{ask.host}:{ask.port}: {error!r}")
        try:
            if ask.tunnel and self.upstream is None:
                writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            else:  # a tunnel through another proxy asks it the same CONNECT, and relays its answer
                site_writer.write(ask.head or _connect_head(ask.host, ask.port))
            asking = asyncio.ensure_future(_pipe(reader, site_writer))
            try:
                await _pipe(site_reader, writer)  # the site's side decides when the relay is over
            finally:
                asking.cancel()
        finally:
            site_writer.close()

    async def _connect(self, host: str, port: int):
        """A connection to the first of host's checked addresses that answers (or to the upstream proxy)."""
        if self.upstream is not None:
            return await asyncio.wait_for(open_connection(*self.upstream), CONNECT_TIMEOUT)
        literal = literal_address(host)
        addresses = (literal,) if literal else await self.answers(host)
        failure: Exception = OSError(f"{host} has no address")
        for address in addresses:
            try:
                return await asyncio.wait_for(open_connection(address, port), CONNECT_TIMEOUT)
            except (TimeoutError, OSError) as error:
                failure = error
        raise failure


def upstream_of(proxy_url: str | None) -> tuple[str, int] | None:
    """(host, port) of an http proxy URL, or None."""
    if not proxy_url:
        return None
    parts = urlsplit(proxy_url)
    return parts.hostname, parts.port or 80


def _connect_head(host: str, port: int) -> bytes:
    where = f"[{host}]" if ":" in host else host
    return f"CONNECT {where}:{port} HTTP/1.1\r\nHost: {where}:{port}\r\n\r\n".encode("latin-1")


async def _pipe(source, sink) -> None:
    """Bytes from source to sink until source ends; then sink's write side ends too (the other way may go on)."""
    try:
        while chunk := await source.read(_CHUNK):
            sink.write(chunk)
            await sink.drain()
        if sink.can_write_eof():
            sink.write_eof()
    except (ConnectionError, OSError):
        sink.close()


async def _reply(writer, status: int, why: str) -> None:
    body = why.encode("utf-8", "replace")
    reason = {400: "Bad Request", 403: "Forbidden", 431: "Request Header Fields Too Large", 502: "Bad Gateway"}
    writer.write(
        f"HTTP/1.1 {status} {reason[status]}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode("latin-1")
        + body
    )
    await writer.drain()
