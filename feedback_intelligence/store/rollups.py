"""The report's rollups (ADR 0033): grouped counts of the chain per UTC day and hour, kept exact in the
transaction of every write of ``feedback``.

- ``feedback_daily``: day × the count statement's key → items (the report's counts and trend halves);
  ``feedback_monthly``: the same per UTC month (a long window's whole months, ADR 0087);
- ``theme_daily``: day × category × shown theme → items and the newest ``timestamp id`` (the tie rule);
- ``feedback_hourly``: hour × category × operational alert → items (the series);
- ``series_daily``: day × category × operational alert → items (the series' whole days, ADR 0085);
- ``correction_daily``: day × store × proposing backend × model × field → saved proposals (field '') and
  those in which a person corrected that field (ADR 0065: quality from the field);
- ``issue_daily``: day × issue × store → items and their severity ranks (``issue_monthly``: per month);
  ``issue_category_daily``: day × issue × category → items; ``issue_theme_daily``: day × issue × shown
  theme → items and the newest (the issue view, ADR 0079: one table a facet, so that stores never multiply
  categories' keys).

How a write keeps them (one way for all):

- an insert adds its own rows (:func:`add_inserted`): only the rows this transaction inserted, so a
  retried batch whose ids are taken adds nothing;
- a change or an erasure runs inside :func:`tracking`: the affected rows' keys are read before the
  write (``FOR UPDATE`` on PostgreSQL, so no other writer moves them meanwhile) and after it, and the
  difference is applied (``-1`` under the old key, ``+1`` under the new one);
- every adjustment is one ``INSERT … ON CONFLICT DO UPDATE SET items = items + excluded.items`` per key,
  keys in sorted order (concurrent writers lock rows in one order, so they cannot deadlock); a key
  whose count reaches 0 is deleted in the same transaction (:func:`_drop_emptied`): a rollup row holds
  a theme, a day and a category, and the last item of a key leaving it (an erasure, a correction) must
  leave none of them behind. The row is locked by the upsert already, so the delete takes no new lock;
  on PostgreSQL a writer waiting to add to that key then inserts it afresh (``ON CONFLICT`` retries);
- a theme key's newest item (either theme rollup's): raised by ``max`` on an increment; when the item that
  was the newest leaves the key it is recomputed from that day's rows of the key (one indexed query).

Buckets are UTC, ``substr(timestamp, 1, 10)`` and ``(1, 13)`` of the fixed-width instant, the same on
both engines: the report's window is instants, so a UTC bucket serves it as well as a local one and never
moves with ``FI_TIMEZONE``. :func:`plan` says which whole buckets of a window the rollups answer; the
rest of the window (its edges, the midpoint's day) and every filter they do not carry come from the rows
(store/aggregates.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import (
    Integer,
    Text,
    and_,
    bindparam,
    case,
    cast,
    delete,
    func,
    insert,
    literal,
    or_,
    select,
    text,
    union_all,
    update,
)
from sqlalchemy.dialects.postgresql import array
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.visitors import InternalTraversal, _TraverseInternalsType

from feedback_intelligence.store.schema import (
    correction_daily,
    feedback,
    feedback_daily,
    feedback_hourly,
    feedback_monthly,
    issue_category_daily,
    issue_daily,
    issue_monthly,
    issue_theme_daily,
    series_daily,
    theme_daily,
)

COUNT_KEY = ("category", "severity", "severity_rank", "sentiment", "rated", "alert", "needs_review", "structure_failed")
#: What a row contributes: read before and after a change (the columns the rollups group by).
KEY_COLUMNS = (
    feedback.c.id,
    feedback.c.timestamp,
    feedback.c.category,
    feedback.c.severity,
    feedback.c.severity_rank,
    feedback.c.sentiment,
    feedback.c.rated,
    feedback.c.alert,
    feedback.c.needs_review,
    feedback.c.structure_failed,
    feedback.c.theme_base,
    feedback.c.store,
    feedback.c.proposal_backend,
    feedback.c.proposal_model,
    feedback.c.corrected_fields,
    feedback.c.issue,
)
#: The fields whose corrections ``correction_daily`` counts (the structure's, as the desk corrects them).
CORRECTABLE = ("category", "theme", "severity", "type", "language", "sentiment")
CORRECTION_KEY = ("day", "store", "backend", "model", "field")
IN_CHUNK = 5_000
DAILY_KEY = ("day", *COUNT_KEY)
MONTHLY_KEY = ("month", *COUNT_KEY)
HOURLY_KEY = ("hour", "category", "alert")
SERIES_KEY = ("day", "category", "alert")
THEME_KEY = ("day", "category", "theme_base")
ISSUE_KEY = ("day", "issue", "store")
ISSUE_MONTH_KEY = ("month", "issue", "store")
ISSUE_CATEGORY_KEY = ("day", "issue", "category")
ISSUE_THEME_KEY = ("day", "issue", "theme_base")

ThemeKey = tuple[str, str, str]  # day, what the theme is counted under (a category, an issue), theme_base


@dataclass(frozen=True, slots=True)
class Contribution:
    """One row's place in the rollups: its ``feedback_daily`` and ``feedback_hourly`` keys and, when it
    has a category and a theme, its ``theme_daily`` key and newest-key string."""

    daily: tuple[Any, ...]
    hourly: tuple[str, str, bool]
    theme: ThemeKey | None
    newest: str
    corrections: tuple[tuple[str, str, str, str, str], ...] = ()  # its ``correction_daily`` keys
    issue: tuple[str, str, str] | None = None  # its ``issue_daily`` key, when it has an issue
    rank: int = 0  # its severity_rank (0 for none), summed by ``issue_daily``
    issue_category: tuple[str, str, str] | None = None  # with an issue and a category
    issue_theme: ThemeKey | None = None  # its ``issue_theme_daily`` key, with an issue and a theme

    @property
    def series(self) -> tuple[str, str, bool]:
        """Its ``series_daily`` key: its hour's day, category and alert."""
        hour, category, alert = self.hourly
        return hour[:10], category, alert

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> Contribution:
        stamp = str(row["timestamp"])
        category = row.get("category")
        alert = bool(row.get("alert"))
        daily = (
            stamp[:10],
            category or "",
            row.get("severity") or "",
            int(row.get("severity_rank") or 0),
            row.get("sentiment") or "",
            bool(row.get("rated")),
            alert,
            bool(row.get("needs_review")),
            bool(row.get("structure_failed")),
        )
        theme_base = row.get("theme_base")
        theme = (stamp[:10], category, theme_base) if category is not None and theme_base is not None else None
        issue = row.get("issue")
        day = stamp[:10]
        return cls(
            daily,
            (stamp[:13], category or "", alert),
            theme,
            f"{stamp} {row['id']}",
            _correction_keys(row),
            (day, issue, row.get("store") or "") if issue is not None else None,
            daily[3],
            (day, issue, category) if issue is not None and category is not None else None,
            (day, issue, theme_base) if issue is not None and theme_base is not None else None,
        )


