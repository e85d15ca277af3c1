"""landing.clock: the one clock a run's timestamps are read through, set by LANDING_CLOCK."""

import time
from datetime import UTC, datetime, timedelta

import pytest

from landing import clock


@pytest.fixture(autouse=True)
def wall_clock_after():
    yield
    clock.set_clock(None)


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


def test_a_speed_compresses_the_clock_from_its_since():
    real = time.time()
    clock.set_clock("2030-01-01T00:00:00Z", speed=86400, since=real - 2)
    assert timedelta(days=2) <= clock.now() - datetime(2030, 1, 1, tzinfo=UTC) < timedelta(days=2, hours=6)


def test_two_processes_with_one_since_read_one_time():
    since = time.time() - 10
    clock.set_clock("2030-01-01T00:00:00Z", speed=3600, since=since)
    first = clock.now()
    clock.set_clock("2030-01-01T00:00:00Z", speed=3600, since=since)
    assert clock.now() - first < timedelta(minutes=30)
    assert clock.now() >= datetime(2030, 1, 1, 10, tzinfo=UTC)


def test_a_compressed_wall_clock_starts_at_the_wall():
    clock.set_clock(None, speed=60)
    assert clock.now() - datetime.now(UTC) < timedelta(minutes=5)


def test_a_speed_of_zero_is_refused():
    with pytest.raises(clock.ClockError, match="LANDING_CLOCK_SPEED"):
        clock.set_clock(None, speed=0)


def test_a_clock_set_from_pinned_reads_the_same_simulated_time(monkeypatch):
    monkeypatch.setattr(clock.time, "time", lambda: 1_000_000.25)
    clock.set_clock("2030-01-01T00:00:00Z", speed=3600, since=1_000_000.0)
    shown = clock.now()
    clock.set_clock(*clock.pinned())
    assert (clock.now(), shown) == (shown, datetime(2030, 1, 1, 0, 15, tzinfo=UTC))
