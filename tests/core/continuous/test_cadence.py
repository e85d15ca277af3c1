"""Continuous mode's cadence (landing/core/continuous/cadence.py): slices and versions on fixed times of the clock."""

import random
from datetime import UTC, datetime, timedelta

from landing.core.continuous.cadence import boundary, next_slice, version_due

HOUR = timedelta(hours=1)
START = datetime(2026, 11, 1, 7, 23, 41, tzinfo=UTC)  # a crawl starts at any time


def _month_of_slices(seed: int, slice_span: timedelta, every: timedelta, days: int = 30):
    """(slice starts, version names as moments) of `days` simulated days, each slice taking a random time shorter
    than the slice, exporting when a version is due (something is sampled every slice)."""
    rng, now, starts, versions = random.Random(seed), START, [], []
    while now < START + timedelta(days=days):
        started = now
        starts.append(started)
        at = version_due(versions[-1] if versions else None, started, every)
        if at is not None:
            versions.append(at)
        now = started + rng.random() * slice_span  # the slice's own work
        now = next_slice(started, now, slice_span)
    return starts, versions


def test_slices_stay_on_the_hour_over_a_simulated_month_whatever_each_takes():
    starts, _ = _month_of_slices(seed=45, slice_span=HOUR, every=24 * HOUR)
    assert all(s == boundary(s, HOUR) for s in starts[1:])
    assert [b - a for a, b in zip(starts[1:], starts[2:])] == [HOUR] * (len(starts) - 2)


def test_versions_are_exactly_the_export_span_apart_on_the_clock_over_a_simulated_month():
    for every in (6 * HOUR, 24 * HOUR):
        _, versions = _month_of_slices(seed=7, slice_span=HOUR, every=every)
        assert versions[0] == boundary(START, every)
        assert [b - a for a, b in zip(versions, versions[1:])] == [every] * (len(versions) - 1)
        assert len(versions) == 30 * (24 * HOUR // every) + 1


def test_a_utc_day_of_six_hour_versions_falls_at_midnight_six_noon_and_eighteen():
    _, versions = _month_of_slices(seed=3, slice_span=timedelta(minutes=30), every=6 * HOUR, days=2)
    assert [f"{v:%H%M}" for v in versions if v.date() == datetime(2026, 11, 2).date()] == [
        "0000",
        "0600",
        "1200",
        "1800",
    ]


def test_a_slice_that_overran_several_spans_starts_the_next_at_once_then_the_hours_again():
    started = datetime(2026, 11, 2, 10, 0, tzinfo=UTC)
    late = started + timedelta(hours=3, minutes=20)
    assert next_slice(started, late, HOUR) == late
    assert next_slice(late, late + timedelta(minutes=2), HOUR) == datetime(2026, 11, 2, 14, 0, tzinfo=UTC)


def test_boundaries_missed_while_the_crawl_was_down_give_one_version_at_the_latest():
    last = datetime(2026, 11, 1, tzinfo=UTC)
    back = datetime(2026, 11, 3, 9, 15, tzinfo=UTC)
    assert version_due(last, back, 24 * HOUR) == datetime(2026, 11, 3, tzinfo=UTC)
    assert version_due(datetime(2026, 11, 3, tzinfo=UTC), back + 12 * HOUR, 24 * HOUR) is None


def test_a_48_hour_span_falls_on_every_other_midnight_from_the_epoch():
    assert boundary(datetime(2026, 11, 2, 23, 0, tzinfo=UTC), 48 * HOUR) == datetime(2026, 11, 1, tzinfo=UTC)
    assert boundary(datetime(2026, 11, 3, 0, 0, tzinfo=UTC), 48 * HOUR) == datetime(2026, 11, 3, tzinfo=UTC)
