"""Pace: turns booked on a clock hold a rate on average, however late the caller wakes, with a bounded burst."""

from landing.core.web.pace import Pace


def _taken(pace: Pace, turn: float, seconds: float) -> list[float]:
    """When turns are taken by a caller that books one, sleeps out its wait and wakes only every `turn` seconds
    (a busy event loop), for `seconds`."""
    now, taken, pending = 0.0, [], None
    while now < seconds:
        if pending is not None and pending <= now:
            taken.append(now)
            pending = None
        while pending is None:
            wait = pace.book(now)
            if wait:
                pending = now + wait
            else:
                taken.append(now)
        now += turn
    return taken


def test_a_caller_waking_every_40_ms_still_takes_the_full_rate():
    taken = _taken(Pace(rate=100, burst=25), turn=0.04, seconds=10)
    assert 990 <= len(taken) <= 100 * 10 + 25


def test_no_window_holds_more_than_the_burst_plus_the_rate():
    taken = _taken(Pace(rate=100, burst=25), turn=0.04, seconds=10)
    assert max(sum(1 for t in taken if start <= t < start + 1) for start in taken) <= 100 + 25


def test_turns_booked_at_once_are_spaced_by_the_interval_after_the_burst():
    pace = Pace(rate=20, burst=3)
    assert [round(pace.book(1.0), 3) for _ in range(5)] == [0.0, 0.0, 0.0, 0.05, 0.1]


def test_a_burst_below_one_means_one():
    pace = Pace(rate=10, burst=0)
    assert [round(pace.book(0.0), 3) for _ in range(2)] == [0.0, 0.1]
