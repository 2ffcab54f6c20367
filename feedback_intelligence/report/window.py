"""The report window: defaults, validation messages, midpoint and the 10-minute cache key."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from feedback_intelligence.report.instants import (
    TICKS_PER_DAY,
    TICKS_PER_SECOND,
    format_instant,
    parse_instant,
    to_ticks,
)
from feedback_intelligence.settings import ReportSettings

Mode = Literal["standard", "summary"]

CACHE_BUCKET_TICKS = 600 * TICKS_PER_SECOND  # 10 minutes


class WindowError(ValueError):
    """A window the report cannot serve; the message is the 400 error text."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


@dataclass(frozen=True, slots=True)
class Window:
    from_ticks: int
    to_ticks: int
    store: str | None = None  # one store's items only (validated by the caller); None = every item

    @property
    def from_norm(self) -> str:
        return format_instant(self.from_ticks)

    @property
    def to_norm(self) -> str:
        return format_instant(self.to_ticks)

    @property
    def midpoint_norm(self) -> str:
        """Items stamped before this (string compare on the normalised form) form the first half."""
        return format_instant(self.from_ticks + (self.to_ticks - self.from_ticks) // 2)


def build_window(
    from_raw: str | None, to_raw: str | None, now: datetime, options: ReportSettings, *, store: str | None = None
) -> Window:
    """``to`` defaults to now, ``from`` to ``to`` minus the default days; raises :class:`WindowError`."""
    if to_raw is None:
        to_ticks_ = to_ticks(now)
    else:
        parsed = parse_instant(to_raw)
        if parsed is None:
            raise WindowError(f"to must be ISO-8601, got '{to_raw}'.")
        to_ticks_ = parsed
    if from_raw is None:
        from_ticks_ = to_ticks_ - options.default_window_days * TICKS_PER_DAY
    else:
        parsed = parse_instant(from_raw)
        if parsed is None:
            raise WindowError(f"from must be ISO-8601, got '{from_raw}'.")
        from_ticks_ = parsed
    if from_ticks_ < 0:  # the default days before a `to` early in year 1: no such instant to read from
        raise WindowError("from must not be before 0001-01-01T00:00:00Z.")
    if from_ticks_ >= to_ticks_ or to_ticks_ - from_ticks_ > options.max_window_days * TICKS_PER_DAY:
        raise WindowError(f"window must be positive and at most {options.max_window_days} days.")
    return Window(from_ticks_, to_ticks_, store)


def cache_key(window: Window, mode: Mode) -> str:
    """10-minute buckets of both ends, so repeated ``to=now`` loads share one entry; modes and stores never share."""
    key = f"{window.from_ticks // CACHE_BUCKET_TICKS}|{window.to_ticks // CACHE_BUCKET_TICKS}"
    if window.store is not None:
        key += f"|store={window.store}"
    return key + "|summary" if mode == "summary" else key
