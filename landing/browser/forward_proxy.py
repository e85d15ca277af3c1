"""The guarding forward proxy Chromium is launched behind (--proxy-server), when the address guard is on.

Routing (landing.browser.rules) sees what Playwright shows it: not WebSockets, not service workers' fetches, not
the hops of a redirect chain, not robots.txt asked through `context.request`. A proxy sees every connection, and
before any byte reaches the site. Each is judged by landing.crawl.guard with the rules' own cached answers (one
answer per host for the whole crawl, so routing and connecting agree), then made to the address that was checked,
IPv6 included: Chromium never resolves a name itself. A refused connection is answered 403 and its host:port kept,
for the visit whose navigation it ended to name its class (landing.browser.rules.stopped).

Only the crawl's browser may use it: it listens on loopback, where any local user could reach it, so it serves only
requests carrying its own per-run credentials (a 407 otherwise; Playwright answers it with the launch option's
username and password, and its own requests, robots.txt's, send them ahead). Every request is judged: a plain http request is the only one its
connection carries (what follows its body ends the connection, unread by any site). Time and room are bounded: a
request head must arrive within HEAD_TIMEOUT, a relay silent both ways for `idle_timeout` is closed, either side
ending ends both, and past `max_connections` (connection_cap) a connection is answered 503.

Written here rather than taken from a library: the job is small (CONNECT tunnels and absolute-form http, relayed
as bytes), and what matters, connecting only to the checked address, is exactly what general-purpose proxies do
not expose.
"""

import asyncio
import logging
import resource
import secrets
from asyncio import open_connection
from http import HTTPStatus
from urllib.parse import urlsplit

from landing.core.web.addresses import literal_address
from landing.core.web.forwarding import MAX_HEAD, BadAsk, asked, authorized
from landing.crawl.guard import Unresolved, judge

logger = logging.getLogger(__name__)

CONNECT_TIMEOUT = 30.0
# Chromium writes a request head at once, or drops a connection it opened ahead of need (preconnect) after 10 s
# unused: a head still unfinished after 20 s is not Chromium's, and would hold a connection for as long as it likes.
HEAD_TIMEOUT = 20.0
# A relay silent both ways this long serves no visit: the handler passes DOWNLOAD_TIMEOUT, a navigation's own limit.
IDLE_TIMEOUT = 60.0
# Chromium holds at most 6 connections a host and 32 (newer releases 128) to one proxy in a browser context, each
# visit having its own: 64 a context leaves a page with many hosts room, and bounds the descriptors (two a relay)
# that hostile pages or stray local clients can hold.
PER_CONTEXT = 64
USERNAME = "landing"
_CHUNK = 65536


