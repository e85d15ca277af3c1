"""Which of a DOI's analyses counts: its latest visit that reached a page, unless a later one failed on another
domain (the DOI moved), else its latest visit. The reports, the artifacts, continuous mode's signals and the retention
all count a DOI by this one rule."""

from collections.abc import Iterable, Iterator

from landing.core.publishing.aggregation import followed_domain


def current(analyses: Iterable[dict]) -> Iterator[dict]:
    """One analysis per DOI from a stream in id order (a DOI's documents are adjacent): the latest visit that
    reached a page, else the latest visit. A DOI visited by both drivers, or on several days, counts once.

    A later visit that failed on another domain than the page reached counts instead: the DOI now leads there (a site
    moved to a platform that refuses robots, or is down), which a failure on the same domain (a timeout) does not say.

    >>> stream = [
    ...     {"pid/doi": "10.1/a", "snapshot/timestamp": "2030-01-02", "snapshot/error": "timeout"},
    ...     {"pid/doi": "10.1/a", "snapshot/timestamp": "2030-01-01", "snapshot/error": None},
    ...     {"pid/doi": "10.1/b", "snapshot/timestamp": "2030-01-01", "snapshot/error": "dns"},
    ... ]
    >>> [(doc["pid/doi"], doc["snapshot/timestamp"]) for doc in current(stream)]
    [('10.1/a', '2030-01-01'), ('10.1/b', '2030-01-01')]
    """
    reached = latest = None  # of the DOI read now: its latest visit that reached a page, its latest visit
    for doc in analyses:
        if latest is not None and doc["pid/doi"] != latest["pid/doi"]:
            yield _chosen(reached, latest)
            reached = latest = None
        if latest is None or _when(doc) > _when(latest):
            latest = doc
        if doc.get("snapshot/error") is None and (reached is None or _when(doc) > _when(reached)):
            reached = doc
    if latest is not None:
        yield _chosen(reached, latest)


def _chosen(reached: dict | None, latest: dict) -> dict:
    if reached is None or latest.get("snapshot/error") is None or _when(latest) == _when(reached):
        return reached or latest
    moved = followed_domain(latest)
    return latest if moved is not None and moved != followed_domain(reached) else reached


def _when(doc: dict) -> str:
    return doc.get("snapshot/timestamp") or ""
