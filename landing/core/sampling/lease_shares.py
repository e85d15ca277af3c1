"""A worker's share of a run's shared frontier: how many of its DOIs one worker may hold leased at once, so that the
worker that starts first cannot lease a small run's every DOI before the others join (docs/production.md "Several
workers")."""

from math import ceil


def lease_share(pending: int, leased: int, workers: int) -> int:
    """The most DOIs one of `workers` may hold leased: those the frontier holds, queued or leased by any worker,
    divided evenly, rounded up (so a worker alone with what is left takes it all).

    >>> lease_share(100, 0, 2)
    50
    >>> lease_share(0, 7, 2)
    4
    >>> lease_share(1, 0, 2)
    1
    >>> lease_share(100, 0, 1)
    100
    """
    return ceil((pending + leased) / max(1, workers))


def lease_room(pending: int, leased: int, held: int, workers: int) -> int:
    """How many more DOIs a worker holding `held` leases may lease now: its share less what it holds, at most what is
    queued. A worker holding none may always lease one, so a worker alone finishes a run whatever LANDING_WORKERS says.

    >>> lease_room(100, 0, 0, 2)  # the first worker, before the second joins: half
    50
    >>> lease_room(50, 50, 0, 2)  # the second, once the first holds its half
    50
    >>> lease_room(50, 50, 50, 2)  # the first, holding its half, leases again once its visits are stored
    0
    >>> lease_room(50, 10, 10, 2)  # 40 of them stored: 20 more for it (its 30 of the 60 left)
    20
    >>> lease_room(3, 0, 0, 2)
    2
    >>> lease_room(1, 0, 0, 2)
    1
    >>> lease_room(0, 9, 0, 2)  # nothing queued: nothing to lease
    0
    """
    return max(0, min(pending, lease_share(pending, leased, workers) - held))
