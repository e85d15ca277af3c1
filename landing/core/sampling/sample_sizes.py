"""How many DOIs to sample from each member (Crossref) or client (DataCite), and how its prefixes share them.

The budget rule (docs/crawl.md "Sampling"): an owner's budget is its proportional sample (`sample_size`), raised
to `per_prefix` DOIs for each prefix its listing names when that is more (never above its DOI count). Its
member-wide sample comes first; each listed prefix it left with fewer than `per_prefix` DOIs is then sampled on
its own (`short_prefixes`), and `compose` keeps every prefix's floor and fills the rest of the budget from the
member-wide sample, so a member's small prefixes cost visits only where its sample missed them.
"""


def sample_size(total: int, largest: int, minimum: int, maximum: int) -> int:
    """DOIs to sample from an owner with `total` DOIs, when the largest owner has `largest`.

    Proportional to total, scaled so the largest owner gets `maximum`; never below `minimum`
    unless the owner has fewer DOIs than that, in which case all of them.
    """
    if total <= 0:
        return 0
    if largest <= 0:
        return min(total, minimum)
    scaled = round(maximum * total / largest)
    return min(total, max(minimum, scaled), max(maximum, minimum))


def budget(size: int, prefixes: int, per_prefix: int, total: int) -> int:
    """The owner's budget: its proportional `size`, or `per_prefix` for each of its `prefixes` if that is more,
    never above its `total` DOIs (an owner with no DOIs gets nothing)."""
    if total <= 0:
        return 0
    return max(size, min(total, prefixes * per_prefix))


def prefix_of(doi: str) -> str:
    """A normalised DOI's prefix (`10.1234` of `10.1234/abc`)."""
    return doi.partition("/")[0]


def short_prefixes(dois: list[str], prefixes: list[str], per_prefix: int) -> dict[str, int]:
    """The listed prefixes with fewer than per_prefix of these DOIs, each with how many it has."""
    if per_prefix <= 0:
        return {}
    have = {prefix: 0 for prefix in prefixes}
    for doi in dois:
        prefix = prefix_of(doi)
        if prefix in have:
            have[prefix] += 1
    return {prefix: n for prefix, n in have.items() if n < per_prefix}


def compose(
    dois: list[str], topped: dict[str, list[str]], prefixes: list[str], per_prefix: int, size: int
) -> list[str]:
    """The owner's sample: each listed prefix's first per_prefix DOIs (the member-wide sample's, then its own
    sample's), then the member-wide sample's others in its order up to `size` in all; each DOI once.

    The floors are kept even past `size` (the budget already counts them); order: the member-wide sample's
    DOIs as it gave them, then the prefixes' own.
    """
    member = list(dict.fromkeys(dois))
    taken, extra = set(member), []
    for prefix in prefixes:
        for doi in topped.get(prefix, ()):
            if prefix_of(doi) == prefix and doi not in taken:  # an API's stray DOI of another prefix is not its
                taken.add(doi)
                extra.append(doi)
    floor, counts = set(), {prefix: 0 for prefix in prefixes}
    for doi in member + extra:
        prefix = prefix_of(doi)
        if prefix in counts and counts[prefix] < per_prefix:
            counts[prefix] += 1
            floor.add(doi)
    room = max(0, size - len(floor))
    chosen = set(floor)
    for doi in member:
        if room <= 0:
            break
        if doi not in chosen:
            chosen.add(doi)
            room -= 1
    return [doi for doi in member + extra if doi in chosen]
