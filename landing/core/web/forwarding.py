"""What a forward proxy is asked: an HTTP/1.x request head in; the host to judge, and the head to send on, out.

Chromium asks its proxy in two ways: `CONNECT host:port` for a tunnel (https, and WebSockets, ws and wss alike),
and an absolute-form request (`GET http://host/path HTTP/1.1`) for plain http. Either way the proxy learns the
host before any byte reaches it, which is what lets landing.browser.forward_proxy judge every connection Chromium makes.
One request a connection: what follows a plain request's body is never read as another request (landing.browser.forward_proxy
closes instead), so every request the proxy sends on has been judged.
"""

import base64
import binascii
import hmac
from typing import NamedTuple
from urllib.parse import urlsplit

MAX_HEAD = 65536  # bytes: a request head longer than this is refused, not buffered
# Hop-by-hop: they describe Chromium's connection to the proxy, not the proxy's to the site (RFC 9110 7.6.1).
# A body's framing (Content-Length, Transfer-Encoding) stays: the body is relayed as it comes.
_HOP_BY_HOP = {"connection", "proxy-connection", "keep-alive", "proxy-authorization", "te", "upgrade"}


class BadAsk(ValueError):
    """A request head a forward proxy cannot serve: not HTTP/1.x, not CONNECT or an absolute http URL; `status`: the
    HTTP status to answer it with."""

    def __init__(self, why: str, status: int = 400):
        super().__init__(why)
        self.status = status


class Ask(NamedTuple):
    """One request to the proxy: the host and port to connect to, the URL the guard judges (and a refusal is
    named by), the head to send there (empty for a tunnel: Chromium speaks through it itself), and the length of the
    body that follows the head (None for a tunnel: bytes both ways until either side ends)."""

    tunnel: bool
    host: str
    port: int
    url: str
    head: bytes
    body: int | None = None


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
    url = _split(target)
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
    return Ask(False, url.hostname, port, f"http://{url.netloc}{path}", sent, _body_length(headers))


def authorized(head: bytes, username: str, password: str) -> bool:
    """Whether a request head carries Proxy-Authorization: Basic with exactly these credentials."""
    expected = f"{username}:{password}".encode()
    for line in head.decode("latin-1").split("\r\n")[1:]:
        if _name(line) == "proxy-authorization":
            scheme, _, token = line.split(":", 1)[1].strip().partition(" ")
            try:
                given = base64.b64decode(token.strip(), validate=True)
            except (binascii.Error, ValueError):
                return False
            return scheme.lower() == "basic" and hmac.compare_digest(given, expected)
    return False


def _body_length(headers: list[str]) -> int:
    """The bytes of body after a request head, from its Content-Length (a body in chunks is refused: Chromium sends
    those over HTTP/2 only, and reading their framing is what would let a second request hide in a first)."""
    if any(_name(line) == "transfer-encoding" for line in headers):
        raise BadAsk("a request body in chunks (Transfer-Encoding): send it with a Content-Length", 411)
    lengths = {line.split(":", 1)[1].strip() for line in headers if _name(line) == "content-length"}
    if not lengths:
        return 0
    length = lengths.pop()
    if lengths or not (length.isascii() and length.isdigit()):
        raise BadAsk(f"not one Content-Length: {sorted(lengths | {length})!r}"[:200])
    return int(length)


def _split(target: str):
    try:
        return urlsplit(target)
    except ValueError as error:  # an unclosed [IPv6 address
        raise BadAsk(f"not a URL: {target[:200]!r} ({error})") from error


def _authority(target: str):
    where = _split(f"//{target}")
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
