"""The correction rollup read (``correction_daily``, ADR 0065): saved proposals and corrected fields per
store, backend, model and field over whole UTC days, narrowed to the stores a person may read."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, literal, select

from feedback_intelligence.store.schema import correction_daily


@dataclass(frozen=True, slots=True)
class Tally:
    """Saved proposals (``field`` '') or proposals with ``field`` corrected, of one key over the days read."""

    day: str
    store: str | None
    backend: str
    model: str
    field: str
    items: int


def tallies_statement(
    first_day: str | None, last_day: str | None, stores: Collection[str] | None, *, by_day: bool = True
) -> Any:
    """The rollup's rows of ``[first_day, last_day]`` (UTC dates; None: open), of ``stores`` (None: all,
    the rows without a store too), grouped by day (unless not ``by_day``: then ``day`` is ''), store,
    backend, model and field."""
    c = correction_daily.c
    keys = (c.store, c.backend, c.model, c.field)
    day = c.day if by_day else literal("")
    statement = select(day.label("day"), *keys, func.sum(c["items"]).label("items")).where(c["items"] > 0)
    if first_day is not None:
        statement = statement.where(c.day >= first_day)
    if last_day is not None:
        statement = statement.where(c.day <= last_day)
    if stores is not None:
        statement = statement.where(c.store.in_(sorted(stores)))
    return statement.group_by(*keys, c.day) if by_day else statement.group_by(*keys)


def tally_of(row: Any) -> Tally:
    return Tally(row.day, row.store or None, row.backend, row.model, row.field, int(row.items))
