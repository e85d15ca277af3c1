"""landing.clock: the one clock a run's timestamps are read through, set by LANDING_CLOCK."""

import doctest
from datetime import UTC, datetime, timedelta

import pytest

from landing import clock


@pytest.fixture(autouse=True)
def wall_clock_after():
    yield
    clock.set_clock(None)


def test_the_doctests_hold():
    assert doctest.testmod(clock).failed == 0


def test_unset_the_clock_is_the_wall_clock():
    clock.set_clock(None)
    before = datetime.now(UTC)
    assert before <= clock.now() <= datetime.now(UTC)


def test_an_instant_starts_the_clock_there():
    clock.set_clock("2030-01-02T03:04:05Z")
    assert clock.now() - datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC) < timedelta(seconds=60)
    assert clock.stamp()[:15] == "2030-01-02T03:0"


def test_a_set_clock_runs_on_and_never_goes_back():
    clock.set_clock("2030-01-02T03:04:05Z")
    first = clock.now()
    assert clock.now() >= first


def test_a_shift_moves_the_wall_clock():
    clock.set_clock("+30d")
    before, shifted, after = datetime.now(UTC), clock.now(), datetime.now(UTC)
    assert before + timedelta(days=30) <= shifted <= after + timedelta(days=30)


def test_a_stamp_is_a_utc_second():
    value = clock.stamp()
    assert (len(value), value[10], value[-1]) == (20, "T", "Z")


@pytest.mark.parametrize("value", ["tomorrow", "2030-01-02", "2030-01-02T03:04:05+01:00", "30d", "+1w"])
def test_a_value_the_clock_cannot_run_on_is_refused_saying_what_to_write(value):
    with pytest.raises(clock.ClockError, match="use a UTC instant such as 2030-01-01T00:00:00Z"):
        clock.set_clock(value)


def test_a_backward_shift_moves_the_wall_clock_back():
    clock.set_clock("-1d")
    before, shifted, after = datetime.now(UTC), clock.now(), datetime.now(UTC)
    assert before - timedelta(days=1) <= shifted <= after - timedelta(days=1)
