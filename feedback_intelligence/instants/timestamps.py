"""Instants in one fixed-width UTC form, so that string order is instant order.

Every stored or queried instant is ``yyyy-MM-ddTHH:mm:ss.fffffff+00:00``: seven fractional
digits (100 ns ticks, as the reference) and a literal ``+00:00``, never ``Z``. Because the width
never varies, SQL string comparison on this form compares instants.

Input is parsed leniently within ISO-8601: ``T``, ``t`` or a space between date and time; seconds
and fractions optional (any number of fractional digits, ``.`` or ``,``; digits past the seventh
are truncated); ``Z`` or a numeric offset (``+03:00``, ``+0300``, ``+03``); no offset means UTC;
a bare date means midnight UTC. The basic format (``20240501T101500Z``) is accepted too.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

_TICKS_PER_SECOND = 10_000_000
# RFC 3339's whole range (hours 00-23), which OpenAPI's ``format: date-time`` admits: real zones stay
# within ±14 h, but any offset names one instant, and the instant is what is stored (in UTC).
_MAX_OFFSET = timedelta(hours=23, minutes=59)

_EXTENDED = re.compile(
    r"(?P<y>\d{4})-(?P<mo>\d{2})-(?P<d>\d{2})"
    r"(?:[Tt ](?P<h>\d{2}):(?P<mi>\d{2})(?::(?P<s>\d{2})(?:[.,](?P<f>\d+))?)?)?"
    r"\s*(?P<tz>[Zz]|[+-]\d{2}(?::?\d{2})?)?"
)
_BASIC = re.compile(
    r"(?P<y>\d{4})(?P<mo>\d{2})(?P<d>\d{2})"
    r"(?:[Tt](?P<h>\d{2})(?P<mi>\d{2})(?:(?P<s>\d{2})(?:[.,](?P<f>\d+))?)?)?"
    r"(?P<tz>[Zz]|[+-]\d{2}(?::?\d{2})?)?"
)


_FIRST = datetime(1, 1, 1, tzinfo=UTC)
_LAST = datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)
#: The calendar's first and last days, on which a saved item's own timestamp is refused: an offset can
#: put such an instant outside what UTC can write, and no real feedback is from either (the schema says
#: the same with a pattern, api/openapi.py). Query bounds there are fine: they clamp (normalize_bound).
EDGE_DAYS = ("0001-01-01", "9999-12-31", "00010101", "99991231")


def _parse(raw: str, *, clamp: bool = False) -> tuple[datetime, int]:
    """(UTC instant at whole seconds, extra 100 ns ticks) or ValueError; ``clamp``: an instant beyond
    the calendar's ends in UTC is that end."""
    if not isinstance(raw, str):
        raise ValueError(f"not an ISO-8601 instant: {raw!r}")
    text = raw.strip()
    match = _EXTENDED.fullmatch(text) or _BASIC.fullmatch(text)
    if match is None:
        raise ValueError(f"not an ISO-8601 instant: {raw!r}")
    parts = match.groupdict()
    fraction = (parts["f"] or "")[:7].ljust(7, "0")
    try:
        local = datetime(
            int(parts["y"]),
            int(parts["mo"]),
            int(parts["d"]),
            int(parts["h"] or 0),
            int(parts["mi"] or 0),
            int(parts["s"] or 0),
            tzinfo=_offset(parts["tz"]),
        )
    except ValueError as exc:
        raise ValueError(f"not an ISO-8601 instant: {raw!r} ({exc})") from None
    try:
        instant = local.astimezone(UTC)
    except OverflowError:
        if not clamp:
            raise ValueError(f"not an instant UTC can write: {raw!r}") from None
        return (_FIRST, 0) if local.year == 1 else (_LAST, 9_999_999)
    return instant, int(fraction)


def _offset(tz: str | None) -> timezone:
    if tz is None or tz in ("Z", "z"):
        return UTC
    sign = -1 if tz[0] == "-" else 1
    digits = tz[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:] or 0)
    if minutes >= 60:
        raise ValueError(f"offset minutes out of range in {tz!r}")
    delta = timedelta(hours=hours, minutes=minutes)
    if delta > _MAX_OFFSET:
        raise ValueError(f"offset out of range in {tz!r}")
    return timezone(sign * delta)


def _format(instant: datetime, ticks: int) -> str:
    return (
        f"{instant.year:04d}-{instant.month:02d}-{instant.day:02d}"
        f"T{instant.hour:02d}:{instant.minute:02d}:{instant.second:02d}.{ticks:07d}+00:00"
    )


def normalize_timestamp(raw: str) -> str:
    """Parse a lenient ISO-8601 instant and return the fixed-width UTC form; ValueError on garbage."""
    instant, ticks = _parse(raw)
    return _format(instant, ticks)


def normalize_bound(raw: str) -> str:
    """As :func:`normalize_timestamp`, for the bound of a window: beyond the calendar's ends is the end."""
    instant, ticks = _parse(raw, clamp=True)
    return _format(instant, ticks)


def on_edge_day(raw: str) -> bool:
    """Whether ``raw`` is dated on the calendar's first or last day (see EDGE_DAYS)."""
    return raw.strip().startswith(EDGE_DAYS)


def is_valid_timestamp(raw: str) -> bool:
    try:
        _parse(raw)
    except ValueError:
        return False
    return True


def format_instant(moment: datetime | int) -> str:
    """The fixed-width UTC form of an instant: a datetime (a naive one is taken as UTC) or whole 100 ns
    ticks since 0001-01-01T00:00Z (the report's window arithmetic, which keeps the seventh digit)."""
    if isinstance(moment, int):
        seconds, ticks = divmod(moment, _TICKS_PER_SECOND)
        return _format(_FIRST + timedelta(seconds=seconds), ticks)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    instant = moment.astimezone(UTC)
    return _format(instant.replace(microsecond=0), instant.microsecond * 10)


def parse_normalized(value: str) -> datetime:
    """An aware UTC datetime for a normalised (or any accepted) instant; the 7th digit is dropped."""
    instant, ticks = _parse(value)
    return instant + timedelta(microseconds=ticks // 10)


def ticks_of(value: str) -> int:
    """Whole 100 ns ticks since 0001-01-01T00:00Z (the .NET ``UtcTicks``), for exact arithmetic."""
    instant, ticks = _parse(value)
    seconds = (instant - _FIRST) // timedelta(seconds=1)
    return seconds * _TICKS_PER_SECOND + ticks
