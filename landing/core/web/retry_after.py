"""Retry-After (RFC 9110 section 10.2.3): seconds to wait, from delta-seconds or an HTTP date."""

from datetime import UTC
from email.utils import parsedate_to_datetime


def retry_after(value: str, now: float) -> float | None:
    """Seconds to wait as the header asks, or None when it is absent or unreadable; never negative."""
    value = (value or "").strip()
    if not value:
        return None
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:  # asctime dates carry no zone; RFC 9110 dates are all UTC
        when = when.replace(tzinfo=UTC)
    return max(0.0, when.timestamp() - now)
