"""DOI rules: the resolver's host names, normalise, prefix, and the expressions a page may use to state a DOI."""

import re
from urllib.parse import quote, unquote

# The resolver's public host names: publishers and people link through any of them.
RESOLVER_HOSTS = frozenset({"doi.org", "dx.doi.org", "www.doi.org"})
# Any one of them, as a pattern to build regexes with.
RESOLVER_HOST = "(?:" + "|".join(map(re.escape, sorted(RESOLVER_HOSTS))) + ")"
_RESOLVER_URL = re.compile(rf"https?://{RESOLVER_HOST}/", re.IGNORECASE)

# Best first, as docs/design.md ranks them.
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
    """Bare, lower-case, percent-decoded form of a DOI given in any common form.

    >>> normalise("https://doi.org/10.1371/JOURNAL.PONE.0160617")
    '10.1371/journal.pone.0160617'
    >>> normalise("doi: 10.1002%2FAnie.201915678")
    '10.1002/anie.201915678'
    """
    lowered = unquote(doi.strip()).lower()
    if resolver := _RESOLVER_URL.match(lowered):
        return lowered[resolver.end() :]
    if lowered.startswith("doi:"):
        return lowered[4:].strip()
    return lowered


# A bare DOI as a registry should answer one: no space, no control character anywhere in it. The registrant code
# is any digits (sub-codes too): the shape, not its length, is what an API's junk lacks.
_BARE = re.compile(r"10\.\d+(?:\.\d+)*/[^\s\x00-\x1f\x7f]+")


def well_formed(doi: str) -> bool:
    """Whether a normalised DOI is one: `10.` a registrant code, `/`, and a suffix without space or control
    characters.

    >>> [well_formed(d) for d in ("10.1234/abc", "10.1234/a b", "not a doi", "10.1234/")]
    [True, False, False, False]
    """
    return isinstance(doi, str) and bool(_BARE.fullmatch(doi))


def prefix(doi: str) -> str:
    """The registrant prefix of a DOI.

    >>> prefix("https://doi.org/10.1371/journal.pone.0160617")
    '10.1371'
    """
    return normalise(doi).split("/", 1)[0]


def express(doi: str, expression: str, encoded: bool = False) -> str:
    """Write a DOI the way `expression` names; `encoded` percent-encodes its suffix.

    >>> express("10.1371/journal.pone.0160617", "https-dx-doi")
    'https://dx.doi.org/10.1371/journal.pone.0160617'
    >>> express("10.1002/(SICI)1097-4636", "doi-scheme", encoded=True)
    'doi:10.1002%2F%28SICI%291097-4636'
    """
    bare = doi
    if encoded:
        head, _, tail = doi.partition("/")
        bare = head + "%2F" + quote(tail, safe="")
    return _RESOLVER_PREFIXES[expression] + bare


def best_expression(found) -> str | None:
    """The best of several expressions (docs/design.md order), or None if there are none.

    >>> best_expression(["non-url", "http-dx-doi", "doi-scheme"])
    'http-dx-doi'
    """
    found = set(found)
    ranked = [e for e in EXPRESSIONS if e in found]
    return ranked[0] if ranked else None


# A value that is one DOI: an optional lead (resolver URL, `doi:` scheme, `DOI:` label, `info:doi/`), then the DOI.
_VALUE = re.compile(
    rf"(?P<lead>https?://{RESOLVER_HOST}/|doi\s*:\s*|doi\s+|info:doi/)?(?P<bare>10\.\d{{4,9}}/\S+)", re.IGNORECASE
)
_SHAPE = re.compile(r"10\.\d{4,9}/\S+")
# In running text a DOI starts on a boundary (not inside 110.5555/...) and runs to whitespace or a quote, for at
# most 1,000 characters (the longest real ones, SICIs, are near 100): a page of junk is no one DOI.
_CANDIDATE = re.compile(r"(?<![\w.\-])10\.\d{4,9}/[^\s\"'\u201c\u201d\u2018\u2019\u00ab\u00bb]{1,1000}")
_BY_LEAD = {lead: name for name, lead in _RESOLVER_PREFIXES.items() if lead}
# A lead that ends just before a DOI in running text.
_LEAD_BEFORE = re.compile(rf"(?:https?://{RESOLVER_HOST}/|doi:)\Z", re.IGNORECASE)
# A DOI never starts with these, so any of them in front is wrapping; at the end only unbalanced closers are.
_OPENERS = "\"'([{<\u201c\u2018\u00ab \t\r\n"
_TRAILING = ".,;:!?\"'\u201d\u2019\u00bb \t\r\n"
_CLOSERS = {")": "(", "]": "[", "}": "{", ">": "<"}


