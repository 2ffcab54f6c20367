"""Quality from the field (ADR 0065): per field, the share of saved proposals a person corrected, from the
correction rollup's tallies (``store/field_quality.py``), by backend and model, by store and by week.

Weeks are ISO weeks of UTC days (Monday first), as the rollup's days are UTC. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import TypeVar

from pydantic import Field

from feedback_intelligence.report.model import WireModel
from feedback_intelligence.store.field_quality import Tally
from feedback_intelligence.store.rollups import CORRECTABLE

K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True, slots=True)
class FieldRate:
    field: str
    corrected: int
    rate: float  # corrected / saved, 0 when nothing was saved


@dataclass(frozen=True, slots=True)
class Quality:
    """Saved proposals and, per correctable field, how many had that field corrected."""

    saved: int
    fields: tuple[FieldRate, ...]

    def rate(self, field: str) -> float:
        return next((f.rate for f in self.fields if f.field == field), 0.0)


def quality(tallies: Iterable[Tally]) -> Quality:
    saved = 0
    corrected = dict.fromkeys(CORRECTABLE, 0)
    for tally in tallies:
        if tally.field == "":
            saved += tally.items
        elif tally.field in corrected:
            corrected[tally.field] += tally.items
    return Quality(
        saved, tuple(FieldRate(name, n, round(n / saved, 4) if saved else 0.0) for name, n in corrected.items())
    )


def grouped(tallies: Iterable[Tally], key: Callable[[Tally], K]) -> dict[K, Quality]:
    """One :class:`Quality` per key of ``key`` (backend and model, store, week …), keys sorted."""
    groups: dict[K, list[Tally]] = {}
    for tally in tallies:
        groups.setdefault(key(tally), []).append(tally)
    return {k: quality(groups[k]) for k in sorted(groups, key=str)}


def week_start(day: date) -> date:
    """The Monday of ``day``'s ISO week."""
    return day - timedelta(days=day.weekday())


def week_of(tally: Tally) -> str:
    """The Monday (ISO date) of the week a by-day tally falls in."""
    return week_start(date.fromisoformat(tally.day)).isoformat()


def percent(rate: float) -> int:
    """A rate as the whole per cent the page and the status show (half up)."""
    return int(rate * 100 + 0.5)


# -- the wire form (GET /report/corrections, feedctl status) ---------------------------------------


class FieldRateOut(WireModel):
    field: str = Field(description="The structure field.")
    corrected: int = Field(description="Saved proposals in which a person changed this field.")
    rate: float = Field(description="corrected / saved (0 when nothing was saved).")


class QualityOut(WireModel):
    saved: int = Field(description="Entries saved from a model's proposal.")
    fields: list[FieldRateOut] = Field(description="Per field, in the structure's order.")

    @classmethod
    def of(cls, q: Quality) -> QualityOut:
        return cls(
            saved=q.saved, fields=[FieldRateOut(field=f.field, corrected=f.corrected, rate=f.rate) for f in q.fields]
        )


class BackendQualityOut(QualityOut):
    backend: str = Field(description="The backend's public name; `unknown` for entries saved before it was recorded.")
    model: str = Field(description="The model it ran.")


class StoreQualityOut(QualityOut):
    store: str | None = Field(description="The store id; null for entries without a store.")


class WeekQualityOut(QualityOut):
    week_start: str = Field(description="The week's Monday (UTC date).")


class CorrectionRates(WireModel):
    """How often people corrected the model's proposals, per field (ADR 0065)."""

    first_day: str = Field(description="The first UTC day counted (a Monday).")
    last_day: str = Field(description="The last UTC day counted (today).")
    store: str | None = Field(description="The store asked for; null: every store in the caller's reach.")
    this_week: QualityOut = Field(description="The current week (Monday to today, UTC).")
    weekly: list[WeekQualityOut] = Field(description="Each week of the span, oldest first.")
    by_backend: list[BackendQualityOut] = Field(description="The span per backend and model.")
    by_store: list[StoreQualityOut] = Field(description="The span per store.")


def correction_rates(tallies: list[Tally], today: date, weeks: int, store: str | None) -> CorrectionRates:
    """The answer over the by-day ``tallies`` of the ``weeks`` weeks up to ``today``."""
    monday = week_start(today)
    first = monday - timedelta(weeks=weeks - 1)
    current = [t for t in tallies if t.day >= monday.isoformat()]
    return CorrectionRates(
        first_day=first.isoformat(),
        last_day=today.isoformat(),
        store=store,
        this_week=QualityOut.of(quality(current)),
        weekly=[
            WeekQualityOut(week_start=k, **QualityOut.of(q).model_dump()) for k, q in grouped(tallies, week_of).items()
        ],
        by_backend=[
            BackendQualityOut(backend=b, model=m, **QualityOut.of(q).model_dump())
            for (b, m), q in grouped(tallies, lambda t: (t.backend, t.model)).items()
        ],
        by_store=[
            StoreQualityOut(store=s or None, **QualityOut.of(q).model_dump())
            for s, q in grouped(tallies, lambda t: t.store or "").items()
        ],
    )


def span(today: date, weeks: int) -> tuple[str, str]:
    """The UTC days ``[first, last]`` of the ``weeks`` weeks up to ``today``."""
    return (week_start(today) - timedelta(weeks=weeks - 1)).isoformat(), today.isoformat()
