"""The one clock a run's timestamps are read through: the wall clock, or the time LANDING_CLOCK sets.

Documents, runs, artifact versions and the matcher's "seen within" all ask `now()` or `stamp()`, so a test or a
simulation gives a whole crawl its time with one setting. LANDING_CLOCK_SPEED compresses it (a simulated month in
minutes), and LANDING_CLOCK_SINCE pins the real moment its instant stood for, so that several processes (a crawl,
its restart after kill -9, the sandbox that serves it) read the same simulated time. Durations (pauses, timeouts,
rates) keep using `time.monotonic()`: they measure the process, not the calendar.
"""

import re
import time
from datetime import UTC, datetime, timedelta

FORMAT = "%Y-%m-%dT%H:%M:%SZ"  # every stored timestamp: UTC, to the second
_OFFSET = re.compile(r"([+-])(\d{1,9})([smhd])")
_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


class ClockError(ValueError):
    """A LANDING_CLOCK value the clock cannot run on; the message says what to write instead."""


def parse(value: str | None) -> tuple[datetime | None, timedelta]:
    """LANDING_CLOCK as (start, offset): an instant the clock starts from, or a shift of the wall clock.

    >>> parse("2030-01-02T03:04:05Z")
    (datetime.datetime(2030, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc), datetime.timedelta(0))
    >>> parse("+30d"), parse("-2h")
    ((None, datetime.timedelta(days=30)), (None, datetime.timedelta(days=-1, seconds=79200)))
    >>> parse(None), parse("")
    ((None, datetime.timedelta(0)), (None, datetime.timedelta(0)))
    """
    if not value:
        return None, timedelta(0)
    text = str(value).strip()
    offset = _OFFSET.fullmatch(text)
    if offset:
        sign, amount, unit = offset.groups()
        return None, timedelta(seconds=(-1 if sign == "-" else 1) * int(amount) * _SECONDS[unit])
    try:
        start = datetime.strptime(text, FORMAT)
    except ValueError:
        raise ClockError(
            f"LANDING_CLOCK={value!r}: use a UTC instant such as 2030-01-01T00:00:00Z (the clock starts there), "
            "or a shift of the wall clock such as +30d, -2h, +90m, +15s"
        ) from None
    return start.replace(tzinfo=UTC), timedelta(0)


_start: datetime | None = None  # the instant the clock was set to, at the real time (time.time()) _set_at
_set_at = 0.0
_offset = timedelta(0)
_speed = 1.0


def set_clock(value: str | None, speed: float = 1.0, since: float | None = None) -> None:
    """Start the clock at LANDING_CLOCK's instant, or shift the wall clock by its offset; it runs on at `speed`
    simulated seconds a real second, from `since` (a Unix time: the real moment the instant stood for; default
    now)."""
    global _start, _set_at, _offset, _speed
    if not speed > 0:
        raise ClockError(f"LANDING_CLOCK_SPEED={speed!r}: use a number more than 0 (1: real time)")
    _start, _offset = parse(value)
    _set_at = time.time() if since is None else float(since)
    _speed = float(speed)
    if _start is None and _speed != 1.0:  # a compressed wall clock starts from the wall's time now
        _start, _offset = datetime.fromtimestamp(_set_at, UTC) + _offset, timedelta(0)


def pinned() -> tuple[str, float, float]:
    """(LANDING_CLOCK, LANDING_CLOCK_SPEED, LANDING_CLOCK_SINCE) that give another process this clock as it stands
    (`set_clock(*pinned())` there), whatever set it."""
    at, real = now(), time.time()
    whole = at.replace(microsecond=0)
    return whole.strftime(FORMAT), _speed, real - (at - whole).total_seconds() / _speed


def now() -> datetime:
    """The time, UTC, on the one clock."""
    if _start is not None:
        return _start + timedelta(seconds=(time.time() - _set_at) * _speed)
    return datetime.now(UTC) + _offset


def speed() -> float:
    """Simulated seconds a real second (LANDING_CLOCK_SPEED)."""
    return _speed


def real_seconds(span: timedelta) -> float:
    """The real seconds a span of the clock's time takes to pass: what to sleep until a simulated moment.

    >>> set_clock("2030-01-01T00:00:00Z", speed=3600)
    >>> real_seconds(timedelta(hours=2))
    2.0
    >>> set_clock(None)
    """
    return max(0.0, span.total_seconds() / _speed)


def stamp() -> str:
    """The time on the one clock as documents store it: `YYYY-MM-DDTHH:MM:SSZ`."""
    return now().strftime(FORMAT)