def _correction_keys(row: Mapping[str, Any]) -> tuple[tuple[str, str, str, str, str], ...]:
    """A saved proposal's ``correction_daily`` keys: its own (field '') and one per corrected field."""
    backend = row.get("proposal_backend")
    if backend is None:
        return ()
    corrected = str(row.get("corrected_fields") or "")
    head = (str(row["timestamp"])[:10], row.get("store") or "", backend, row.get("proposal_model") or "")
    return tuple((*head, name) for name in ("", *CORRECTABLE) if not name or f",{name}," in corrected)


def _upsert(
    conn: AsyncConnection,
    table: Any,
    keys: Sequence[str],
    rows: list[dict[str, Any]],
    sums: Sequence[str] = ("items",),
    **also: Any,
) -> Any:
    statement = (postgresql_insert if conn.dialect.name == "postgresql" else sqlite_insert)(table)
    adds = {name: table.c[name] + statement.excluded[name] for name in sums}
    adds.update({name: value(statement) for name, value in also.items()})
    return conn.execute(statement.on_conflict_do_update(index_elements=list(keys), set_=adds), rows)


async def _add_counts(conn: AsyncConnection, table: Any, keys: Sequence[str], deltas: dict[Any, int]) -> None:
    await _add_sums(conn, table, keys, {key: (n,) for key, n in deltas.items()})


async def _add_sums(
    conn: AsyncConnection,
    table: Any,
    keys: Sequence[str],
    deltas: dict[Any, tuple[int, ...]],
    sums: Sequence[str] = ("items",),
) -> None:
    """Add each key's ``deltas`` to its ``sums`` columns (items first); a key whose items went down and
    reached 0 is deleted. A key whose items stay but whose other sums move (a severity corrected) is
    updated too."""
    rows = [
        dict(zip(keys, key, strict=True), **dict(zip(sums, values, strict=True)))
        for key, values in sorted(deltas.items())
        if any(values)
    ]
    if rows:
        await _upsert(conn, table, keys, rows, sums)
    await _drop_emptied(conn, table, keys, [key for key, values in deltas.items() if values[0] < 0])


