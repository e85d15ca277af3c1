"""File names for the report's pages: a member's or a domain's key as a name safe on any filesystem and in a URL.

Keys come from outside (member ids from the listings, hosts from redirects), so a slug keeps only lower-case ASCII
letters, digits, `.`, `_` and `-`, and writes every other byte as `%XX`: two keys never share a slug (within a
kind: members and domains have their own directories), and case-blind filesystems cannot merge two slugs.
"""

import hashlib

_SAFE = frozenset("abcdefghijklmnopqrstuvwxyz0123456789._-")
_MOST = 200  # characters: with `.html` or a table's suffix a name stays well under the usual 255-byte limit
_HASHED = 16  # hex digits of SHA-256 kept in a shortened slug


def _encoded(text: str, safe: frozenset[str]) -> str:
    out = []
    for char in text:
        if char in safe:
            out.append(char)
        else:
            out.extend(f"%{byte:02X}" for byte in char.encode("utf-8", "surrogatepass"))
    return "".join(out)


def slug(key: str) -> str:
    """The file name (without extension) of a member's page (`<ra>/<id>`) or a domain's (a host).

    >>> slug("crossref/331332"), slug("datacite/cern.zenodo"), slug("link.orchid-riverside-5.example")
    ('crossref-331332', 'datacite-cern.zenodo', 'link.orchid-riverside-5.example')
    >>> slug("datacite/BL.UCL"), slug("crossref/a/b"), slug("bücher.example"), slug("..")
    ('datacite-%42%4C.%55%43%4C', 'crossref-a%2Fb', 'b%C3%BCcher.example', '%2E.')

    The first `/` of a member key becomes `-`; a `-` before it is escaped, so the split stays readable back:

    >>> slug("a-b/c") != slug("a/b-c"), slug("a-b/c")
    (True, 'a%2Db-c')

    A very long key keeps its start and a hash of the whole (`~` appears in no other slug):

    >>> long = slug("x" * 300 + ".example"); len(long), long[180:181]
    (197, '~')
    """
    if "/" in key:
        ra, rest = key.split("/", 1)
        made = _encoded(ra, _SAFE - {"-"}) + "-" + _encoded(rest, _SAFE)
    else:
        made = _encoded(key, _SAFE)
    if made.startswith("."):  # never `.`, `..` or a hidden file
        made = "%2E" + made[1:]
    if len(made) > _MOST:
        digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:_HASHED]
        made = made[:180] + "~" + digest
    return made
