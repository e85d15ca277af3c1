"""landing.core.web.retry_after: Retry-After as delta-seconds or an HTTP date (RFC 9110 section 10.2.3)."""

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from landing.core.web.retry_after import retry_after

NOW = datetime(2024, 5, 6, 12, 0, 0, tzinfo=UTC)


def http_date(when: datetime) -> str:
    return format_datetime(when, usegmt=True)


def test_delta_seconds_are_read_as_seconds():
    assert retry_after("120", NOW.timestamp()) == 120.0


def test_delta_seconds_with_surrounding_spaces_are_read():
    assert retry_after(" 7 ", NOW.timestamp()) == 7.0


def test_zero_delta_seconds_is_zero():
    assert retry_after("0", NOW.timestamp()) == 0.0


def test_http_date_in_the_future_is_the_seconds_until_it():
    assert retry_after(http_date(NOW + timedelta(seconds=30)), NOW.timestamp()) == 30.0


def test_http_date_in_the_past_is_zero():
    assert retry_after(http_date(NOW - timedelta(hours=1)), NOW.timestamp()) == 0.0


def test_rfc850_date_is_read():
    # RFC 9110 5.6.7: a recipient MUST accept the obsolete rfc850-date form too.
    assert retry_after("Monday, 06-May-24 12:00:45 GMT", NOW.timestamp()) == 45.0


def test_asctime_date_is_read_as_utc():
    assert retry_after("Mon May  6 12:00:45 2024", NOW.timestamp()) == 45.0


@pytest.mark.parametrize("value", ["soon", "-5", "1.5", "Mon, 99 Foo 2024 xx:yy GMT"])
def test_unreadable_value_is_none(value):
    assert retry_after(value, NOW.timestamp()) is None


@pytest.mark.parametrize("value", ["", "   ", None])
def test_absent_value_is_none(value):
    assert retry_after(value, NOW.timestamp()) is None
