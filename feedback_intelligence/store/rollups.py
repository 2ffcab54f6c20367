"""The report's rollups (ADR 0033): ``feedback_daily`` and ``theme_daily``, grouped counts per UTC day
and store, kept exact in the transaction of every write of ``feedback``.

How a write keeps them (one way for all):

- an insert adds its own rows (:func:`add_inserted`): only the rows this transaction inserted, so a
  retried batch whose ids are taken adds nothing;
- a change or an erasure runs inside :func:`tracking`: the affected rows' keys are read before the
  write (``FOR UPDATE`` on PostgreSQL, so no other writer moves them meanwhile) and after it, and the
  difference is applied (``-1`` under the old key, ``+1`` under the new one);
- every adjustment is one ``INSERT … ON CONFLICT DO UPDATE SET items = items + excluded.items`` per key,
  keys in sorted order (concurrent writers lock rows in one order, so they cannot deadlock); a key
  whose count reaches 0 stays as a row of 0, which no reader counts;
- a theme key's newest item: raised by ``max`` on an increment; when the item that was the newest
  leaves the key it is recomputed from the day's rows of that key (one indexed query).

A day is the UTC date, ``substr(timestamp, 1, 10)`` of the fixed-width instant, the same on both engines:
the report's window is instants, so a UTC day is as good a bucket as a local one and never moves with
``FI_TIMEZONE``. :func:`plan` says which whole days of a window the rollups answer; the rest of the
window (its edges, its midpoint's day) and every filter they do not carry come from the rows
(store/aggregates.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from sqlalchemy import case, delete, func, insert, literal, select, text, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from feedback_intelligence.store.schema import feedback, feedback_daily, theme_daily

DAY_START = "T00:00:00.0000000+00:00"
DAY_END = "T23:59:59.9999999+00:00"
COUNT_KEY = ("category", "severity", "severity_rank", "sentiment", "rated", "alert", "needs_review", "structure_failed")
#: What a row contributes: read before and after a change (the columns the rollups group by).
KEY_COLUMNS = (
    feedback.c.id,
    feedback.c.timestamp,
    feedback.c.store,
    feedback.c.category,
    feedback.c.severity,
    feedback.c.severity_rank,
    feedback.c.sentiment,
    feedback.c.rated,
    feedback.c.alert,
    feedback.c.needs_review,
    feedback.c.structure_failed,
    feedback.c.theme_base,
)
IN_CHUNK = 5_000


@dataclass(frozen=True, slots=True)
class Contribution:
    """One row's place in the rollups: its ``feedback_daily`` key and, when it has a theme, its
    ``theme_daily`` key and newest-key string."""

    daily: tuple[Any, ...]
    theme: tuple[str, str, str, str] | None
    newest: str

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> Contribution:
        day = str(row["timestamp"])[:10]
        store = row.get("store") or ""
        category = row.get("category")
        daily = (
            day,
            store,
            category or "",
            row.get("severity") or "",
            int(row.get("severity_rank") or 0),
            row.get("sentiment") or "",
            bool(row.get("rated")),
            bool(row.get("alert")),
            bool(row.get("needs_review")),
            bool(row.get("structure_failed")),
        )
        theme_base = row.get("theme_base")
        theme = (day, store, category, theme_base) if category is not None and theme_base is not None else None
        return cls(daily, theme, f"{row['timestamp']} {row['id']}")


def _upsert(conn: AsyncConnection, table: Any) -> Any:
    dialect_insert = postgresql_insert if conn.dialect.name == "postgresql" else sqlite_insert
    return dialect_insert(table)


async def _apply(conn: AsyncConnection, before: Sequence[Contribution], after: Sequence[Contribution]) -> None:
    daily: dict[tuple[Any, ...], int] = {}
    for sign, rows in ((-1, before), (1, after)):
        for row in rows:
            daily[row.daily] = daily.get(row.daily, 0) + sign
    names = ("day", "store", *COUNT_KEY)
    changed = [dict(zip(names, key, strict=True), items=n) for key, n in sorted(daily.items()) if n]
    if changed:
        statement = _upsert(conn, feedback_daily)
        await conn.execute(
            statement.on_conflict_do_update(
                index_elements=list(names), set_={"items": feedback_daily.c["items"] + statement.excluded["items"]}
            ),
            changed,
        )
    await _apply_themes(conn, before, after)


async def _apply_themes(conn: AsyncConnection, before: Sequence[Contribution], after: Sequence[Contribution]) -> None:
    old: dict[tuple[str, str, str, str], set[str]] = {}
    new: dict[tuple[str, str, str, str], set[str]] = {}
    for rows, into in ((before, old), (after, new)):
        for row in rows:
            if row.theme is not None:
                into.setdefault(row.theme, set()).add(row.newest)
    upserts: list[dict[str, Any]] = []
    gone: dict[tuple[str, str, str, str], set[str]] = {}
    for key in sorted(old.keys() | new.keys()):
        was, now = old.get(key, set()), new.get(key, set())
        if was == now:  # the same items under the same key: nothing moves
            continue
        arrived = now - was
        day, store, category, theme_base = key
        upserts.append(
            {
                "day": day,
                "store": store,
                "category": category,
                "theme_base": theme_base,
                "items": len(now) - len(was),
                "newest": max(arrived, default=""),
            }
        )
        if was - now:
            gone[key] = was - now
    if upserts:
        statement = _upsert(conn, theme_daily)
        t = theme_daily.c
        await conn.execute(
            statement.on_conflict_do_update(
                index_elements=["day", "store", "category", "theme_base"],
                set_={
                    "items": t["items"] + statement.excluded["items"],
                    "newest": case((statement.excluded.newest > t.newest, statement.excluded.newest), else_=t.newest),
                },
            ),
            upserts,
        )
    for key, left in gone.items():
        await _recompute_newest(conn, key, left)


async def _recompute_newest(conn: AsyncConnection, key: tuple[str, str, str, str], gone: set[str]) -> None:
    """The key's newest item left it: its newest is the max over the day's rows of the key (already written)."""
    day, store, category, theme_base = key
    f = feedback.c
    newest = (
        select(func.coalesce(func.max(f.timestamp + " " + f.id), ""))
        .where(
            f.timestamp >= day + DAY_START,
            f.timestamp <= day + DAY_END,
            f.store.is_(None) if store == "" else f.store == store,
            f.category == category,
            f.theme_base == theme_base,
        )
        .scalar_subquery()
    )
    t = theme_daily.c
    await conn.execute(
        update(theme_daily)
        .where(
            t.day == day,
            t.store == store,
            t.category == category,
            t.theme_base == theme_base,
            t.newest.in_(sorted(gone)),
        )
        .values(newest=newest)
    )


async def add_inserted(conn: AsyncConnection, rows: Iterable[Mapping[str, Any]]) -> None:
    """Count rows this transaction has just inserted (their column values as written)."""
    await _apply(conn, (), [Contribution.of(row) for row in rows])


async def _contributions(conn: AsyncConnection, ids: Sequence[str], *, lock: bool) -> list[Contribution]:
    out: list[Contribution] = []
    for start in range(0, len(ids), IN_CHUNK):
        statement = select(*KEY_COLUMNS).where(feedback.c.id.in_(ids[start : start + IN_CHUNK]))
        if lock and conn.dialect.name == "postgresql":
            statement = statement.with_for_update()
        out.extend(Contribution.of(row._mapping) for row in (await conn.execute(statement)).all())
    return out


@asynccontextmanager
async def tracking(conn: AsyncConnection, ids: Sequence[str]) -> AsyncIterator[None]:
    """Around a change or an erasure of the rows ``ids`` inside the caller's transaction: their keys
    before (locked on PostgreSQL) and after, and the difference applied. An exception skips the apply
    (the transaction is rolled back anyway)."""
    ids = list(ids)
    before = await _contributions(conn, ids, lock=True) if ids else []
    yield
    if ids:
        await _apply(conn, before, await _contributions(conn, ids, lock=False))


# -- rebuild ---------------------------------------------------------------------------------------


def _fill_daily() -> Any:
    f = feedback.c
    day = func.substr(f.timestamp, 1, 10)
    keys = (
        day,
        func.coalesce(f.store, ""),
        func.coalesce(f.category, ""),
        func.coalesce(f.severity, ""),
        func.coalesce(f.severity_rank, 0),
        func.coalesce(f.sentiment, ""),
        f.rated,
        f.alert,
        f.needs_review,
        f.structure_failed,
    )
    return insert(feedback_daily).from_select(
        ["day", "store", *COUNT_KEY, "items"], select(*keys, func.count()).group_by(*keys)
    )


def _fill_themes() -> Any:
    f = feedback.c
    keys = (func.substr(f.timestamp, 1, 10), func.coalesce(f.store, ""), f.category, f.theme_base)
    return insert(theme_daily).from_select(
        ["day", "store", "category", "theme_base", "items", "newest"],
        select(*keys, func.count(), func.max(f.timestamp + literal(" ") + f.id))
        .where(f.category.is_not(None), f.theme_base.is_not(None))
        .group_by(*keys),
    )


async def rebuild(conn: AsyncConnection) -> tuple[int, int]:
    """Refill both rollups from the rows, inside the caller's transaction; returns their row counts.

    On PostgreSQL both tables are locked first (EXCLUSIVE: readers go on, writers wait), so a write
    that has adjusted them commits before the refill reads the rows and a write that has not waits for
    it: nothing is counted twice or lost. SQLite's single writer serialises it already."""
    if conn.dialect.name == "postgresql":
        await conn.execute(text("LOCK TABLE feedback_daily, theme_daily IN EXCLUSIVE MODE"))
    await conn.execute(delete(feedback_daily))
    await conn.execute(delete(theme_daily))
    await conn.execute(_fill_daily())
    await conn.execute(_fill_themes())
    daily = int(await conn.scalar(select(func.count()).select_from(feedback_daily)) or 0)
    themes = int(await conn.scalar(select(func.count()).select_from(theme_daily)) or 0)
    return daily, themes


