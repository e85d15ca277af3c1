"""Health checks an operator is alerted on, each a judgement of a few numbers: prefixes fresh enough, visits not
failing past a share, artifact versions exported recently enough, nothing recorded after now (a clock gone back). The
crawl's monitors (landing/crawl/monitors.py) and `scrapy status` both judge by these, so the log, the metrics and the
status line agree. docs/operations.md "Health".
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

FRESHNESS, FAILURES, EXPORT, CLOCK = "freshness", "failures", "export", "clock"
CHECKS = (FRESHNESS, FAILURES, EXPORT, CLOCK)
# Workers' clocks may differ a little: a record this far after now is no sign of a clock gone back.
SKEW = timedelta(minutes=5)


@dataclass(frozen=True)
class Check:
    """One check's verdict, and what it saw, in words for a log line."""

    name: str
    ok: bool
    detail: str


def freshness(oldest_days: float | None, refresh_days: float) -> Check:
    """The oldest sampled prefix is no older than refresh_days (nothing sampled yet: nothing is stale).

    >>> freshness(6.8, 7)
    Check(name='freshness', ok=True, detail='oldest prefix 6.8 d, bound 7 d')
    >>> freshness(7.25, 7).ok, freshness(None, 7).detail
    (False, 'no prefix sampled yet')
    """
    if oldest_days is None:
        return Check(FRESHNESS, True, "no prefix sampled yet")
    return Check(
        FRESHNESS, oldest_days <= refresh_days, f"oldest prefix {days(oldest_days)}, bound {days(refresh_days)}"
    )


def failures(visits: int, failed: int, bound: float, least: int) -> Check | None:
    """At most `bound` (a share) of the visits failed; None (not judged) under `least` visits, too few to say.

    >>> failures(200, 30, 0.5, 100)
    Check(name='failures', ok=True, detail='30 of 200 visits failed (15%), bound 50%')
    >>> failures(200, 120, 0.5, 100).ok, failures(99, 99, 0.5, 100)
    (False, None)
    """
    if visits < max(least, 1):
        return None
    share = failed / visits
    return Check(
        FAILURES, share <= bound, f"{failed} of {visits} visits failed ({percent(share)}), bound {percent(bound)}"
    )


def window(visits: int, failed: int, base: Sequence[int] | None) -> tuple[int, int]:
    """The visits and failures since `base` (the counts when the failure share was last judged; None: the start).

    >>> window(500, 40, (300, 10)), window(500, 40, None)
    ((200, 30), (500, 40))
    """
    if not base or len(base) != 2 or base[0] > visits or base[1] > failed:
        return visits, failed  # no base, or one from counts that were since reset: judge everything seen
    return visits - base[0], failed - base[1]


def export(last: datetime | None, since: datetime, now: datetime, bound_hours: float) -> Check:
    """An artifact version was exported within bound_hours; with none yet, the time runs from `since` (when
    sampling began), so a crawl that never exports is caught too.

    >>> from datetime import UTC
    >>> at = datetime(2026, 11, 26, 12, tzinfo=UTC)
    >>> export(at - timedelta(hours=3), at - timedelta(days=9), at, 48)
    Check(name='export', ok=True, detail='last version 3 h ago, bound 48 h')
    >>> export(None, at - timedelta(hours=30), at, 24)
    Check(name='export', ok=False, detail='no version exported in 30 h, bound 24 h')
    """
    if last is None:
        waited = now - since
        return Check(
            EXPORT,
            waited <= timedelta(hours=bound_hours),
            f"no version exported in {span(waited)}, bound {bound_hours:g} h",
        )
    age = now - last
    return Check(EXPORT, age <= timedelta(hours=bound_hours), f"last version {span(age)} ago, bound {bound_hours:g} h")


def clock(records: Iterable[datetime | None], now: datetime) -> Check:
    """Nothing was recorded after now (a version, an export, a prefix's sample): else the clock went back, and every
    age, every wait for a due export and the budget's day are wrong until it is set right.

    >>> from datetime import UTC
    >>> at = datetime(2026, 11, 26, 12, tzinfo=UTC)
    >>> clock([at - timedelta(hours=1), None], at)
    Check(name='clock', ok=True, detail='nothing recorded after now')
    >>> clock([at + timedelta(days=5, hours=12)], at).detail
    'the clock went back: a record is 5.5 d after now (2026-12-02T00:00:00Z); set the clock right'
    """
    latest = max((record for record in records if record is not None), default=None)
    if latest is None or latest <= now + SKEW:
        return Check(CLOCK, True, "nothing recorded after now")
    return Check(
        CLOCK,
        False,
        f"the clock went back: a record is {span(latest - now)} after now ({latest:%Y-%m-%dT%H:%M:%SZ}); "
        "set the clock right",
    )


def verdict(checks: Iterable[Check]) -> str:
    """`OK`, or `FAILED` with each failed check's name and detail.

    >>> verdict([freshness(6, 7), freshness(8, 7)])
    'FAILED: freshness (oldest prefix 8 d, bound 7 d)'
    >>> verdict([])
    'OK'
    """
    failed = [f"{c.name} ({c.detail})" for c in checks if not c.ok]
    return "FAILED: " + "; ".join(failed) if failed else "OK"


def percent(share: float) -> str:
    """A share as a percentage, one decimal, none when whole.

    >>> percent(0.5), percent(201 / 400), percent(0.125)
    ('50%', '50.2%', '12.5%')
    """
    return f"{share * 100:.1f}".removesuffix(".0") + "%"


def days(value: float) -> str:
    """Days as an operator reads them: one decimal, none when whole.

    >>> days(2.14), days(7), days(0.04)
    ('2.1 d', '7 d', '0 d')
    """
    text = f"{value:.1f}".removesuffix(".0")
    return f"{text} d"


def span(delta: timedelta) -> str:
    """A time span in its most readable unit: minutes under an hour, hours under three days, then days.

    >>> span(timedelta(minutes=12)), span(timedelta(hours=49)), span(timedelta(days=3, hours=12))
    ('12 min', '49 h', '3.5 d')
    """
    seconds = max(delta.total_seconds(), 0)
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 3 * 86400:
        return f"{seconds / 3600:.0f} h"
    return days(seconds / 86400)
