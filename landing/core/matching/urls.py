"""URL rules for the matcher: tracking-parameter removal, exact and basic equality, the subject URL."""

import re
import string
from urllib.parse import unquote, urljoin, urlsplit, urlunsplit

from w3lib.url import safe_url_string, url_query_cleaner

from landing.core.pages.documents import domain as domain  # re-exported: the artifacts' host rule, kept in one place

# Query parameters that only say how a visitor arrived, never which content to serve.
# Compared case-insensitively, after percent-decoding the name.
TRACKING_PARAMETERS = frozenset(
    {
        "fbclid",  # Facebook click id
        "gclid",
        "dclid",
        "gbraid",
        "wbraid",
        "gclsrc",  # Google Ads / Campaign Manager click ids
        "msclkid",  # Microsoft Ads click id
        "yclid",  # Yandex click id
        "twclid",  # Twitter/X click id
        "ttclid",  # TikTok click id
        "sccid",  # Snapchat click id (ScCid)
        "li_fat_id",  # LinkedIn first-party ad tracking
        "igshid",  # Instagram share id
        "mc_cid",
        "mc_eid",  # Mailchimp campaign and recipient
        "_ga",
        "_gl",  # Google Analytics cross-domain linker
        "_hsenc",
        "_hsmi",
        "__hstc",
        "__hssc",
        "__hsfp",  # HubSpot email and visitor cookies
        "hsctatracking",  # HubSpot call-to-action
        "mkt_tok",  # Marketo email
        "oly_anon_id",
        "oly_enc_id",  # Omeda email
        "vero_id",
        "vero_conv",  # Vero email
        "wt.mc_id",  # Webtrends campaign
        "s_cid",
        "s_kwcid",  # Adobe Analytics campaign / paid search
    }
)
# Whole families: utm_* (Google Analytics campaign), mtm_* (Matomo campaign).
TRACKING_PREFIXES = ("utm_", "mtm_")
# Deliberately absent: ref, source, id, doi, cid, cmpid, cookieSet, rc, from, share. On publisher sites
# such names select an article, a version or a view, or carry session state a redirect loop depends on.

_DEFAULT_PORTS = {"http": 80, "https": 443}
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_UNRESERVED = frozenset(string.ascii_letters + string.digits + "-._~")


def is_tracking(name: str) -> bool:
    """Whether a raw query-parameter name is a tracking parameter.

    >>> is_tracking("UTM%5FMedium"), is_tracking("fbclid"), is_tracking("ref")
    (True, True, False)
    """
    name = unquote(name).lower()
    return name in TRACKING_PARAMETERS or name.startswith(TRACKING_PREFIXES)


def strip_tracking(url: str) -> str:
    """The URL without tracking parameters; the rest keep their order, repeats and encoding.

    >>> strip_tracking("https://journals.plos.org/plosone/article?id=10.1371/journal.pone.0160617&utm_source=twitter")
    'https://journals.plos.org/plosone/article?id=10.1371/journal.pone.0160617'
    """
    query = url.partition("#")[0].partition("?")[2]
    names = {pair.partition("=")[0] for pair in query.split("&")}
    tracking = [name for name in names if is_tracking(name)]
    if not tracking:
        return url  # untouched, so a URL without tracking keeps even an empty "?" or "&&"
    # unique=False: the default keeps only the first of repeated names, which can change the content.
    return url_query_cleaner(url, tracking, remove=True, unique=False, keep_fragments=True)


def _normalise_escapes(part: str) -> str:
    """Decode escaped unreserved characters and upper-case the other escapes (RFC 3986, 6.2.2)."""

    def one(match):
        char = chr(int(match.group(1), 16))
        return char if char in _UNRESERVED else "%" + match.group(1).upper()

    return _ESCAPE.sub(one, part)


def _host(parts) -> str:
    """Lower-case host, with its port only when the port is not the scheme's default."""
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host  # urlsplit drops an IPv6 address's brackets
    port = parts.port
    return host if port is None or port == _DEFAULT_PORTS.get(parts.scheme) else f"{host}:{port}"


def exact_key(url: str) -> str:
    """Key for "exactly this URL": only RFC 9110 (4.2.3) normalisations, which keep the resource, and no tracking.

    >>> exact_key("HTTPS://Journals.PLOS.org:443/plosone/article?id=10.1371%2fjournal.pone.0160617&utm_source=x#top")
    'https://journals.plos.org/plosone/article?id=10.1371%2Fjournal.pone.0160617'
    """
    parts = urlsplit(safe_url_string(strip_tracking(url)))  # safe_url_string: IDNA host, escape spaces, non-ASCII
    userinfo, at, _ = parts.netloc.rpartition("@")
    # Query order and path case stay significant: servers may read either. An empty "?" is dropped.
    return urlunsplit(
        (
            parts.scheme,
            userinfo + at + _host(parts),
            _normalise_escapes(parts.path) or "/",
            _normalise_escapes(parts.query),
            "",
        )
    )


def basic_key(url: str) -> str:
    """Host and path, case-insensitive, without scheme, query, fragment, default port or trailing slash.

    >>> basic_key("https://www.Nature.com/articles/S41586-020-2649-2/?error=cookies_not_supported")
    'www.nature.com/articles/s41586-020-2649-2'
    """
    parts = urlsplit(safe_url_string(url))
    # `www.` is kept: www.example.org is another host name, which may serve another site.
    return (_host(parts) + _normalise_escapes(parts.path).rstrip("/")).lower()


def _same(key, a: str, b: str) -> bool:
    """Whether two URLs have the same key; False when either cannot be parsed."""
    try:
        return key(a) == key(b)
    except ValueError:  # a bad port: a URL that names no resource equals nothing
        return False


def same_basic(a: str, b: str) -> bool:
    """Whether two URLs share host and path, loosely (see basic_key); both hosts are compared.

    >>> same_basic("http://www.nature.com/articles/nature12373/", "https://WWW.nature.com/articles/nature12373?code=1")
    True
    """
    return _same(basic_key, a, b)


def one_canonical(base: str | None, canonicals: list[str]) -> str | None:
    """The page's one http(s) canonical link, resolved against its URL; None when it has none or several that differ.

    >>> one_canonical("https://www.nature.com/articles/nature12373?x=1", ["/articles/nature12373", " "])
    'https://www.nature.com/articles/nature12373'
    """
    distinct = {}
    for canonical in map(str.strip, canonicals):
        resolved = urljoin(base or "", canonical)
        # A blank href resolves to the page itself, which says nothing; other schemes are not web pages.
        if canonical and urlsplit(resolved).scheme in _DEFAULT_PORTS:
            try:
                distinct.setdefault(exact_key(resolved), resolved)
            except ValueError:  # a bad port: no canonical at all
                continue
    # Two different canonicals contradict each other: trust neither.
    return next(iter(distinct.values())) if len(distinct) == 1 else None


def subject_url(visited: str, final: str | None, canonicals: list[str]) -> str:
    """The page's one http(s) canonical link, else the final URL without tracking, else the visited URL.

    >>> subject_url("https://doi.org/10.1038/nature12373",
    ...             "https://www.nature.com/articles/nature12373?error=cookies_not_supported",
    ...             ["/articles/nature12373"])
    'https://www.nature.com/articles/nature12373'
    """
    return one_canonical(final or visited, canonicals) or (strip_tracking(final) if final else visited)