async def _drop_emptied(conn: AsyncConnection, table: Any, keys: Sequence[str], lowered: list[tuple[Any, ...]]) -> None:
    """Delete the rows of the ``lowered`` keys (their counts went down in this transaction) that reached 0:
    no row is kept for what no item holds any longer."""
    if lowered:
        statement = delete(table).where(
            *[table.c[name] == bindparam(f"k_{name}") for name in keys], table.c["items"] == 0
        )
        await conn.execute(
            statement, [{f"k_{n}": v for n, v in zip(keys, key, strict=True)} for key in sorted(lowered)]
        )


def _by_month(deltas: dict[tuple[Any, ...], Any]) -> dict[tuple[Any, ...], Any]:
    """A daily rollup's deltas (a day first, an int or a tuple of sums) summed under the day's month."""
    months: dict[tuple[Any, ...], Any] = {}
    for (day, *rest), delta in deltas.items():
        key = (day[:7], *rest)
        was = months.get(key)
        if was is None:
            months[key] = delta
        elif isinstance(delta, tuple):
            months[key] = tuple(a + b for a, b in zip(was, delta, strict=True))
        else:
            months[key] = was + delta
    return months


async def _apply(conn: AsyncConnection, before: Sequence[Contribution], after: Sequence[Contribution]) -> None:
    daily: dict[tuple[Any, ...], int] = {}
    hourly: dict[tuple[Any, ...], int] = {}
    series: dict[tuple[Any, ...], int] = {}
    corrections: dict[tuple[Any, ...], int] = {}
    issues: dict[tuple[Any, ...], tuple[int, ...]] = {}  # items, ranks
    issue_categories: dict[tuple[Any, ...], int] = {}
    for sign, rows in ((-1, before), (1, after)):
        for row in rows:
            daily[row.daily] = daily.get(row.daily, 0) + sign
            hourly[row.hourly] = hourly.get(row.hourly, 0) + sign
            series[row.series] = series.get(row.series, 0) + sign
            for key in row.corrections:
                corrections[key] = corrections.get(key, 0) + sign
            if row.issue is not None:
                items, ranks = issues.get(row.issue, (0, 0))
                issues[row.issue] = (items + sign, ranks + sign * row.rank)
            if row.issue_category is not None:
                issue_categories[row.issue_category] = issue_categories.get(row.issue_category, 0) + sign
    await _add_counts(conn, feedback_daily, DAILY_KEY, daily)
    await _add_counts(conn, feedback_monthly, MONTHLY_KEY, _by_month(daily))
    await _add_counts(conn, feedback_hourly, HOURLY_KEY, hourly)
    await _add_counts(conn, series_daily, SERIES_KEY, series)
    await _add_counts(conn, correction_daily, CORRECTION_KEY, corrections)
    await _add_sums(conn, issue_daily, ISSUE_KEY, issues, ("items", "ranks"))
    await _add_sums(conn, issue_monthly, ISSUE_MONTH_KEY, _by_month(issues), ("items", "ranks"))
    await _add_counts(conn, issue_category_daily, ISSUE_CATEGORY_KEY, issue_categories)
    for themes in THEMES:
        await _apply_themes(conn, themes, before, after)


@dataclass(frozen=True, slots=True)
class Themes:
    """A theme rollup: items and the newest ``timestamp id`` per day, a grouping column (``keys[1]``) and
    theme; ``of`` is a row's key in it (None: the row has none)."""

    table: Any
    keys: tuple[str, str, str]
    of: Callable[[Contribution], ThemeKey | None]


THEMES = (
    Themes(theme_daily, THEME_KEY, lambda row: row.theme),
    Themes(issue_theme_daily, ISSUE_THEME_KEY, lambda row: row.issue_theme),
)


