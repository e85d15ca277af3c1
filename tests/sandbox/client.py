"""A small HTTP client for the sandbox tests, standard library only, that never follows redirects by itself.

http URLs are sent to the proxy in absolute form; https URLs go through a CONNECT tunnel and TLS, the
sandbox's self-signed certificate accepted unverified; connections are kept alive between requests, as a browser
keeps them. `follow` walks Location headers (and optionally meta refresh) by hand, so a test sees every hop.
"""

import http.client
import ssl
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from urllib.parse import urljoin, urlsplit

import lxml.html

REDIRECTS = (301, 302, 303, 307, 308)
RETRY_STATUSES = (429, 500, 502, 503, 504)

_UNVERIFIED = ssl.create_default_context()
_UNVERIFIED.check_hostname = False
_UNVERIFIED.verify_mode = ssl.CERT_NONE


@dataclass
class Response:
    url: str
    status: int
    headers: http.client.HTTPMessage  # case-insensitive .get() / .get_all()
    body: bytes

    def __iter__(self):  # status, headers, body = get(...)
        return iter((self.status, self.headers, self.body))

    @property
    def location(self):
        value = self.headers.get("Location")
        return urljoin(self.url, value) if value is not None else None


def _proxy_address(proxy: str):
    parts = urlsplit(proxy)
    return parts.hostname, parts.port or 80


def get(proxy: str, url: str, headers: dict | None = None, method: str = "GET", timeout: float = 30) -> Response:
    """One request for url through the sandbox proxy; the response as it came, redirects not followed."""
    parts = urlsplit(url)
    if parts.scheme == "https":
        target = (parts.path or "/") + ("?" + parts.query if parts.query else "")
    elif parts.scheme == "http":
        target = url.split("#", 1)[0]  # absolute form: this is what makes it a proxy request
    else:
        raise ValueError(f"not an http(s) URL: {url}")
    key = (proxy, parts.scheme, parts.netloc if parts.scheme == "https" else "")
    conn, reused = _kept(key, timeout)
    while True:
        try:
            conn.request(method, target, headers=dict(headers or {}))
            reply = conn.getresponse()
            body = reply.read()
        except (http.client.RemoteDisconnected, ConnectionError, ssl.SSLError):
            conn.close()
            if not reused:
                raise
            conn, reused = _connect(key, timeout), False  # the server closed it while it was kept: once more, anew
            continue
        except BaseException:
            conn.close()
            raise
        _keep(key, conn)
        return Response(url, reply.status, reply.headers, body)


# Connections are kept open, per thread, by proxy and (for https) origin: the test process runs both ends, and a new
# connection and TLS tunnel for each request cost about three times the CPU of the request itself.
_OPEN = threading.local()
KEPT = 32  # connections kept per thread, the least recently used closed first


def _pool() -> OrderedDict:
    if not hasattr(_OPEN, "pool"):
        _OPEN.pool = OrderedDict()
    return _OPEN.pool


def _connect(key, timeout) -> http.client.HTTPConnection:
    proxy, scheme, netloc = key
    host, port = _proxy_address(proxy)
    if scheme == "http":
        return http.client.HTTPConnection(host, port, timeout=timeout)
    conn = http.client.HTTPSConnection(host, port, timeout=timeout, context=_UNVERIFIED)
    origin = urlsplit(f"https://{netloc}")
    conn.set_tunnel(origin.hostname, origin.port or 443)
    return conn


def _kept(key, timeout) -> tuple[http.client.HTTPConnection, bool]:
    """(a connection for key, whether it was kept from an earlier request)."""
    conn = _pool().pop(key, None)
    if conn is None:
        return _connect(key, timeout), False
    conn.timeout = timeout
    if conn.sock is not None:
        conn.sock.settimeout(timeout)
    return conn, True


def _keep(key, conn) -> None:
    pool = _pool()
    pool[key] = conn
    while len(pool) > KEPT:
        pool.popitem(last=False)[1].close()


def meta_refresh_target(response: Response):
    """The URL a page's <meta http-equiv="refresh"> sends to, or None."""
    if not (response.headers.get("Content-Type") or "").startswith("text/html") or not response.body.strip():
        return None
    try:
        document = lxml.html.document_fromstring(response.body.decode("utf-8", "replace"))
    except Exception:
        return None
    for meta in document.xpath("//meta[@http-equiv]"):
        if meta.get("http-equiv").lower() == "refresh":
            content = meta.get("content") or ""
            for part in content.split(";")[1:]:
                name, _, value = part.strip().partition("=")
                if name.strip().lower() == "url" and value.strip():
                    return urljoin(response.url, value.strip().strip("'\""))
    return None


@dataclass
class Chain:
    hops: list = field(default_factory=list)  # every Response in order (retried ones excluded)
    retried: list = field(default_factory=list)  # statuses of responses that were retried
    blocked: str | None = None  # URL that `allow` refused to fetch
    too_many_redirects: bool = False

    @property
    def last(self) -> Response:
        return self.hops[-1]

    @property
    def urls(self):
        return [hop.url for hop in self.hops]

    @property
    def statuses(self):
        return [hop.status for hop in self.hops]


def _store_cookies(jar: dict, response: Response):
    host = urlsplit(response.url).hostname
    for value in response.headers.get_all("Set-Cookie") or []:
        cookie = SimpleCookie()
        cookie.load(value)
        for name, morsel in cookie.items():
            jar.setdefault(host, {})[name] = morsel.value


def follow(
    proxy: str,
    url: str,
    cookies: bool,
    max_redirects: int = 20,
    meta_refresh: bool = False,
    retries: int = 0,
    allow=None,
    headers: dict | None = None,
) -> Chain:
    """Follow url's redirects by hand (at most max_redirects of them), returning every hop.

    cookies: keep the cookies each host sets and send them back to it.
    meta_refresh: a page's meta refresh counts as a redirect.
    retries: retry a 429 or 5xx answer this many times before taking it.
    allow: callable(url) -> bool checked before each fetch (robots.txt); a refusal ends the chain.
    """
    chain, jar, redirects, attempts = Chain(), {}, 0, 0
    while True:
        if allow is not None and not allow(url):
            chain.blocked = url
            return chain
        sent = dict(headers or {})
        host_cookies = jar.get(urlsplit(url).hostname, {})
        if cookies and host_cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in host_cookies.items())
        response = get(proxy, url, sent)
        if cookies:
            _store_cookies(jar, response)
        if response.status in RETRY_STATUSES and attempts < retries:
            attempts += 1
            chain.retried.append(response.status)
            continue
        attempts = 0
        chain.hops.append(response)
        target = None
        if response.status in REDIRECTS and response.location:
            target = response.location
        elif meta_refresh:
            target = meta_refresh_target(response)
        if target is None:
            return chain
        if redirects == max_redirects:
            chain.too_many_redirects = True
            return chain
        redirects += 1
        url = target
