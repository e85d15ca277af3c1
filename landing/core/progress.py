"""How far a run is: the DOIs it will visit, the share visited, and the time left at the current rate."""


def expected_dois(planned: int, planned_sampled: int, sampled: int) -> int:
    """The DOIs a run will visit: its plan, each owner sampled so far counted by what its sample gave.

    >>> expected_dois(planned=100, planned_sampled=30, sampled=28)
    98
    """
    return max(planned - planned_sampled, 0) + sampled


def time_left(done: int, total: int, rate: float) -> float | None:
    """Seconds until `done` reaches `total` at `rate` a second; None while there is no rate to go by.

    >>> time_left(12, 98, 1.2), time_left(0, 98, 0.0)
    (71.66666666666667, None)
    """
    if rate <= 0:
        return None
    return max(total - done, 0) / rate


def clock(seconds: float) -> str:
    """Seconds as h:mm:ss, rounded up.

    >>> clock(71.2), clock(3 * 3600 + 5)
    ('0:01:12', '3:00:05')
    """
    whole = int(-(-seconds // 1))
    return f"{whole // 3600}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


def share(done: int, total: int) -> str:
    """`done` of `total` as a percentage with one decimal (never past 100%).

    >>> share(12, 98), share(5, 0)
    ('12.2%', '100.0%')
    """
    return f"{min(done / total, 1.0) * 100:.1f}%" if total > 0 else "100.0%"
