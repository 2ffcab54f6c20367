"""Times relative to the moment a test runs. The report's default window and the case list cover the last days,
so an entry stamped with a fixed date ages out of them: a test written with last week's date fails next week."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

HELSINKI_WINTER = timezone(timedelta(hours=2))  # a shop's offset as a desk sends it; the instant is what counts


def hours_ago(hours: float) -> datetime:
    """That many hours before now, to the whole minute, at a Finnish shop's winter offset."""
    return (datetime.now(UTC) - timedelta(hours=hours)).replace(second=0, microsecond=0).astimezone(HELSINKI_WINTER)


def stamp(hours: float) -> str:
    """`hours_ago` as the ISO 8601 text a desk sends (`2026-11-30T10:00:00+02:00`)."""
    return hours_ago(hours).isoformat()


def utc_minute(text: str) -> str:
    """An ISO 8601 time as the service writes it back, in UTC, cut to the minute (`2026-11-30T08:00`)."""
    return datetime.fromisoformat(text).astimezone(UTC).strftime("%Y-%m-%dT%H:%M")
