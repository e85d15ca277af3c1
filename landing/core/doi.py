"""DOI rules: normalise, prefix, and the expressions a page may use to state a DOI."""
from urllib.parse import quote, unquote

# Best first, as DESIGN.md ranks them.
EXPRESSIONS = ("https-doi", "https-dx-doi", "http-doi", "http-dx-doi", "doi-scheme", "non-url")

_RESOLVER_PREFIXES = {
    "https-doi": "https://doi.org/",
    "https-dx-doi": "https://dx.doi.org/",
    "http-doi": "http://doi.org/",
    "http-dx-doi": "http://dx.doi.org/",
    "doi-scheme": "doi:",
    "non-url": "",
}


def normalise(doi: str) -> str:
    """Bare, lower-case, percent-decoded form of a DOI given in any common form."""
    value = unquote(doi.strip())
    lowered = value.lower()
    for start in ("https://", "http://"):
        if lowered.startswith(start):
            rest = lowered[len(start):]
            for host in ("doi.org/", "dx.doi.org/"):
                if rest.startswith(host):
                    return rest[len(host):]
    if lowered.startswith("doi:"):
        return lowered[4:].strip()
    return lowered


def prefix(doi: str) -> str:
    """The registrant prefix of a DOI (`10.1371` of `10.1371/journal.pone.0160617`)."""
    return normalise(doi).split("/", 1)[0]


def express(doi: str, expression: str, encoded: bool = False) -> str:
    """Write a DOI the way `expression` names; `encoded` percent-encodes its suffix."""
    bare = doi
    if encoded:
        head, _, tail = doi.partition("/")
        bare = head + "%2F" + quote(tail, safe="")
    return _RESOLVER_PREFIXES[expression] + bare


def best_expression(found) -> str | None:
    """The best of several expressions (DESIGN.md order), or None if there are none."""
    found = set(found)
    ranked = [e for e in EXPRESSIONS if e in found]
    return ranked[0] if ranked else None
