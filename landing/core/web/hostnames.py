"""Hostname grammar: which hosts may be a domain in an artifact, a report or a diff."""

import ipaddress
import re
from functools import lru_cache

import idna

# Letters, digits and inner hyphens (RFC 1123), and underscores: DNS carries them, browsers and Scrapy resolve them,
# and real sites use them (`my_journal.example.org`), while they mean nothing to a spreadsheet or a terminal.
_LDH_LABEL = re.compile(r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?", re.IGNORECASE)
_NUMERIC_LABEL = re.compile(r"(?:0x[0-9a-f]*|[0-9]+)", re.IGNORECASE)
_MAX_NAME = 253  # RFC 1035 2.3.4: 255 octets on the wire, 253 characters as text


def _ascii_label(label: str) -> str | None:
    """The label's A-label form when it is a valid LDH, punycode or IDNA 2008 label, else None."""
    if label.isascii():
        if not _LDH_LABEL.fullmatch(label):
            return None
        if label[:4].lower() == "xn--":  # an A-label must decode to a valid U-label
            try:
                idna.ulabel(label)
            except (idna.IDNAError, UnicodeError):
                return None
        return label
    try:  # a U-label: IDNA 2008 refuses control, bidi-override and other disallowed code points
        return idna.alabel(label).decode("ascii")
    except (idna.IDNAError, UnicodeError):
        return None


def valid_hostname(host: str | None) -> bool:
    """Whether a host (as `urlsplit(url).hostname` gives it) is a DNS name of LDH or IDNA labels, or an IP literal.

    >>> valid_hostname("my_journal.example.org")
    True

    >>> [valid_hostname(h) for h in ("journals.plos.org", "xn--bcher-kva.example", "bücher.example", "127.0.0.1")]
    [True, True, True, True]
    >>> [valid_hostname(h) for h in ("=1+2.evil.example", "$a__b$.evil.example", "a\\x1bb.example", "-a.example")]
    [False, False, False, False]
    >>> [valid_hostname(h) for h in ("a\\u202eb.example", "999.1.2.3", "1.2.3", "example..org", "", None)]
    [False, False, False, False, False, False]
    """
    return isinstance(host, str) and bool(host) and _valid(host)


# A crawl or an export asks about the same few thousand hosts again and again: each is checked once.
@lru_cache(maxsize=1 << 16)
def _valid(host: str) -> bool:
    if ":" in host:  # urlsplit drops an IPv6 literal's brackets; a zone id ("%eth0") could carry anything
        try:
            return "%" not in host and bool(ipaddress.IPv6Address(host))
        except ValueError:
            return False
    name = host[:-1] if host.endswith(".") else host  # one trailing dot: the same name, fully qualified
    labels = name.split(".")
    if _NUMERIC_LABEL.fullmatch(labels[-1]):  # WHATWG URL: a numeric last label makes the host an IPv4 address
        try:
            ipaddress.IPv4Address(name)
        except ValueError:
            return False
        return True
    ascii_labels = [_ascii_label(label) for label in labels]
    return None not in ascii_labels and len(".".join(ascii_labels)) <= _MAX_NAME
