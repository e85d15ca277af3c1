"""Rotating samples: a prefix's refresh revisits one DOI per site known for it (its panel) and fills the rest of its
size with DOIs not drawn before, so what is known of a prefix grows with every round. docs/continuous.md "Rotating
samples"."""

import math
from base64 import urlsafe_b64encode
from collections.abc import Collection, Iterable, Sequence
from hashlib import blake2b

from landing.core.publishing.aggregation import followed_domain
from landing.core.publishing.current_analysis import current

KEY_CHARS = 4  # a drawn DOI's key: 24 bits of its hash in base64, so a record is one short string
DRAWN_KEEP = 256  # keys a prefix document remembers, the latest: 1 KiB of JSON at most
SITES_KEEP = 200  # sites a prefix document lists: a prefix on more (a hosting service's) keeps its latest
FRESH_SHARE = 5  # at least a fifth of a refresh (and at least one DOI) is drawn fresh, whatever the panel holds


def drawn_key(doi: str) -> str:
    """A drawn DOI as the prefix document remembers it: 24 bits of its hash (a collision only makes one DOI look
    drawn before: it is then taken after the fresh ones, never lost).

    >>> drawn_key("10.1/a"), len(drawn_key("10.1/b")) == KEY_CHARS
    ('mKaG', True)
    """
    return urlsafe_b64encode(blake2b(doi.encode(), digest_size=3).digest()).decode()


def drawn_keys(record: str) -> frozenset[str]:
    """The keys a record of drawn DOIs (`prefix/drawn-keys`, their keys end to end) holds.

    >>> sorted(drawn_keys(drawn_key("10.1/a") + drawn_key("10.1/b"))) == sorted([drawn_key("10.1/a"), drawn_key("10.1/b")])
    True
    """
    return frozenset(record[n : n + KEY_CHARS] for n in range(0, len(record), KEY_CHARS))


def panel_size(size: int) -> int:
    """How many panel DOIs a refresh of `size` DOIs revisits: all but its fresh share.

    >>> panel_size(10), panel_size(4), panel_size(1), panel_size(0)
    (8, 3, 0, 0)
    """
    return max(0, size - max(1, math.ceil(size / FRESH_SHARE)))


def revisited(panel: Sequence[str], size: int) -> list[str]:
    """The panel DOIs a refresh of `size` revisits: the first `panel_size` of them (the panel lists first the DOIs
    the last refresh left out, so a panel longer than that is revisited in turn).

    >>> revisited(["a", "b", "c"], 10), revisited(["a", "b", "c"], 3)
    (['a', 'b', 'c'], ['a', 'b'])
    """
    return list(panel)[: panel_size(size)]


def drawn_fresh(panel: Sequence[str], dois: Sequence[str], record: str, size: int) -> list[str]:
    """A refresh's DOIs from the API's sample `dois`: the panel first, then DOIs not in the `record` of those drawn
    before, then the drawn ones (a prefix with few DOIs is sampled whole again), `size` in all (the panel whole).

    >>> drawn_fresh(["a"], ["b", "a", "c", "d"], drawn_key("b"), 3)
    ['a', 'c', 'd']
    >>> drawn_fresh(["a"], ["b", "a"], drawn_key("b"), 3)
    ['a', 'b']
    """
    chosen, drawn = list(dict.fromkeys(panel)), drawn_keys(record)
    others = [doi for doi in dict.fromkeys(dois) if doi not in set(chosen)]
    chosen += [doi for doi in others if drawn_key(doi) not in drawn]
    chosen += [doi for doi in others if drawn_key(doi) in drawn]
    return chosen[: max(size, len(panel))]


def reached(latest: Iterable[dict]) -> dict[str, str]:
    """{DOI: the domain its latest visit led to} of a round's analyses (one per DOI, as reports count them), as the
    artifacts name it whatever the visit's class (a site that answers a crawler with errors is still its site); a
    visit that never left the resolver leads nowhere.

    >>> reached([{"pid/doi": "10.1/a", "snapshot/final-url-domain": "a.example", "snapshot/error": "http-4xx",
    ...           "snapshot/resource-url": "https://a.example/1"},
    ...          {"pid/doi": "10.1/b", "snapshot/final-url-domain": "doi.org", "snapshot/error": "http-4xx",
    ...           "snapshot/resource-url": None}])
    {'10.1/a': 'a.example'}
    """
    ordered = sorted(latest, key=lambda doc: doc.get("pid/doi") or "")
    return {doc["pid/doi"]: domain for doc in current(ordered) if (domain := followed_domain(doc))}


