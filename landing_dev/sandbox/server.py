"""The sandbox's one HTTP server process, reached as an HTTP proxy and routed by the request's host.

asyncio streams with h11 rather than a web framework: the server has to answer CONNECT and then speak TLS
on the same socket (https URLs through a proxy), which frameworks hide; h11 leaves the bytes to us.
"""

import asyncio
import datetime
import ipaddress
import random
import signal
import ssl
import sys
import tempfile
import threading
import time
from http import HTTPStatus
from pathlib import Path

import h11

from landing import clock
from landing_dev.sandbox.evolving import REFUSED, Evolution
from landing_dev.sandbox.http import Reply, Request, html_reply
from landing_dev.sandbox.web import State, respond
from landing_dev.sandbox.world import World

MAX_HEADER = 64 * 1024


def _certificate(directory: Path) -> ssl.SSLContext:
    """A self-signed certificate made at start-up: clients reach https sites through the proxy unverified."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "landing sandbox")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=365))
        .add_extension(
            x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "sandbox.crt", directory / "sandbox.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert_path, key_path)
    return context


class SandboxServer:
    def __init__(self, world, latency_ms=0, jitter_ms=0, seed=None, log=None, watch=None, now=None):
        # log: called with one line per request; watch: called with each Request itself (headers included).
        # now: the simulated time (a datetime) an evolving world is served at; default landing.clock's.
        self.world, self.watch = world, watch
        if world.evolving:
            world.now = lambda: (now or clock.now)().timestamp()
        self.state = State(seed, evolution=Evolution(world) if world.evolving else None)
        self.latency_ms, self.jitter_ms = latency_ms, jitter_ms
        self.jitter = random.Random(seed)
        self.log = log
        self._tmp = tempfile.TemporaryDirectory(prefix="landing-sandbox-")
        self.tls = _certificate(Path(self._tmp.name))
        self.requests = 0
        self.outages: dict[str, tuple[float, str]] = {}  # host -> (until, on this process's monotonic clock; how)

    def take_down(self, host: str, seconds: float, how: str = "refused") -> None:
        """Take `host` down for `seconds` of real time from now, whatever the world's clock: `refused`, a connection
        the proxy cannot make (CONNECT answered 502), or `503`. An evolving world's "down" events follow its clock."""
        self.outages[host.lower()] = (time.monotonic() + seconds, how)

    def _down(self, host: str) -> str | None:
        """How `host` is down now (take_down), or None."""
        until, how = self.outages.get(host.lower(), (0.0, None))
        return how if time.monotonic() < until else None

    async def start(self, host="127.0.0.1", port=0):
        self.server = await asyncio.start_server(self._connection, host, port, limit=MAX_HEADER)
        return self.server.sockets[0].getsockname()[1]

    async def _connection(self, reader, writer):
        try:
            await self._serve(reader, writer, scheme="http", authority=None)
        except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError, h11.ProtocolError):
            pass
        except asyncio.CancelledError:
            # The sandbox closing with a client's kept-alive connection still open: an end, not an error (asyncio's
            # stream callback in 3.11 would print a cancelled handler's traceback).
            pass
        finally:
            writer.close()

    async def _next_event(self, conn, reader):
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                data = await reader.read(65536)
                conn.receive_data(data)
                if not data and conn.their_state is not h11.DONE:
                    return h11.ConnectionClosed()
                continue
            return event

    async def _serve(self, reader, writer, scheme, authority):
        conn = h11.Connection(h11.SERVER)
        while True:
            event = await self._next_event(conn, reader)
            if not isinstance(event, h11.Request):
                return
            method = event.method.decode("ascii")
            target = event.target.decode("latin-1")
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in event.headers}
            refused = method == "CONNECT" and self._down(target.rsplit(":", 1)[0]) == "refused"
            if refused or (
                method == "CONNECT" and self.state.evolution and self.state.evolution.refuses(target.rsplit(":", 1)[0])
            ):
                writer.write(conn.send(h11.Response(status_code=502, headers=[("Content-Length", "0")])))
                writer.write(conn.send(h11.EndOfMessage()))
                await writer.drain()
                return
            if method == "CONNECT":
                writer.write(conn.send(h11.Response(status_code=200, headers=[], reason=b"Connection established")))
                await writer.drain()
                await writer.start_tls(self.tls)
                return await self._serve(reader, writer, "https", target.rsplit(":", 1)[0])
            while not isinstance(await self._next_event(conn, reader), h11.EndOfMessage):
                pass  # request bodies are not used by any route
            url = target if "://" in target else f"{scheme}://{headers.get('host', authority or '')}{target}"
            reply = self._respond(Request(method, url, headers))
            await self._send(conn, writer, method, reply)
            if conn.our_state is h11.MUST_CLOSE or conn.their_state is h11.MUST_CLOSE:
                return
            conn.start_next_cycle()

    def _respond(self, request) -> Reply:
        self.requests += 1
        if self.watch:
            self.watch(request)
        try:
            down = self._down(request.host)
            if down:
                reply = (
                    REFUSED if down == "refused" else html_reply(503, "Service unavailable", "Down for maintenance.")
                )
            else:
                reply = respond(self.world, request, self.state)
        except Exception as error:  # one bad route must not take the server down
            print(f"sandbox: error answering {request.url}: {error!r}", file=sys.stderr)
            reply = Reply(500, [("Content-Type", "text/plain")], b"sandbox error\n")
        if self.log:
            self.log(f"{request.method} {request.url} -> {reply.status}")
        return reply

    async def _send(self, conn, writer, method, reply: Reply):
        delay = reply.delay_ms + self.latency_ms + (self.jitter.uniform(0, self.jitter_ms) if self.jitter_ms else 0)
        if delay:
            await asyncio.sleep(delay / 1000)
        headers = [("Server", "landing-sandbox"), *reply.headers, ("Content-Length", str(len(reply.body)))]
        # Sent as UTF-8, as servers send a Location with raw non-ASCII in it (h11 would take ASCII only).
        headers = [(name, value.encode("utf-8") if isinstance(value, str) else value) for name, value in headers]
        try:
            reason = HTTPStatus(reply.status).phrase.encode()
        except ValueError:
            reason = b""
        writer.write(conn.send(h11.Response(status_code=reply.status, headers=headers, reason=reason)))
        if method != "HEAD" and reply.body:
            writer.write(conn.send(h11.Data(data=reply.body)))
        writer.write(conn.send(h11.EndOfMessage()))
        await writer.drain()

    async def close(self):
        self.server.close()
        await self.server.wait_closed()
        self._tmp.cleanup()


