"""Instants as integer ticks, for the report's window arithmetic.

A tick is 100 ns since 0001-01-01T00:00:00 UTC, so the seven fractional digits of the stored
form (``yyyy-MM-ddTHH:mm:ss.fffffff+00:00``) round-trip exactly and window arithmetic (midpoints,
10-minute cache buckets) stays in integers. The written form itself is ``timestamps.format_instant``,
which takes ticks as well as a datetime.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

TICKS_PER_SECOND = 10_000_000
TICKS_PER_DAY = 86_400 * TICKS_PER_SECOND

_ORIGIN = datetime(1, 1, 1, tzinfo=UTC)
MAX_TICKS = (datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC) - _ORIGIN) // timedelta(microseconds=1) * 10 + 9
# Fractional seconds of any length; Python keeps six digits, the seventh is kept as a tick.
_FRACTION = re.compile(r"(?<=\d\d:\d\d:\d\d)[.,](\d+)")


def to_ticks(moment: datetime) -> int:
    """Ticks of an aware datetime; a naive one is taken as UTC."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    delta = moment - _ORIGIN
    return delta.days * TICKS_PER_DAY + delta.seconds * TICKS_PER_SECOND + delta.microseconds * 10


def from_ticks(ticks: int) -> datetime:
    """The UTC datetime of ``ticks`` (the sub-microsecond tick is dropped)."""
    return _ORIGIN + timedelta(microseconds=ticks // 10)


def parse_instant(raw: str | None) -> int | None:
    """Ticks of an ISO-8601 instant; offset-less and date-only inputs are UTC. ``None`` if unparseable;
    an instant beyond the calendar's ends in UTC is the end it passed."""
    if raw is None:
        return None
    text = raw.strip()
    if not text:
        return None
    extra = 0
    match = _FRACTION.search(text)
    if match:
        digits = match.group(1)
        extra = int(digits[6]) if len(digits) > 6 else 0
        text = f"{text[: match.start()]}.{digits[:6].ljust(6, '0')}{text[match.end() :]}"
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    # A bound past either end of the calendar in UTC (0001-01-01T00:00:02+01:00) is that end: nothing is
    # stored beyond it, so the window means the same. (Aware subtraction in to_ticks cannot overflow.)
    return min(max(to_ticks(moment) + extra, 0), MAX_TICKS)


def utc_date(ticks: int) -> date:
    return from_ticks(ticks).date()


def local_time(timestamp: str, zone: str) -> str:
    """A normalised UTC timestamp as local ``yyyy-MM-dd HH:mm`` in ``zone``."""
    ticks = parse_instant(timestamp)
    if ticks is None:
        return timestamp
    return from_ticks(ticks).astimezone(ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M")