# -- reading ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Plan:
    """Which whole UTC days of a window the rollups answer: ``first``–``last`` (inclusive), except the
    midpoint's day when the midpoint falls inside it (``split``); days before ``midpoint_day`` are the
    first half. ``row_ranges`` are the rest of the window, as ``(from inclusive, to exclusive or None
    for the window's inclusive end)`` instants, for the rows."""

    first: str
    last: str
    midpoint_day: str
    split: bool
    row_ranges: tuple[tuple[str, str | None], ...]


def _next(day: str) -> str:
    return (date.fromisoformat(day) + timedelta(days=1)).isoformat()


def _previous(day: str) -> str:
    return (date.fromisoformat(day) - timedelta(days=1)).isoformat()


def plan(from_: str, to: str, midpoint: str) -> Plan | None:
    """The rollups' part of the window ``[from_, to]`` (normalised instants) split at ``midpoint``, or
    None when no whole day lies inside it (then the rows answer all of it)."""
    first = from_[:10] if from_ == from_[:10] + DAY_START else _next(from_[:10])
    last = to[:10] if to == to[:10] + DAY_END else _previous(to[:10])
    if first > last:
        return None
    m = midpoint[:10]
    split = first <= m <= last and midpoint != m + DAY_START
    ranges: list[tuple[str, str | None]] = []
    if from_ < first + DAY_START:
        ranges.append((from_, first + DAY_START))
    if split:
        ranges.append((m + DAY_START, _next(m) + DAY_START))
    after = _next(last) + DAY_START
    if after <= to:
        ranges.append((after, None))
    return Plan(first, last, m, split, tuple(ranges))