def serve_forever(world, port=0, host="127.0.0.1", latency_ms=0, jitter_ms=0, announce=print, log=None, now=None):
    """Serve until SIGINT (Ctrl-C) or SIGTERM; announce() gets the proxy URL once listening."""

    async def main():
        server = SandboxServer(world, latency_ms, jitter_ms, log=log, now=now)
        bound = await server.start(host, port)
        serving = asyncio.current_task()
        # Handlers of its own: a SIGINT ignored by whatever started it (pytest-xdist's workers ignore it, and an
        # ignored signal stays ignored across exec) would otherwise leave it serving until killed.
        for signum in (signal.SIGINT, signal.SIGTERM):
            asyncio.get_running_loop().add_signal_handler(signum, serving.cancel)
        announce(f"http://{host}:{bound}")
        try:
            await server.server.serve_forever()
        except asyncio.CancelledError:
            pass
        finally:
            await server.close()

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass


class RunningSandbox:
    """A world served on its own event-loop thread and a free port; `proxy` is the URL to give clients.

    What the demo, the benchmarks and the tests use to run a sandbox beside the process that drives it.
    """

    def __init__(self, directory, host="127.0.0.1", **options):
        self.world = World(directory)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.server = SandboxServer(self.world, **options)
        port = asyncio.run_coroutine_threadsafe(self.server.start(host, 0), self.loop).result(10)
        self.proxy = f"http://{host}:{port}"

    async def _close(self):
        # Connections still open end here, not as tasks destroyed pending once the loop stops.
        await self.server.close()
        tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def take_down(self, host: str, seconds: float, how: str = "refused") -> None:
        """SandboxServer.take_down, from the thread that drives the sandbox; in effect once this returns."""

        async def down():
            self.server.take_down(host, seconds, how)

        asyncio.run_coroutine_threadsafe(down(), self.loop).result(10)

    def close(self):
        asyncio.run_coroutine_threadsafe(self._close(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.world.close()
