"""Which of a DOI's analyses counts: its latest visit that reached a page, else its latest visit. The reports, the
artifacts, continuous mode's signals and the retention all count a DOI by this one rule."""

from collections.abc import Iterable, Iterator


def current(analyses: Iterable[dict]) -> Iterator[dict]:
    """One analysis per DOI from a stream in id order (a DOI's documents are adjacent): the latest visit that
    reached a page, else the latest visit. A DOI visited by both drivers, or on several days, counts once.

    >>> stream = [
    ...     {"pid/doi": "10.1/a", "snapshot/timestamp": "2030-01-02", "snapshot/error": "timeout"},
    ...     {"pid/doi": "10.1/a", "snapshot/timestamp": "2030-01-01", "snapshot/error": None},
    ...     {"pid/doi": "10.1/b", "snapshot/timestamp": "2030-01-01", "snapshot/error": "dns"},
    ... ]
    >>> [(doc["pid/doi"], doc["snapshot/timestamp"]) for doc in current(stream)]
    [('10.1/a', '2030-01-01'), ('10.1/b', '2030-01-01')]
    """
    best = None
    for doc in analyses:
        if best is not None and doc["pid/doi"] != best["pid/doi"]:
            yield best
            best = None
        if best is None or _rank(doc) > _rank(best):
            best = doc
    if best is not None:
        yield best


def _rank(doc: dict) -> tuple:
    return doc.get("snapshot/error") is None, doc.get("snapshot/timestamp") or ""
