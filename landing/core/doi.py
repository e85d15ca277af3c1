"""DOI rules: normalise, prefix, and the expressions a page may use to state a DOI."""
import re
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


# A value that is one DOI: an optional lead (resolver URL, `doi:` scheme, `DOI:` label, `info:doi/`), then the DOI.
_VALUE = re.compile(r"(?P<lead>https?://(?:dx\.)?doi\.org/|doi\s*:\s*|doi\s+|info:doi/)?(?P<bare>10\.\d{4,9}/\S+)",
                    re.IGNORECASE)
_SHAPE = re.compile(r"10\.\d{4,9}/\S+")
# In running text a DOI starts on a boundary (not inside 110.5555/...) and runs to whitespace or a quote.
_CANDIDATE = re.compile(r"(?<![\w.\-])10\.\d{4,9}/[^\s\"'\u201c\u201d\u2018\u2019\u00ab\u00bb]+")
_BY_LEAD = {lead: name for name, lead in _RESOLVER_PREFIXES.items() if lead}
_TRAILING = ".,;:!?"
_CLOSERS = {")": "(", "]": "[", "}": "{"}


def _lead_expression(lead: str | None) -> str:
    # `doi:` glued to the DOI is the URI scheme; `doi: 10.x`, `DOI 10.x` and `info:doi/` are labels (non-url):
    # info:doi/ is a retired URI namespace that no browser or resolver follows.
    return _BY_LEAD.get(lead.lower(), "non-url") if lead else "non-url"


def split_expression(value: str) -> tuple[str, str] | None:
    """(expression, bare lower-case DOI) when value is exactly one DOI in some form, else None."""
    if "%" in value:
        value = unquote(value)
    if "10." not in value:
        return None  # most hrefs: not worth a regex
    match = _VALUE.fullmatch(value.strip())
    return (_lead_expression(match["lead"]), match["bare"].lower()) if match else None


def _trim(found: str) -> str:
    """Drop sentence punctuation and unbalanced closing brackets from the end of a DOI found in text."""
    while found and (found[-1] in _TRAILING or
                     (found[-1] in _CLOSERS and found.count(found[-1]) > found.count(_CLOSERS[found[-1]]))):
        found = found[:-1]
    return found


def find_dois(text: str) -> list[str]:
    """Every distinct DOI in text, normalised, first seen first; `10.5555/1234.supp` is not `10.5555/1234`."""
    decoded = unquote(text) if "%" in text else text
    found = (_trim(match.group()) for match in _CANDIDATE.finditer(decoded))
    return list(dict.fromkeys(doi.lower() for doi in found if _SHAPE.fullmatch(doi)))


def find_expressions(text: str, doi: str) -> list[str]:
    """The expression of each occurrence of doi in text, from what immediately precedes it."""
    decoded = unquote(text) if "%" in text else text
    own = normalise(doi)
    out = []
    # Only where doi itself starts can a DOI equal to it start: no need to scan every reference.
    for start in (m.start() for m in re.finditer(re.escape(own), decoded, re.IGNORECASE)):
        match = _CANDIDATE.match(decoded, start)
        if match and _trim(match.group()).lower() == own:
            head = decoded[max(0, start - 20):start].lower()
            out.append(next((name for lead, name in _BY_LEAD.items() if head.endswith(lead)), "non-url"))
    return out


def resolver_path(doi: str) -> str:
    """A DOI as the path of a resolver URL: `?`, `#`, `%`, `<>` and spaces escaped, the characters DOIs use kept."""
    return quote(doi, safe="/:;()[]")