async def _apply_themes(
    conn: AsyncConnection, themes: Themes, before: Sequence[Contribution], after: Sequence[Contribution]
) -> None:
    old: dict[ThemeKey, set[str]] = {}
    new: dict[ThemeKey, set[str]] = {}
    for rows, into in ((before, old), (after, new)):
        for row in rows:
            key = themes.of(row)
            if key is not None:
                into.setdefault(key, set()).add(row.newest)
    upserts: list[dict[str, Any]] = []
    gone: dict[ThemeKey, set[str]] = {}
    lowered: list[ThemeKey] = []
    for key in sorted(old.keys() | new.keys()):
        was, now = old.get(key, set()), new.get(key, set())
        if was == now:  # the same items under the same key: nothing moves
            continue
        upserts.append(
            {
                **dict(zip(themes.keys, key, strict=True)),
                "items": len(now) - len(was),
                "newest": max(now - was, default=""),
            }
        )
        if was - now:
            gone[key] = was - now
        if len(now) < len(was):
            lowered.append(key)
    if upserts:
        t = themes.table.c
        await _upsert(
            conn,
            themes.table,
            themes.keys,
            upserts,
            newest=lambda s: case((s.excluded.newest > t.newest, s.excluded.newest), else_=t.newest),
        )
    await _drop_emptied(conn, themes.table, themes.keys, lowered)
    for key, left in gone.items():  # its newest read again (a key just deleted has no row to update)
        await _recompute_newest(conn, themes, key, left)


async def _recompute_newest(conn: AsyncConnection, themes: Themes, key: ThemeKey, gone: set[str]) -> None:
    """The key's newest item left it: its newest is the max over the day's rows of the key (already
    written in this transaction), read by the ``(category, timestamp)`` or ``(issue, timestamp)`` index."""
    f = feedback.c
    day, group, theme_base = key
    newest = (
        select(func.coalesce(func.max(f.timestamp + " " + f.id), ""))
        .where(
            f[themes.keys[1]] == group,
            f.timestamp >= DAY.start(day),
            f.timestamp <= DAY.end(day),
            f.theme_base == theme_base,
        )
        .scalar_subquery()
    )
    t = themes.table.c
    await conn.execute(
        update(themes.table)
        .where(*[t[name] == value for name, value in zip(themes.keys, key, strict=True)], t.newest.in_(sorted(gone)))
        .values(newest=newest)
    )


async def add_inserted(conn: AsyncConnection, rows: Iterable[Mapping[str, Any]]) -> None:
    """Count rows this transaction has just inserted (their column values as written)."""
    await _apply(conn, (), [Contribution.of(row) for row in rows])


async def _contributions(conn: AsyncConnection, ids: Sequence[str], *, lock: bool) -> list[Contribution]:
    out: list[Contribution] = []
    for start in range(0, len(ids), IN_CHUNK):
        chunk = ids[start : start + IN_CHUNK]
        statement = select(*KEY_COLUMNS).where(feedback.c.id.in_(chunk))
        if lock and conn.dialect.name == "postgresql":
            statement = statement.with_for_update()
        elif lock:
            # SQLite begins a transaction at the first write, not at a read: a write that changes nothing
            # takes the database's write lock first, so no other writer moves the rows before they are read
            await conn.execute(update(feedback).where(feedback.c.id.in_(chunk)).values(id=feedback.c.id))
        out.extend(Contribution.of(dict(row._mapping)) for row in (await conn.execute(statement)).all())
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


def _fills() -> list[Any]:
    """``INSERT … SELECT … GROUP BY`` of each rollup from the rows (migration 0010 runs the same), written in
    the order of the key, its day or hour first: a window's rows then lie on the window's own pages, as live
    writes, which arrive in time order, leave them. Grouped by hashing, a refill wrote them in no order, and a
    month's hour rows of a chain were read from every page of the table (ADR 0085)."""
    f = feedback.c
    day = func.substr(f.timestamp, 1, 10)
    daily_keys = (
        day,
        func.coalesce(f.category, ""),
        func.coalesce(f.severity, ""),
        func.coalesce(f.severity_rank, 0),
        func.coalesce(f.sentiment, ""),
        f.rated,
        f.alert,
        f.needs_review,
        f.structure_failed,
    )
    hourly_keys = (func.substr(f.timestamp, 1, 13), func.coalesce(f.category, ""), f.alert)
    series_keys = (day, func.coalesce(f.category, ""), f.alert)
    theme_keys = (day, f.category, f.theme_base)
    return [
        insert(feedback_daily).from_select(
            ["day", *COUNT_KEY, "items"], select(*daily_keys, func.count()).group_by(*daily_keys).order_by(*daily_keys)
        ),
        insert(feedback_hourly).from_select(
            ["hour", "category", "alert", "items"],
            select(*hourly_keys, func.count()).group_by(*hourly_keys).order_by(*hourly_keys),
        ),
        insert(series_daily).from_select(
            [*SERIES_KEY, "items"], select(*series_keys, func.count()).group_by(*series_keys).order_by(*series_keys)
        ),
        insert(theme_daily).from_select(
            ["day", "category", "theme_base", "items", "newest"],
            select(*theme_keys, func.count(), func.max(f.timestamp + literal(" ") + f.id))
            .where(f.category.is_not(None), f.theme_base.is_not(None))
            .group_by(*theme_keys)
            .order_by(*theme_keys),
        ),
        *_correction_fills(),
        *_issue_fills(),
        *_monthly_fills(),
    ]


