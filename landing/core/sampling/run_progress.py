"""How far a run is: the DOIs it will visit, the share visited, the recent rate and the time left at that rate."""

from collections.abc import Sequence

WINDOW = 60.0  # seconds the recent rate looks back over: long enough to smooth bursts, short enough to see a stall


def expected_dois(planned: int, planned_sampled: int, sampled: int) -> int:
    """The DOIs a run will visit: its plan, each owner sampled so far counted by what its sample gave.

    >>> expected_dois(planned=100, planned_sampled=30, sampled=28)
    98
    """
    return max(planned - planned_sampled, 0) + sampled


def recent_rate(points: Sequence[tuple[float, float]], window: float = WINDOW) -> float:
    """The rate a second over the last `window` seconds of `points` ((time, count) pairs, oldest first): from the
    newest point at least `window` before the last one (or the oldest), to the last; 0 without two points.

    >>> points = [(0, 0), (30, 60), (60, 120), (90, 120), (120, 120)]
    >>> recent_rate(points), recent_rate(points[:3]), recent_rate(points[:1])
    (0.0, 2.0, 0.0)
    """
    if len(points) < 2:
        return 0.0
    last_time, last_count = points[-1]
    first_time, first_count = points[0]
    for time, count in points:
        if time > last_time - window:
            break
        first_time, first_count = time, count
    span = last_time - first_time
    return (last_count - first_count) / span if span > 0 else 0.0


def kept(points: Sequence[tuple[float, float]], window: float = WINDOW) -> list[tuple[float, float]]:
    """The points `recent_rate` still needs once the last was added: those in the window, and one before it.

    >>> kept([(0, 0), (30, 60), (60, 120), (90, 120)])
    [(30, 60), (60, 120), (90, 120)]
    """
    points = list(points)
    if not points:
        return points
    start = points[-1][0] - window
    first = max((n for n, (time, _) in enumerate(points) if time <= start), default=0)
    return points[first:]


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
