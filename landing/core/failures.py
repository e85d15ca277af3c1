"""Failure classes: why a DOI's chain did not end on a landing page. Decided from strings and numbers only."""
import re

import lxml.etree
import lxml.html
from w3lib.encoding import html_to_unicode

# Every class a snapshot may carry in `snapshot/error` (docs in README "Data model").
CLASSES = ("timeout", "dns", "connection", "http-4xx", "http-5xx", "redirect-loop", "too-many-redirects",
           "too-large", "not-html", "robots", "challenge", "js-required", "refused-address")
# The classes a browser can get past: LANDING_DRIVER=auto sends exactly these DOIs to it.
BROWSER_CLASSES = ("js-required", "challenge")

_HTML_TYPES = ("text/html", "application/xhtml+xml")
# A literal location assignment, as script-only redirect pages write it.
_JS_LOCATION = re.compile(r"(?:window\.|document\.|self\.|top\.)?location(?:\.href)?\s*=(?!=)|location\.(?:replace|assign)\s*\(")
# The same, with the target a string literal: the only kind a client without JavaScript can follow safely.
_JS_LITERAL = re.compile(
    r"""(?:\b(?:window|document|self|top)\.)?\blocation(?:\.href)?\s*=(?!=)\s*(["'])(?P<a>[^"'\\\n]*)\1"""
    r"""|\blocation\.(?:replace|assign)\(\s*(["'])(?P<b>[^"'\\\n]*)\3\s*\)""")
_SCRIPT = re.compile(rb"<script\b", re.I)
_TITLE = re.compile(rb"<title[^>]*>\s*(just a moment|attention required|checking your browser)", re.I)


def redirect_failure(urls: list[str]) -> str:
    """`redirect-loop` when the chain came back to a URL it had visited, else `too-many-redirects`."""
    return "redirect-loop" if len(set(urls)) < len(urls) else "too-many-redirects"


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


def js_required(body: bytes, content_type: str | None = None) -> bool:
    """A page with (almost) no visible text whose scripts send the browser elsewhere or build the page.

    Callers first rule out pages that state a DOI: a head-only landing page is still a landing page.
    """
    scripts, words = _scripts_and_words(body, content_type)
    if not scripts:
        return False
    return words == 0 or (words <= 30 and any(_JS_LOCATION.search(s) for s in scripts))


def _scripts_and_words(body: bytes, content_type: str | None) -> tuple[list[str], int]:
    # A page's script texts and how many words it shows; nothing for what does not parse as HTML.
    try:
        doc = lxml.html.document_fromstring(html_to_unicode(content_type, body)[1])
    except (lxml.etree.ParserError, ValueError):
        return [], 0
    text = " ".join(doc.xpath("//body//text()[not(ancestor::script or ancestor::style or ancestor::noscript)]"))
    return [s.text_content() for s in doc.iter("script")], len(text.split())


def script_location(body: bytes, content_type: str | None) -> str | None:
    """Where a script-only redirect page sends the browser, when its script names the target literally.

    Only `<script>` elements count (never onclick handlers, which real pages are full of), only pages with
    at most 30 visible words, and only a string literal, never a computed URL. Callers first rule out pages
    that state their DOI.
    """
    scripts, words = _scripts_and_words(body, content_type)
    for script in scripts if words <= 30 else ():
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
