"""Trend direction with a significance gate, so noise does not read as a trend."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from feedback_intelligence.config import ReportSettings

STABLE, GROWING, DECLINING, WORSENING = "stable", "growing", "declining", "worsening"
DIRECTIONS: tuple[str, ...] = (STABLE, GROWING, DECLINING, WORSENING)

_LABELS: dict[str, dict[str, str]] = {
    "fi": {STABLE: "vakaa", GROWING: "kasvava", DECLINING: "laskeva", WORSENING: "paheneva"},
    "en": {d: d for d in DIRECTIONS},
}


def direction_label(direction: str, language: str) -> str:
    """The direction in the domain language; unknown languages read English."""
    return _LABELS.get(language, _LABELS["en"]).get(direction, direction)


def trend_direction(
    first: int, second: int, sev_first: float, sev_second: float, min_items: int = 6, z: float = 1.6
) -> str:
    """Compare the two halves of the window.

    The count change must reach ``z * sqrt(n)`` (a binomial 50/50 split has standard deviation
    ``sqrt(n)`` in ``second - first``). Growth is "worsening" only when the first half had items
    and the second half's mean severity is higher; a theme new in this window only "grows".
    """
    n = first + second
    if n < min_items:
        return STABLE
    margin = z * math.sqrt(n)
    delta = second - first
    if delta >= margin:
        return WORSENING if first > 0 and sev_second > sev_first else GROWING
    if -delta >= margin:
        return DECLINING
    return STABLE


def halves_direction(
    stamped: Iterable[tuple[str, str | None]],
    midpoint: str,
    rank: Callable[[str | None], int],
    min_items: int,
    z: float,
) -> str:
    """Direction of ``(normalised timestamp, severity)`` pairs split at ``midpoint`` (string compare)."""
    first: list[int] = []
    second: list[int] = []
    for timestamp, severity in stamped:
        (first if timestamp < midpoint else second).append(rank(severity))
    return trend_direction(len(first), len(second), _mean(first), _mean(second), min_items, z)


def _mean(values: list[int]) -> float:
    return sum(values) / len(values) if values else 0.0


@dataclass(slots=True)
class Halves:
    """A group's items and severity ranks in the window's two halves (split at its midpoint, not at the
    items' own span): what its trend is read from, for a department, an issue or one store's share."""

    first: int = 0
    second: int = 0
    first_ranks: int = 0
    second_ranks: int = 0

    def add(self, second_half: bool, items: int, ranks: int) -> None:
        if second_half:
            self.second += items
            self.second_ranks += ranks
        else:
            self.first += items
            self.first_ranks += ranks

    @property
    def count(self) -> int:
        return self.first + self.second

    def direction(self, options: ReportSettings) -> str:
        return trend_direction(
            self.first,
            self.second,
            self.first_ranks / self.first if self.first else 0.0,
            self.second_ranks / self.second if self.second else 0.0,
            options.min_items_for_trend,
            options.trend_z,
        )
