"""A stand-in for the internet behind landing.browser.forward_proxy: public addresses mapped onto listeners on 127.0.0.1.

The guard refuses loopback, so a test cannot give it a local server's own address. Tests instead give hosts public
addresses and map (address, port) to a local listener at the proxy's one connecting call; the guard's judgement is
the real one, and a connection the guard should never allow would, if made, reach a listener and be seen.
"""

import asyncio
import socket
import threading
from contextlib import contextmanager

from urllib3.util import make_headers


def mapped(network: dict, made: list):
    """An asyncio.open_connection that connects (address, port) to network[f"{address}:{port}"] on 127.0.0.1."""

    async def open_connection(host, port, **kwargs):
        made.append(f"{host}:{port}")
        local = network.get(f"{host}:{port}")
        if local is None:
            raise ConnectionRefusedError(f"nothing listens at {host}:{port} in this test's network")
        return await asyncio.open_connection("127.0.0.1", local, **kwargs)

    return open_connection


def basic(username: str, password: str) -> str:
    """The Proxy-Authorization value of Basic credentials, as urllib3 writes it (not as the proxy reads it)."""
    return make_headers(proxy_basic_auth=f"{username}:{password}")["proxy-authorization"]


def credentialed(head: bytes, proxy: dict) -> bytes:
    """head with the Proxy-Authorization of a proxy's Playwright option {server, username, password}."""
    line, _, rest = head.partition(b"\r\n")
    return line + f"\r\nProxy-Authorization: {basic(proxy['username'], proxy['password'])}\r\n".encode() + rest


class Site:
    """An asyncio listener that records all each connection sends and answers `answer` after its first head; then it
    stays silent until its peer ends (`ended` gets what that connection sent), and closes too unless `holds`."""

    def __init__(self, answer: bytes = b"", holds: bool = False):
        self.answer, self.holds, self.received, self.ended, self.held = answer, holds, [], asyncio.Queue(), []

    async def __call__(self, reader, writer) -> None:
        got = bytearray()
        self.received.append(got)
        self.held.append(writer)
        try:
            while chunk := await reader.read(65536):
                answered = b"\r\n\r\n" in got
                got += chunk
                if self.answer and not answered and b"\r\n\r\n" in got:
                    writer.write(self.answer)
        except ConnectionError:
            pass
        await self.ended.put(bytes(got))
        if not self.holds:
            writer.close()

    def close(self) -> None:
        for writer in self.held:
            writer.close()


@contextmanager
def listening():
    """A TCP listener on 127.0.0.1 that records every connection's first bytes; yields (port, connections)."""
    connections: list[bytes] = []
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)

    def accept():
        while True:
            try:
                client, _ = server.accept()
            except OSError:
                return
            client.settimeout(2)
            try:
                connections.append(client.recv(4096))
            except OSError:
                connections.append(b"")
            client.close()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield server.getsockname()[1], connections
    finally:
        server.close()