def _monthly_fills() -> list[Any]:
    """The monthly rollups from the daily ones they add up (filled before them in :func:`_fills`; migration
    0026 runs the same), in the order of their key."""
    d, i = feedback_daily.c, issue_daily.c
    count_keys = (func.substr(d.day, 1, 7), *(d[name] for name in COUNT_KEY))
    issue_keys = (func.substr(i.day, 1, 7), i.issue, i.store)
    return [
        insert(feedback_monthly).from_select(
            [*MONTHLY_KEY, "items"],
            select(*count_keys, func.sum(d["items"])).group_by(*count_keys).order_by(*count_keys),
        ),
        insert(issue_monthly).from_select(
            [*ISSUE_MONTH_KEY, "items", "ranks"],
            select(*issue_keys, func.sum(i["items"]), func.sum(i.ranks)).group_by(*issue_keys).order_by(*issue_keys),
        ),
    ]


def _issue_fills() -> list[Any]:
    """The issue view's rollups from the rows (migration 0024 runs the same)."""
    f = feedback.c
    day = func.substr(f.timestamp, 1, 10)
    issue_keys = (day, f.issue, func.coalesce(f.store, ""))
    category_keys = (day, f.issue, f.category)
    theme_keys = (day, f.issue, f.theme_base)
    return [
        insert(issue_daily).from_select(
            [*ISSUE_KEY, "items", "ranks"],
            select(*issue_keys, func.count(), func.coalesce(func.sum(f.severity_rank), 0))
            .where(f.issue.is_not(None))
            .group_by(*issue_keys)
            .order_by(*issue_keys),
        ),
        insert(issue_category_daily).from_select(
            [*ISSUE_CATEGORY_KEY, "items"],
            select(*category_keys, func.count())
            .where(f.issue.is_not(None), f.category.is_not(None))
            .group_by(*category_keys)
            .order_by(*category_keys),
        ),
        insert(issue_theme_daily).from_select(
            [*ISSUE_THEME_KEY, "items", "newest"],
            select(*theme_keys, func.count(), func.max(f.timestamp + literal(" ") + f.id))
            .where(f.issue.is_not(None), f.theme_base.is_not(None))
            .group_by(*theme_keys)
            .order_by(*theme_keys),
        ),
    ]


def _correction_fills() -> list[Any]:
    """``correction_daily`` from the rows: the saved proposals, then each field's corrected ones."""
    f = feedback.c
    keys = (func.substr(f.timestamp, 1, 10), func.coalesce(f.store, ""), f.proposal_backend)
    model = func.coalesce(f.proposal_model, "")
    fills = []
    for name in ("", *CORRECTABLE):
        where = [f.proposal_backend.is_not(None)]
        if name:
            where.append(f.corrected_fields.like(f"%,{name},%"))
        fills.append(
            insert(correction_daily).from_select(
                [*CORRECTION_KEY, "items"],
                select(*keys, model, literal(name), func.count()).where(*where).group_by(*keys, model).order_by(*keys),
            )
        )
    return fills


ROLLUPS = (
    feedback_daily,
    feedback_monthly,
    feedback_hourly,
    series_daily,
    theme_daily,
    correction_daily,
    issue_daily,
    issue_monthly,
    issue_category_daily,
    issue_theme_daily,
)


async def rebuild(conn: AsyncConnection) -> dict[str, int]:
    """Refill the rollups from the rows, inside the caller's transaction; returns each one's row count.

    On PostgreSQL they are locked first (EXCLUSIVE: readers go on, writers wait), so a write that has
    adjusted them commits before the refill reads the rows and a write that has not waits for it:
    nothing is counted twice or lost. SQLite's single writer serialises it already."""
    if conn.dialect.name == "postgresql":
        await conn.execute(text(f"LOCK TABLE {', '.join(t.name for t in ROLLUPS)} IN EXCLUSIVE MODE"))
    for table in ROLLUPS:
        await conn.execute(delete(table))
    for fill in _fills():
        await conn.execute(fill)
    return {t.name: int(await conn.scalar(select(func.count()).select_from(t)) or 0) for t in ROLLUPS}


