"""Owners' names as the registries' listings give them (a Crossref member's `primary-name`; a DataCite client's name,
its provider's id and name), and the keys each kind of document keeps them under. Names are text from outside: kept
as given but for white space and length, and shown only through landing.core.web.labels.printable."""

from typing import NamedTuple

from landing.core.web.labels import printable

LONGEST = 300  # characters kept of a name: a listing's name is a label, never a page of text


class Names(NamedTuple):
    """An owner's names; None where the listing gives none (Crossref has no providers)."""

    name: str | None = None
    provider_id: str | None = None
    provider_name: str | None = None


UNKNOWN = Names()

# The keys of each kind of document that keeps an owner's names (docs/data-model.md).
KEYS = {
    "pid": ("pid/member-name", "pid/provider-id", "pid/provider-name"),
    "sample": ("sample/owner-name", "sample/provider-id", "sample/provider-name"),
    "prefix": ("prefix/owner-name", "prefix/provider-id", "prefix/provider-name"),
    "report": ("report/name", "report/provider-id", "report/provider-name"),
}


def cleaned(value) -> str | None:
    """A name as kept: a string with its runs of white space made one space, at most LONGEST characters; None for
    anything else, or nothing but white space.

    >>> cleaned("  Harbour\\n Lane   Press "), cleaned(""), cleaned(42), cleaned(None)
    ('Harbour Lane Press', None, None, None)
    """
    if not isinstance(value, str):
        return None
    return " ".join(value.split())[:LONGEST] or None


def keyed(kind: str, names: Names) -> dict:
    """The names as the keys of a document of `kind`.

    >>> keyed("sample", Names("Harbour Lane Press"))
    {'sample/owner-name': 'Harbour Lane Press', 'sample/provider-id': None, 'sample/provider-name': None}
    """
    return dict(zip(KEYS[kind], names))


def read(kind: str, doc: dict) -> Names:
    """The names a document of `kind` keeps; UNKNOWN for one written before it kept them."""
    name, provider_id, provider_name = KEYS[kind]
    return Names(doc.get(name), doc.get(provider_id), doc.get(provider_name))


def labelled(key: str, name: str | None) -> str:
    """How an owner is shown: `name (key)`, or its key alone when it has no name; printable either way.

    >>> labelled("crossref/4242", "Harbour Lane Press"), labelled("datacite/a.b", None)
    ('Harbour Lane Press (crossref/4242)', 'datacite/a.b')
    """
    return printable(f"{name} ({key})" if name else key)


class Latest:
    """Each key's names from the most recent document that had any (`stamp`: when its sample was taken), so that an
    owner renamed between runs shows its newer name, whatever order documents come in."""

    __slots__ = ("found",)

    def __init__(self):
        self.found: dict[str, tuple[str, Names]] = {}

    def add(self, key: str, stamp: str, names: Names) -> None:
        held = self.found.get(key)
        if held is not None:
            # Most calls: another DOI of the same sample, the same names.
            if stamp < held[0] or names == UNKNOWN or (stamp == held[0] and names == held[1]):
                return
            if stamp == held[0] and _rank(names) < _rank(held[1]):  # equal stamps: the same winner in any order
                return
        elif names == UNKNOWN:
            return
        self.found[key] = (stamp, names)

    def of(self, key: str) -> Names:
        held = self.found.get(key)
        return UNKNOWN if held is None else held[1]


def _rank(names: Names) -> tuple:
    return tuple(part or "" for part in names)
