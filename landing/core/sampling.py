"""How many DOIs to sample from each member (Crossref) or client (DataCite)."""


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