# -- reading ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Bucket:
    """A UTC bucket of the fixed-width instant: its first ``width`` characters."""

    width: int
    first_instant: str  # what completes a bucket's string to its first instant
    last_instant: str  # … and to its last
    step: timedelta
    form: str

    def start(self, bucket: str) -> str:
        return bucket + self.first_instant

    def end(self, bucket: str) -> str:
        return bucket + self.last_instant

    def shift(self, bucket: str, n: int) -> str:
        """The bucket ``n`` steps on; raises OverflowError past year 1 or 9999. (``isoformat``, not
        ``strftime``: the C library writes year 791 as "791", which no longer sorts as an instant.)"""
        return (datetime.strptime(bucket, self.form) + n * self.step).isoformat()[: self.width]


DAY = Bucket(10, "T00:00:00.0000000+00:00", "T23:59:59.9999999+00:00", timedelta(days=1), "%Y-%m-%d")
HOUR = Bucket(13, ":00:00.0000000+00:00", ":59:59.9999999+00:00", timedelta(hours=1), "%Y-%m-%dT%H")


@dataclass(frozen=True, slots=True)
class Plan:
    """Which whole buckets of a window the rollups answer: ``first``–``last`` (inclusive), except the
    midpoint's bucket when the midpoint falls inside it (``split``); buckets before ``midpoint`` are the
    first half. ``row_ranges`` are the rest of the window, ``(from inclusive, to exclusive)`` instants,
    the last one's ``None`` the window's own inclusive end: counted on the rows."""

    first: str
    last: str
    midpoint: str
    split: bool
    row_ranges: tuple[tuple[str, str | None], ...]


def plan(bucket: Bucket, from_: str, to: str, midpoint: str | None = None) -> Plan | None:
    """The rollups' part of the window ``[from_, to]`` (normalised instants), split at ``midpoint`` if
    given, or None when no whole bucket lies inside it (then the rows answer all of it)."""
    try:
        return _plan(bucket, from_, to, midpoint)
    except OverflowError:  # a window at the calendar's ends (year 1, year 9999): the rows answer it
        return None


def _plan(bucket: Bucket, from_: str, to: str, midpoint: str | None) -> Plan | None:
    head, tail = from_[: bucket.width], to[: bucket.width]
    first = head if from_ == bucket.start(head) else bucket.shift(head, 1)
    last = tail if to == bucket.end(tail) else bucket.shift(tail, -1)
    if first > last:
        return None
    m = midpoint[: bucket.width] if midpoint is not None else first
    split = midpoint is not None and first <= m <= last and midpoint != bucket.start(m)
    ranges: list[tuple[str, str | None]] = []
    if from_ < bucket.start(first):
        ranges.append((from_, bucket.start(first)))
    if split:
        ranges.append((bucket.start(m), bucket.start(bucket.shift(m, 1))))
    after = bucket.start(bucket.shift(last, 1))
    if after <= to:
        ranges.append((after, None))
    return Plan(first, last, m, split, tuple(ranges))


def _narrowed(column: Any, table: Any, part: Plan, category: str | None) -> list[Any]:
    conditions = [column >= part.first, column <= part.last, table.c["items"] > 0]
    if part.split:
        conditions.append(column != part.midpoint)
    if category is not None:
        conditions.append(table.c.category == category)
    return conditions


def month_cover(part: Plan) -> tuple[list[str], list[tuple[str, str]]]:
    """The whole UTC months of ``part`` a monthly rollup answers, and the rest of its days as inclusive ranges.

    A month is answered when it lies inside the part on one side of the midpoint (every day of it in one
    half) and is not the month of a midpoint that cuts its day (that day is the rows'). A year's window then
    reads ten or eleven months' rows and one or two months of days' instead of 365 days' (ADR 0087)."""
    try:
        first, last = date.fromisoformat(part.first), date.fromisoformat(part.last)
        months: list[str] = []
        start = first if first.day == 1 else _next_month(first)
        while (end := _next_month(start) - timedelta(days=1)) <= last:
            month_start, month_end = start.isoformat(), end.isoformat()
            one_side = month_end < part.midpoint or month_start >= part.midpoint
            if one_side and not (part.split and month_start == part.midpoint):
                months.append(month_start[:7])
            start = _next_month(start)
        ranges: list[tuple[str, str]] = []
        day = first
        for month in months:
            opens = date.fromisoformat(f"{month}-01")
            if day < opens:
                ranges.append((day.isoformat(), (opens - timedelta(days=1)).isoformat()))
            day = _next_month(opens)
        if day <= last:
            ranges.append((day.isoformat(), last.isoformat()))
    except (OverflowError, ValueError):  # the calendar's ends: the days answer it all
        return [], [(part.first, part.last)]
    return months, ranges


