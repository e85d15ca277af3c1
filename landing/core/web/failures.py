"""Failure classes: why a DOI's chain did not end on a landing page. Decided from strings and numbers only."""

import re
from urllib.parse import parse_qsl, urljoin, urlsplit

from landing.core.web.addresses import literal_address
from landing.core.web.hostnames import valid_hostname

# Every class a snapshot may carry in `snapshot/error` (docs in docs/data-model.md "Failure classes").
CLASSES = (
    "timeout",
    "dns",
    "connection",
    "http-4xx",
    "http-5xx",
    "redirect-loop",
    "too-many-redirects",
    "too-large",
    "not-html",
    "robots",
    "challenge",
    "js-required",
    "cookie-required",
    "refused-address",
    "invalid-host",
)
# The classes a browser can get past: LANDING_DRIVER=auto sends exactly these DOIs to it.
BROWSER_CLASSES = ("js-required", "challenge", "cookie-required")

_HTML_TYPES = ("text/html", "application/xhtml+xml")
# A literal location assignment, as script-only redirect pages write it.
_JS_LOCATION = re.compile(
    r"(?:window\.|document\.|self\.|top\.)?location(?:\.href)?\s*=(?!=)|location\.(?:replace|assign)\s*\("
)
# The same, with the target a string literal: the only kind a client without JavaScript can follow safely.
_JS_LITERAL = re.compile(
    r"""(?:\b(?:window|document|self|top)\.)?\blocation(?:\.href)?\s*=(?!=)\s*(["'])(?P<a>[^"'\\\n]*)\1"""
    r"""|\blocation\.(?:replace|assign)\(\s*(["'])(?P<b>[^"'\\\n]*)\3\s*\)"""
)
# How publisher platforms mark a client that did not keep their session cookie. Atypon (Wiley, Taylor & Francis,
# SAGE, ACS ...) bounces it through /action/getSharedSiteSession and ends at /action/cookieAbsent, or loops a page
# to itself with ?cookieSet=1; others name a cookies-required or cookies-disabled page.
_COOKIE_PATH = re.compile(
    r"/(?:action/)?(?:getSharedSiteSession|cookie-?absent|cookies?[-_]?(?:required|disabled))\b", re.I
)
_COOKIE_QUERY = frozenset({"cookieset", "cookie_set", "cookiecheck", "cookies_enabled"})
# What a no-cookie page says, on a page too short to be anything else (cookie banners live on long pages).
_COOKIE_NOTICE = re.compile(
    r"\b(?:enable|accept|allow|turn on|support)s?\b(?:\W+\w+){0,3}?\W+cookies\b"
    r"|\bcookies\b(?:\W+\w+){0,2}?\W+(?:disabled|blocked|required|turned off|not enabled|not supported)\b",
    re.I,
)
# Byte-level tests that rule a page out before it is parsed (most pages, on every visit): no script element, no
# `location` word. A UTF-16 page (a BOM, or NUL bytes) cannot be ruled out on its bytes, so it is always parsed. Words are
# looked for in a lower-cased copy, faster than a case-blind regex over a page that lacks the word
# (bench/README.md "Figures behind choices in the code").
_SCRIPT = b"<script"
_LOCATION = b"location"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_TITLE = re.compile(rb"<title[^>]*>\s*(just a moment|attention required|checking your browser)", re.I)


def redirect_failure(urls: list[str]) -> str:
    """`cookie-required` when the chain went round a platform's cookie check; else `redirect-loop` when it came
    back to a URL it had visited, else `too-many-redirects`."""
    if any(cookie_check(url) for url in urls):
        return "cookie-required"
    return "redirect-loop" if len(set(urls)) < len(urls) else "too-many-redirects"


def cookie_check(url: str) -> bool:
    """A URL of a platform's cookie check: its session bounce, its no-cookie page, or a `?cookieSet=1` retry."""
    parts = urlsplit(url)
    return bool(_COOKIE_PATH.search(parts.path)) or any(
        key.lower() in _COOKIE_QUERY for key, _ in parse_qsl(parts.query, keep_blank_values=True)
    )