def _narrowed(table: Any, part: Plan, store: str | None, category: str | None) -> list[Any]:
    conditions = [table.c.day >= part.first, table.c.day <= part.last, table.c["items"] > 0]
    if part.split:
        conditions.append(table.c.day != part.midpoint_day)
    if store is not None:
        conditions.append(table.c.store == store)
    if category is not None:
        conditions.append(table.c.category == category)
    return conditions


def count_statement(part: Plan, store: str | None, category: str | None) -> Any:
    """The rollups' count rows of ``part``, in the columns of the rows' count statement ('' for none)."""
    d = feedback_daily.c
    keys = [d.category, d.severity, d.severity_rank, d.sentiment, d.rated, d.alert, d.needs_review, d.structure_failed]
    half = case((d.day < part.midpoint_day, 0), else_=1).label("half")
    return (
        select(
            *keys,
            half,
            func.sum(d["items"]).label("items"),
            func.sum(d["items"] * d.severity_rank).label("ranks"),
        )
        .where(*_narrowed(feedback_daily, part, store, category))
        .group_by(*keys, half)
    )


def theme_statement(part: Plan, store: str | None, category: str | None) -> Any:
    """The rollups' theme rows of ``part``: items and the newest ``timestamp id`` per (category, theme)."""
    t = theme_daily.c
    return (
        select(t.category, t.theme_base, func.sum(t["items"]).label("items"), func.max(t.newest).label("newest"))
        .where(*_narrowed(theme_daily, part, store, category))
        .group_by(t.category, t.theme_base)
    )