def _next_month(day: date) -> date:
    return date(day.year + day.month // 12, day.month % 12 + 1, 1)


def _days_and_months(part: Plan, daily: Any, monthly: Any, columns: Sequence[str], category: str | None) -> Any:
    """The rows of ``part`` of a daily rollup, in ``columns`` and ``day``: its whole months from the rollup's
    monthly grain (:func:`month_cover`), each under its first day, and its other days from the daily rows."""
    months, ranges = month_cover(part)
    if not months:
        return select(*(daily.c[name] for name in columns), daily.c.day).where(
            *_narrowed(daily.c.day, daily, part, category)
        )
    parts = [
        select(*(monthly.c[name] for name in columns), (monthly.c.month + literal("-01")).label("day")).where(
            monthly.c.month.in_(months),
            monthly.c["items"] > 0,
            *([monthly.c.category == category] if category is not None else []),
        )
    ]
    if ranges:
        day = daily.c.day
        where = [or_(*(and_(day >= a, day <= b) for a, b in ranges)), daily.c["items"] > 0]
        if part.split:
            where.append(day != part.midpoint)
        if category is not None:
            where.append(daily.c.category == category)
        parts.append(select(*(daily.c[name] for name in columns), day).where(*where))
    return union_all(*parts)


def count_statement(part: Plan, category: str | None) -> Any:
    """The rollups' count rows of ``part``, in the columns of the rows' count statement ('' for none)."""
    rows = _days_and_months(part, feedback_daily, feedback_monthly, [*COUNT_KEY, "items"], category).subquery()
    keys = [rows.c[name] for name in COUNT_KEY]
    half = case((rows.c.day < part.midpoint, 0), else_=1).label("half")
    items = rows.c["items"]
    return select(
        *keys, half, func.sum(items).label("items"), func.sum(items * rows.c.severity_rank).label("ranks")
    ).group_by(*keys, half)


def theme_statement(part: Plan, category: str | None) -> Any:
    """The rollups' theme rows of ``part``: items and the newest ``timestamp id`` per (category, theme)."""
    t = theme_daily.c
    return (
        select(t.category, t.theme_base, func.sum(t["items"]).label("items"), func.max(t.newest).label("newest"))
        .where(*_narrowed(t.day, theme_daily, part, category))
        .group_by(t.category, t.theme_base)
    )


# The issue rollups carry no category: they answer a window without any other filter (aggregates.py).


def issue_statement(part: Plan) -> Any:
    """The rollups' issue rows of ``part`` by store and half, in the columns of the rows' statement."""
    i = _days_and_months(part, issue_daily, issue_monthly, ("issue", "store", "items", "ranks"), None).subquery().c
    half = case((i.day < part.midpoint, 0), else_=1).label("half")
    return select(
        i.issue, i.store, half, func.sum(i["items"]).label("items"), func.sum(i.ranks).label("ranks")
    ).group_by(i.issue, i.store, half)


def issue_category_statement(part: Plan) -> Any:
    """The rollups' items by issue and category of ``part``."""
    c = issue_category_daily.c
    return (
        select(c.issue, c.category, func.sum(c["items"]).label("items"))
        .where(*_narrowed(c.day, issue_category_daily, part, None))
        .group_by(c.issue, c.category)
    )


def issue_theme_statement(part: Plan) -> Any:
    """The rollups' issue × theme rows of ``part``: items and the newest ``timestamp id``."""
    t = issue_theme_daily.c
    return (
        select(t.issue, t.theme_base, func.sum(t["items"]).label("items"), func.max(t.newest).label("newest"))
        .where(*_narrowed(t.day, issue_theme_daily, part, None))
        .group_by(t.issue, t.theme_base)
    )


def issue_total_statement(part: Plan) -> Any:
    """The rollups' items per issue of ``part`` (the period before the window)."""
    i = _days_and_months(part, issue_daily, issue_monthly, ("issue", "items"), None).subquery().c
    return select(i.issue, func.sum(i["items"]).label("items")).group_by(i.issue)


class Bucketed(ColumnElement[int]):
    """How many of ``bounds`` (ascending UTC hours) are ``<= hour``. A ``CASE`` of one branch a bound on
    SQLite; ``width_bucket`` over the bounds' array on PostgreSQL, the same number by a binary search: a
    year's window is 53 weekly bounds, and the ``CASE`` tried most of them on each of a chain's ~340,000
    hour rows (1.1–1.3 s against 0.75–1.0 s, bench/chain_years' 10,000,000 items)."""

    __visit_name__ = "bucketed"
    inherit_cache = True
    _traverse_internals: _TraverseInternalsType = [  # noqa: RUF012
        ("by_case", InternalTraversal.dp_clauseelement),
        ("by_width", InternalTraversal.dp_clauseelement),
    ]
    type = Integer()

    def __init__(self, hour: Any, bounds: Sequence[str]) -> None:
        # both made here, so their bound values are the statement's own (cached as any clause's)
        self.by_case = case(*[(hour >= bound, k) for k, bound in reversed(list(enumerate(bounds, 1)))], else_=0)
        values: Any = array([literal(bound, type_=Text()) for bound in bounds], type_=Text())
        self.by_width = func.width_bucket(cast(hour, Text()), values)


@compiles(Bucketed)
def _bucketed_case(element: Bucketed, compiler: SQLCompiler, **kw: Any) -> str:
    return compiler.process(element.by_case, **kw)


@compiles(Bucketed, "postgresql")
def _bucketed_width(element: Bucketed, compiler: SQLCompiler, **kw: Any) -> str:
    return compiler.process(element.by_width, **kw)


def bucketed(hour: Any, bounds: Sequence[str] | None) -> Any:
    """The bucket of an hour column: how many of ``bounds`` (ascending UTC hours) are ``<= hour``; the
    hour itself without bounds."""
    if not bounds:
        return hour
    return Bucketed(hour, bounds)


def hours_statement(part: Plan, category: str | None, bounds: Sequence[str] | None = None) -> Any:
    """The rollups' hour rows of ``part``, in the columns of the rows' hours statement; with ``bounds``,
    grouped by bucket as ``aggregates.window_hours`` says."""
    h = feedback_hourly.c
    where = _narrowed(h.hour, feedback_hourly, part, category)
    if not bounds:
        return select(h.hour, h.category, h.alert, h["items"]).where(*where)
    bucket = bucketed(h.hour, bounds).label("bucket")
    return (
        select(func.min(h.hour).label("hour"), h.category, h.alert, func.sum(h["items"]).label("items"))
        .where(*where)
        .group_by(bucket, h.category, h.alert)
    )


def day_hours_statement(part: Plan, category: str | None, bounds: Sequence[str]) -> Any:
    """The series' rows of ``part``'s whole UTC days, grouped by ``bounds`` as :func:`hours_statement` groups
    hours, from ``series_daily``: a day's rows counted in the bucket of its first hour (``"…T00"``), and the
    hours of a day that a bound cuts, from the bound to the day's end, moved from that bucket to their own
    (their hour rows added under their hours and taken away under the day's first hour). A year's week
    buckets read a day's keys a day and two hours' keys a week, where the hour rows were 24 a day
    (ADR 0085)."""
    d, h = series_daily.c, feedback_hourly.c
    whole = select((d.day + literal("T00")).label("hour"), d.category, d.alert, d["items"].label("items")).where(
        *_narrowed(d.day, series_daily, part, category)
    )
    cut = [
        (bound, bound[:10] + "T23") for bound in bounds if part.first <= bound[:10] <= part.last and bound[11:] != "00"
    ]
    parts: list[Any] = [whole]
    if cut:
        moved = [or_(*(and_(h.hour >= start, h.hour <= end) for start, end in cut)), h["items"] > 0]
        if category is not None:
            moved.append(h.category == category)
        parts += [
            select(h.hour, h.category, h.alert, h["items"]).where(*moved),
            select((func.substr(h.hour, 1, 10) + literal("T00")).label("hour"), h.category, h.alert, -h["items"]).where(
                *moved
            ),
        ]
    rows = union_all(*parts).subquery()
    bucket = bucketed(rows.c.hour, bounds).label("bucket")
    items = func.sum(rows.c["items"])
    return (
        select(func.min(rows.c.hour).label("hour"), rows.c.category, rows.c.alert, items.label("items"))
        .group_by(bucket, rows.c.category, rows.c.alert)
        .having(items != 0)
    )
