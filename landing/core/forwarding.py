"""What a forward proxy is asked: an HTTP/1.x request head in; the host to judge, and the head to send on, out.

Chromium asks its proxy in two ways: `CONNECT host:port` for a tunnel (https, and WebSockets, ws and wss alike),
and an absolute-form request (`GET http://host/path HTTP/1.1`) for plain http. Either way the proxy learns the
host before any byte reaches it, which is what lets landing.browser.proxy judge every connection Chromium makes.
"""

from typing import NamedTuple
from urllib.parse import urlsplit

MAX_HEAD = 65536  # bytes: a request head longer than this is refused, not buffered
# Hop-by-hop: they describe Chromium's connection to the proxy, not the proxy's to the site (RFC 9110 7.6.1).
# A body's framing (Content-Length, Transfer-Encoding) stays: the body is relayed as it comes.
_HOP_BY_HOP = {"connection", "proxy-connection", "keep-alive", "proxy-authorization", "te", "upgrade"}


class BadAsk(ValueError):
    """A request head a forward proxy cannot serve: not HTTP/1.x, not CONNECT or an absolute http URL."""


class Ask(NamedTuple):
    """One request to the proxy: the host and port to connect to, the URL the guard judges (and a refusal is
    named by), and the head to send there (empty for a tunnel: Chromium speaks through it itself)."""

    tunnel: bool
    host: str
    port: int
    url: str
    head: bytes


def asked(head: bytes, through_proxy: bool = False) -> Ask:
    """The Ask in a request head (through its blank line). through_proxy: the head goes on to another proxy, so an
    absolute-form request keeps its absolute URL."""
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise BadAsk(f"not an HTTP/1.x request line: {lines[0][:200]!r}")
    method, target, version = parts
    if method == "CONNECT":
        where = _authority(target)
        return Ask(True, where.hostname, where.port, f"https://{target}/", b"")
    url = urlsplit(target)
    if url.scheme != "http" or not url.hostname:
        raise BadAsk(f"not an absolute http URL: {target[:200]!r}")
    port = _port(url)
    path = url.path or "/"
    if url.query:
        path += "?" + url.query
    headers = [line for line in lines[1:] if line]
    listed = {
        name.strip().lower()
        for line in headers
        if _name(line) == "connection"
        for name in line.split(":", 1)[1].split(",")
    }
    kept = [line for line in headers if _name(line) not in _HOP_BY_HOP | listed]
    start = f"{method} {target if through_proxy else path} {version}"
    sent = "\r\n".join([start, *kept, "Connection: close", "", ""]).encode("latin-1")
    return Ask(False, url.hostname, port, f"http://{url.netloc}{path}", sent)


def _authority(target: str):
    where = urlsplit(f"//{target}")
    if not where.hostname or "@" in where.netloc or where.path or where.query:
        raise BadAsk(f"not host:port: {target[:200]!r}")
    _port(where)
    if where.port is None:
        raise BadAsk(f"CONNECT without a port: {target[:200]!r}")
    return where


def _port(url) -> int:
    try:
        return url.port or 80
    except ValueError as error:  # urlsplit checks the port only when it is read
        raise BadAsk(str(error)) from error


def _name(line: str) -> str:
    return line.split(":", 1)[0].strip().lower()