def connection_cap(contexts: int) -> int:
    """The most connections the proxy holds at once: PER_CONTEXT for each browser context open at once, within a
    quarter of the file descriptors this process may open (the crawl needs the rest)."""
    descriptors, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    cap = PER_CONTEXT * max(contexts, 1)
    return cap if descriptors == resource.RLIM_INFINITY else max(1, min(cap, descriptors // 8))


class GuardingProxy:
    """A forward proxy on 127.0.0.1 that connects only where the guard allows; `upstream` (host, port): another
    proxy every allowed connection goes on through (a LANDING_SANDBOX elsewhere), which then resolves names itself."""

    def __init__(
        self,
        answers,
        refused,
        upstream: tuple[str, int] | None = None,
        *,
        idle_timeout: float = IDLE_TIMEOUT,
        head_timeout: float = HEAD_TIMEOUT,
        max_connections: int = connection_cap(8),
    ):
        self.answers, self.refused, self.upstream = answers, refused, upstream
        self.idle_timeout, self.head_timeout, self.max_connections = idle_timeout, head_timeout, max_connections
        self.username, self.password = USERNAME, secrets.token_urlsafe(32)  # this run's, asked of every request
        self.server: asyncio.AbstractServer | None = None
        self.relays: set[asyncio.Task] = set()  # one a client connection, from its accept to its close
        self.crowded = False

    async def start(self) -> dict:
        """Listen on a free loopback port; Playwright's `proxy` launch option for it: {server, username, password}."""
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0, limit=MAX_HEAD)
        port = self.server.sockets[0].getsockname()[1]
        return {"server": f"http://127.0.0.1:{port}", "username": self.username, "password": self.password}

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
            for relay in list(self.relays):
                relay.cancel()
            await asyncio.gather(*self.relays, return_exceptions=True)

    async def _serve(self, reader, writer) -> None:
        if len(self.relays) >= self.max_connections:
            if not self.crowded:  # said once a crowding, not once a connection
                logger.warning("browser proxy: %d connections open; more are answered 503", len(self.relays))
            self.crowded = True
            await _answered(writer, 503, f"more than {self.max_connections} connections at once")
            return
        self.crowded = False
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
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), self.head_timeout)
        except asyncio.LimitOverrunError:
            return await _reply(writer, 431, "request head too long")
        except TimeoutError:
            return await _reply(writer, 408, f"no complete request head within {self.head_timeout:g} s")
        if not authorized(head, self.username, self.password):  # Chromium's first ask of a context, or not Chromium
            return await _reply(writer, 407, "this proxy serves its own crawl's browser only")
        try:
            ask = asked(head, through_proxy=self.upstream is not None)
        except BadAsk as error:
            return await _reply(writer, error.status, str(error))
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
            await self._relay((reader, writer), (site_reader, site_writer), ask.body)
        finally:
            site_writer.close()

    async def _relay(self, client, site, body: int | None) -> None:
        """Bytes both ways until either side ends or both are silent for idle_timeout; body: a plain request's, the
        last bytes the client may send (None: a tunnel's, any)."""
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(self.idle_timeout) as idle:

                def moved() -> None:
                    idle.reschedule(loop.time() + self.idle_timeout)

                asking = (
                    _pipe(client[0], site[1], moved) if body is None else _one_request(client[0], site[1], body, moved)
                )
                relays = [asyncio.ensure_future(asking), asyncio.ensure_future(_pipe(site[0], client[1], moved))]
                try:
                    await asyncio.wait(relays, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    for relay in relays:
                        relay.cancel()
                    await asyncio.gather(*relays, return_exceptions=True)
        except TimeoutError:
            logger.debug("browser proxy: a relay silent both ways for %g s, closed", self.idle_timeout)

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


async def _pipe(source, sink, moved) -> None:
    """Bytes from source to sink until source ends (or either fails)."""
    try:
        while chunk := await source.read(_CHUNK):
            moved()
            sink.write(chunk)
            await sink.drain()
    except (ConnectionError, OSError):
        pass


async def _one_request(client, site, body: int, moved) -> None:
    """A plain request's body to the site; then the relay ends when the client sends anything more, or ends: a
    second request on one connection is never read, so never reaches a site unjudged."""
    try:
        while body > 0:
            chunk = await client.read(min(body, _CHUNK))
            if not chunk:
                return
            moved()
            body -= len(chunk)
            site.write(chunk)
            await site.drain()
        if await client.read(1):
            logger.debug("browser proxy: a second request on one connection, closed unread")
    except (ConnectionError, OSError):
        pass


async def _reply(writer, status: int, why: str) -> None:
    body = why.encode("utf-8", "replace")
    asks = 'Proxy-Authenticate: Basic realm="landing"\r\n' if status == 407 else ""
    writer.write(
        f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\n{asks}Content-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode("latin-1")
        + body
    )
    await writer.drain()


async def _answered(writer, status: int, why: str) -> None:
    """Reply, then close, whatever the client did meanwhile."""
    try:
        await _reply(writer, status, why)
    except ConnectionError:
        pass
    finally:
        writer.close()
