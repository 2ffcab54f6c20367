"""The report window: defaults, validation messages, midpoint and the 10-minute cache key."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from datetime import datetime
from typing import Literal

from feedback_intelligence.config import ReportSettings
from feedback_intelligence.instants.ticks import TICKS_PER_DAY, TICKS_PER_SECOND, parse_instant, to_ticks
from feedback_intelligence.instants.timestamps import format_instant
from feedback_intelligence.store.aggregates import ItemFilter

Mode = Literal["standard", "summary"]

CACHE_BUCKET_TICKS = 600 * TICKS_PER_SECOND  # 10 minutes


class WindowError(ValueError):
    """A window the report cannot serve; the message is the 400 error text."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


@dataclass(frozen=True, slots=True)
class Window:
    """A report's period and which of its items it shows: ``filters`` (validated by the caller, built in
    one place from the query, ``api/filters.py``) holds every narrowing but the period itself."""

    from_ticks: int
    to_ticks: int
    filters: ItemFilter = field(default_factory=ItemFilter)

    @property
    def store(self) -> str | None:
        """One store's items only; None = every store."""
        return self.filters.store

    def narrowed(self, *, store: str | None) -> Window:
        """The same period and filters for another store (the chain view's and the brief's per-store rows)."""
        return replace(self, filters=replace(self.filters, store=store))

    def item_filter(self) -> ItemFilter:
        """The filter of the statements: the period's normalised ends with every other narrowing."""
        return replace(self.filters, from_=self.from_norm, to=self.to_norm)

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
    from_raw: str | None,
    to_raw: str | None,
    now: datetime,
    options: ReportSettings,
    *,
    store: str | None = None,
    filters: ItemFilter | None = None,
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
    chosen = filters if filters is not None else ItemFilter()
    if store is not None:
        chosen = replace(chosen, store=store)
    return Window(from_ticks_, to_ticks_, replace(chosen, from_=None, to=None))


def cache_key(window: Window, mode: Mode) -> str:
    """10-minute buckets of both ends, so repeated ``to=now`` loads share one entry; modes and filters never share."""
    key = f"{window.from_ticks // CACHE_BUCKET_TICKS}|{window.to_ticks // CACHE_BUCKET_TICKS}"
    # repr: a value holding "|" cannot pass for another filter
    key += "".join(f"|{name}={value!r}" for name, value in applied_filters(window).items())
    return key + "|summary" if mode == "summary" else key


def applied_filters(window: Window) -> dict[str, str]:
    """The narrowings a view applied, by their query names (the report echoes them as ``filters``); a yes/no
    filter as its query spelling, ``true`` or ``false``."""
    found: dict[str, str] = {}
    for each in fields(ItemFilter):
        value = getattr(window.filters, each.name)
        if value is not None and each.name not in ("from_", "to"):
            found[each.name] = ("true" if value else "false") if isinstance(value, bool) else value
    return found