def _lead_expression(lead: str | None) -> str:
    # `doi:` glued to the DOI is the URI scheme; `doi: 10.x`, `DOI 10.x` and `info:doi/` are labels (non-url):
    # info:doi/ is a retired URI namespace that no browser or resolver follows. www.doi.org is doi.org by
    # another name, so its URLs are doi.org's expressions.
    return _BY_LEAD.get(lead.lower().replace("://www.", "://", 1), "non-url") if lead else "non-url"


def split_expression(value: str) -> tuple[str, str] | None:
    """(expression, bare lower-case DOI) when value is exactly one DOI in some form, else None.

    >>> split_expression("https://dx.doi.org/10.1371/Journal.pone.0160617")
    ('https-dx-doi', '10.1371/journal.pone.0160617')
    >>> split_expression("DOI: 10.1371/journal.pone.0160617")
    ('non-url', '10.1371/journal.pone.0160617')
    >>> split_expression("https://example.org/10.1371/journal.pone.0160617") is None
    True
    """
    if "%" in value:
        value = unquote(value)
    if "10." not in value:
        return None  # most hrefs: not worth a regex
    match = _VALUE.fullmatch(value.strip())
    return (_lead_expression(match["lead"]), match["bare"].lower()) if match else None


def unwrap(written: str) -> str:
    """A DOI as written, without the brackets, quotes, space and punctuation around it; a bracket it opened stays.

    >>> unwrap("(doi:10.1234/abc(1)).")
    'doi:10.1234/abc(1)'
    >>> unwrap("\u201c10.1371/journal.pone.0160617\u201d,")
    '10.1371/journal.pone.0160617'
    """
    if written and written[0] not in _OPENERS and written[-1] not in _TRAILING and written[-1] not in _CLOSERS:
        return written  # nothing around it: most DOIs and URLs in free text
    found = written.lstrip(_OPENERS)
    # One pass from the end, the brackets counted once: trimming one character at a time and counting again was
    # quadratic, and a DOI followed by a page of ")" held the event loop for seconds (bench/README.md).
    counts = {c: found.count(c) for pair in _CLOSERS.items() for c in pair}
    end = len(found)
    while end:
        last = found[end - 1]
        if last in _CLOSERS and counts[last] > counts[_CLOSERS[last]]:
            counts[last] -= 1
        elif last not in _TRAILING:
            break
        end -= 1
    return found[:end]


def find_dois(text: str) -> list[str]:
    """Every distinct DOI in text, normalised, first seen first; `10.5555/1234.supp` is not `10.5555/1234`.

    >>> find_dois("See 10.5555/1234.supp (and doi:10.5555/1234).")
    ['10.5555/1234.supp', '10.5555/1234']
    """
    decoded = unquote(text) if "%" in text else text
    found = (unwrap(match.group()) for match in _CANDIDATE.finditer(decoded))
    return list(dict.fromkeys(doi.lower() for doi in found if shaped(doi)))


def shaped(candidate: str) -> bool:
    """Whether a cut candidate has a DOI's shape: `10.`, a 4-9 digit registrant code, `/`, no whitespace after."""
    return bool(_SHAPE.fullmatch(candidate))


def find_expressions(text: str, doi: str) -> list[str]:
    """The expression of each occurrence of doi in text, from what immediately precedes it.

    >>> find_expressions("doi:10.5555/1 is https://www.doi.org/10.5555/1, not 10.5555/12", "10.5555/1")
    ['doi-scheme', 'https-doi']
    """
    decoded = unquote(text) if "%" in text else text
    own = normalise(doi)
    out = []
    # Only where doi itself starts can a DOI equal to it start: no need to scan every reference.
    for start in (m.start() for m in re.finditer(re.escape(own), decoded, re.IGNORECASE)):
        match = _CANDIDATE.match(decoded, start)
        if match and unwrap(match.group()).lower() == own:
            lead = _LEAD_BEFORE.search(decoded, max(0, start - 20), start)
            out.append(_lead_expression(lead and lead.group()))
    return out


def resolver_path(doi: str) -> str:
    """A DOI as the path of a resolver URL: `?`, `#`, `%`, `<>` and spaces escaped, the characters DOIs use kept.

    >>> resolver_path("10.1002/(sici)1097-4636(199706)35:4<481::aid-jbm8>3.0.co;2-d")
    '10.1002/(sici)1097-4636(199706)35:4%3C481::aid-jbm8%3E3.0.co;2-d'
    """
    return quote(doi, safe="/:;()[]")