def cookie_notice(page) -> bool:
    """A short page (a landing.core.pages.page.Page of at most 60 visible words) that asks for cookies. Callers first rule
    out pages stating a DOI."""
    return page.words <= 60 and bool(_COOKIE_NOTICE.search(page.text))


def refused_redirect(status: int, location: str | None, url: str) -> str | None:
    """refused-address for a redirect to something other than the web (file:, ftp:, javascript:), which Scrapy
    leaves unfollowed: the site pointed the visit where the crawl never goes, as an address the guard refuses."""
    if 300 <= status < 400 and location and urlsplit(urljoin(url, location.strip())).scheme not in ("http", "https"):
        return "refused-address"
    return None


def host_failure(urls) -> str | None:
    """`invalid-host` when an http(s) URL of a chain names a host that is no hostname (landing.core.web.hostnames: a
    control character, a bidi override, `=` or `$` in a label ...), or none at all; else None. None URLs are skipped.
    An IPv4 address in a shorthand form (2130706433, 0x7f.1) is an address, left to the address guard to judge."""
    for url in urls:
        if url is None:
            continue
        try:
            parts = urlsplit(url)
            host = parts.hostname
        except ValueError:  # an unbalanced "[" and the like: no host can be read from it
            return "invalid-host"
        if parts.scheme.lower() in ("http", "https") and not valid_hostname(host) and not literal_address(host or ""):
            return "invalid-host"
    return None


def status_failure(status: int, has_page: bool) -> str | None:
    """The class of a final status: 4xx and 5xx fail, except a 401 that carries a page (a page is a page)."""
    if status >= 500:
        return "http-5xx"
    if status >= 400 and not (status == 401 and has_page):
        return "http-4xx"
    return None


def is_html(content_type: str | None, body: bytes) -> bool:
    """HTML by header, or by sniffing when the header is missing (some servers send none)."""
    if content_type:
        return content_type.split(";")[0].strip().lower() in _HTML_TYPES
    head = body[:512].lstrip().lower()
    return head.startswith((b"<!doctype html", b"<html")) or b"<head" in head


def challenge(status: int, headers: dict, body: bytes) -> bool:
    """A bot-protection interstitial (Cloudflare and its kind): 403/503 saying so in a header or the title."""
    if status not in (403, 429, 503):
        return False
    if (headers.get("cf-mitigated") or "").lower() == "challenge":
        return True
    return bool(_TITLE.search(body[:4096]))


def js_required(page) -> bool:
    """A page (landing.core.pages.page.Page) with (almost) no visible text whose scripts send the browser elsewhere or
    build the page.

    Callers first rule out pages that state a DOI: a head-only landing page is still a landing page.
    """
    if not may_hold(page.body, _SCRIPT) or not page.scripts:
        return False
    return page.words == 0 or (page.words <= 30 and any(_JS_LOCATION.search(s) for s in page.scripts))


def may_hold(body: bytes, *words: bytes) -> bool:
    """Whether the page's text may contain all of `words` (lower-case ASCII); False only when its bytes rule it out."""
    if body.startswith(_UTF16_BOMS) or b"\x00" in body:
        return True
    lowered = body.lower()
    return all(word in lowered for word in words)


def script_location(page) -> str | None:
    """Where a script-only redirect page (landing.core.pages.page.Page) sends the browser, when its script names the
    target literally.

    Only `<script>` elements count (never onclick handlers, which real pages are full of), only pages with
    at most 30 visible words, and only a string literal, never a computed URL. Callers first rule out pages
    that state their DOI.
    """
    if not may_hold(page.body, _SCRIPT, _LOCATION):
        return None
    for script in page.scripts if page.words <= 30 else ():
        found = _JS_LITERAL.search(script)
        if found:
            return found.group("a") if found.group("a") is not None else found.group("b")
    return None


def page_failure(status: int, content_type: str | None, headers: dict, body: bytes) -> str | None:
    """The class of a fetched response before any parsing: status, challenge, type. None when it is a page."""
    if challenge(status, headers, body):
        return "challenge"
    failure = status_failure(status, has_page=bool(body.strip()))
    if failure:
        return failure
    if not is_html(content_type, body):
        return "not-html"
    return None
