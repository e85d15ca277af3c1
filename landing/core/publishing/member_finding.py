"""Which member a person means: `scrapy report --member` takes a key, an id or a name (or a part of one)."""

from collections.abc import Iterable

SAID = 10  # members named when several match


def matching(ident: str, members: Iterable[dict]) -> list[dict]:
    """The members `ident` names, best kind of match only: the key (`crossref/340`); else an id only; else the
    whole name, case and spacing aside; else a part of the name.

    >>> ms = [{"member": "crossref/340", "id": "340", "name": "PLOS"}, {"member": "datacite/x.a", "id": "x.a",
    ...       "name": "PLOS Archive"}, {"member": "crossref/7", "id": "7", "name": None}]
    >>> [[m["member"] for m in matching(i, ms)] for i in ("crossref/340", "340", "plos", "archive", "Pl", "none")]
    [['crossref/340'], ['crossref/340'], ['crossref/340'], ['datacite/x.a'], ['crossref/340', 'datacite/x.a'], []]
    """
    wanted = " ".join(ident.casefold().split())
    kinds: list[list[dict]] = [[], [], [], []]
    for member in members:
        name = " ".join(str(member.get("name") or "").casefold().split())
        if member["member"] == ident:
            kinds[0].append(member)
        elif "/" not in ident and str(member.get("id", "")).casefold() == wanted:
            kinds[1].append(member)
        elif wanted and name == wanted:
            kinds[2].append(member)
        elif wanted and wanted in name:
            kinds[3].append(member)
    return next((found for found in kinds if found), [])


def said(found: list[dict]) -> str:
    """Several members that match, named in one line (the first SAID).

    >>> said([{"member": "crossref/1", "name": "A"}, {"member": "crossref/2", "name": None}])
    'crossref/1 (A), crossref/2'
    """
    named = [f"{m['member']} ({m['name']})" if m.get("name") else m["member"] for m in found[:SAID]]
    return ", ".join(named) + (f" and {len(found) - SAID} more" if len(found) > SAID else "")