def sites_after(
    sites: dict[str, str | None], dois: Sequence[str], where: dict[str, str], keep: int = SITES_KEEP
) -> dict[str, str | None]:
    """Every site seen for a prefix, each with the DOI that shows it (None once that DOI leads elsewhere and no other
    of the round's DOIs reached it), after a round whose `dois` reached `where` ({DOI: domain}); past `keep` sites,
    those no DOI shows any more go first, then the earliest seen.

    >>> sites_after({"a.example": "10.1/a"}, ["10.1/a", "10.1/b"], {"10.1/a": "new.example", "10.1/b": "b.example"})
    {'a.example': None, 'new.example': '10.1/a', 'b.example': '10.1/b'}
    >>> sites_after({"a.example": "10.1/a", "b.example": "10.1/b"}, ["10.1/a"], {"10.1/a": "c.example"}, keep=2)
    {'b.example': '10.1/b', 'c.example': '10.1/a'}
    """
    found = {site: None if doi in where and where[doi] != site else doi for site, doi in sites.items()}
    for doi in dois:
        domain = where.get(doi)
        if domain and found.get(domain) is None:
            found[domain] = doi
    excess = len(found) - keep
    for site in sorted(found, key=lambda site: found[site] is not None)[: max(0, excess)]:
        del found[site]
    return found


def panel_of(sites: dict[str, str | None], earlier: Sequence[str], revisits: Collection[str]) -> list[str]:
    """The panel: one DOI per site that has one, those the last refresh did not revisit first (then in the earlier
    panel's order), so that a refresh too small for every site revisits them in turn.

    >>> panel_of({"a.example": "a", "b.example": "b", "c.example": "c", "gone.example": None}, ["a", "b"], {"a", "c"})
    ['b', 'a', 'c']
    """
    rank = {doi: n for n, doi in enumerate(earlier)}
    dois = list(dict.fromkeys(doi for doi in sites.values() if doi))
    return sorted(dois, key=lambda doi: (doi in revisits, rank.get(doi, len(rank))))


def learnt(doc: dict, sample: dict, latest: Iterable[dict]) -> dict:
    """What a round adds to a prefix's document (kind `prefix`): its sites (`prefix/sites`: domain -> the DOI that
    shows it), its panel, how many distinct DOIs were drawn (`prefix/drawn`) and their keys (`prefix/drawn-keys`,
    the latest DRAWN_KEEP), and one more round (`prefix/rounds`: retention drops closed rounds' samples). `latest`:
    the round's analyses of the sample's DOIs.

    >>> doc = {"prefix/panel": [], "prefix/drawn": 0}
    >>> sample = {"sample/dois": ["10.1/a", "10.1/b", "10.1/c"]}
    >>> visits = [{"pid/doi": d, "snapshot/final-url-domain": s, "snapshot/error": None, "snapshot/resource-url": "r"}
    ...           for d, s in (("10.1/a", "a.example"), ("10.1/b", "a.example"), ("10.1/c", "c.example"))]
    >>> after = learnt(doc, sample, visits)
    >>> after["prefix/sites"], after["prefix/panel"], after["prefix/drawn"], len(drawn_keys(after["prefix/drawn-keys"]))
    ({'a.example': '10.1/a', 'c.example': '10.1/c'}, ['10.1/a', '10.1/c'], 3, 3)
    >>> after["prefix/rounds"], learnt(after, sample, visits)["prefix/rounds"]
    (1, 2)
    """
    dois = list(sample.get("sample/dois") or ())
    sites = sites_after(dict(doc.get("prefix/sites") or {}), dois, reached(latest))
    record = doc.get("prefix/drawn-keys") or ""
    known = drawn_keys(record)
    new = [key for key in dict.fromkeys(drawn_key(doi) for doi in dois) if key not in known]
    return {
        "prefix/sites": sites,
        "prefix/panel": panel_of(sites, doc.get("prefix/panel") or (), set(dois)),
        "prefix/drawn": int(doc.get("prefix/drawn") or 0) + len(new),
        "prefix/drawn-keys": (record + "".join(new))[-DRAWN_KEEP * KEY_CHARS :],
        "prefix/rounds": int(doc.get("prefix/rounds") or 0) + 1,
    }


def seen(doc: dict) -> tuple[int, int]:
    """(distinct DOIs drawn, distinct sites seen) of a prefix document.

    >>> seen({"prefix/drawn": 12, "prefix/sites": {"a.example": "10.1/a", "b.example": None}}), seen({})
    ((12, 2), (0, 0))
    """
    return int(doc.get("prefix/drawn") or 0), len(doc.get("prefix/sites") or ())
