"""Continuous mode's cadence on the clock: slices and artifact versions at fixed times, not a span after the last.

Times fall on multiples of their span counted from the Unix epoch (1970-01-01T00:00:00Z, a midnight UTC), so a span
that divides a day (60 minutes, 6 or 24 hours) falls at the same times of every UTC day, and one of several days (48
hours) on every other midnight. A slice or an export that takes its time never moves the ones after it.
docs/continuous.md "How continuous mode runs".
"""

from datetime import UTC, datetime, timedelta

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _seconds(span: timedelta) -> int:
    return max(1, round(span.total_seconds()))


def boundary(now: datetime, span: timedelta) -> datetime:
    """The latest multiple of `span` from the epoch at or before `now` (aware, UTC).

    >>> boundary(datetime(2026, 11, 2, 17, 59, 59, 999, tzinfo=UTC), timedelta(hours=6))
    datetime.datetime(2026, 11, 2, 12, 0, tzinfo=datetime.timezone.utc)
    >>> boundary(datetime(2026, 11, 2, 18, 0, tzinfo=UTC), timedelta(hours=6))
    datetime.datetime(2026, 11, 2, 18, 0, tzinfo=datetime.timezone.utc)
    >>> boundary(datetime(2026, 11, 2, 17, 0, tzinfo=UTC), timedelta(hours=48))
    datetime.datetime(2026, 11, 1, 0, 0, tzinfo=datetime.timezone.utc)
    """
    seconds = _seconds(span)
    elapsed = (now.astimezone(UTC) - EPOCH) // timedelta(seconds=1)
    return EPOCH + timedelta(seconds=elapsed - elapsed % seconds)


def next_slice(started: datetime, now: datetime, span: timedelta) -> datetime:
    """When the slice after one that started at `started` starts: the first multiple of `span` after `started`, or
    `now` when the slice ran past it (one slice at once, then the multiples again: never a burst of missed slices).

    >>> hour = timedelta(hours=1)
    >>> next_slice(datetime(2026, 11, 2, 10, 0, tzinfo=UTC), datetime(2026, 11, 2, 10, 4, tzinfo=UTC), hour)
    datetime.datetime(2026, 11, 2, 11, 0, tzinfo=datetime.timezone.utc)
    >>> next_slice(datetime(2026, 11, 2, 10, 0, tzinfo=UTC), datetime(2026, 11, 2, 13, 30, tzinfo=UTC), hour)
    datetime.datetime(2026, 11, 2, 13, 30, tzinfo=datetime.timezone.utc)
    >>> next_slice(datetime(2026, 11, 2, 13, 30, tzinfo=UTC), datetime(2026, 11, 2, 13, 35, tzinfo=UTC), hour)
    datetime.datetime(2026, 11, 2, 14, 0, tzinfo=datetime.timezone.utc)
    """
    due = boundary(started, span) + timedelta(seconds=_seconds(span))
    return now if now >= due else due


def version_due(last: datetime | None, now: datetime, span: timedelta) -> datetime | None:
    """The boundary a new version is due for, named after it: the latest one at or before `now`, when it is later
    than the `last` version (None: there is none); else None. Boundaries missed while the crawl was down give one
    version, at the latest.

    >>> day, at = timedelta(hours=24), datetime(2026, 11, 4, 0, 5, tzinfo=UTC)
    >>> version_due(None, at, day)
    datetime.datetime(2026, 11, 4, 0, 0, tzinfo=datetime.timezone.utc)
    >>> version_due(datetime(2026, 11, 1, tzinfo=UTC), at, day)
    datetime.datetime(2026, 11, 4, 0, 0, tzinfo=datetime.timezone.utc)
    >>> version_due(datetime(2026, 11, 4, tzinfo=UTC), at, day) is None
    True
    """
    found = boundary(now, span)
    return found if last is None or found > last else None
