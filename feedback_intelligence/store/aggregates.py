"""The report's deterministic layer in the database: a fixed set of GROUP BY statements over the derived
columns, in one read snapshot per channel database, folded in Python by grouped rows, never by items
(ADR 0024 sections 1 and 3). Examples (alert rows, a group's sources, its newest items) come by LIMIT, per
category with ``row_number() over (partition by category …)`` on both engines.

Several channel stores are answered concurrently, their grouped rows added key by key and their
examples merged in the order key and cut, so the one inbox is a matter of passing both stores.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple, Protocol, TypeVar

from sqlalchemy import and_, case, exists, func, select, true, union_all
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.elements import ColumnElement

from feedback_intelligence.records import StoredFeedback
from feedback_intelligence.store import rollups, search
from feedback_intelligence.store.feedback_store import FeedbackStore
from feedback_intelligence.store.rows import row_to_record
from feedback_intelligence.store.schema import feedback, feedback_alerts

ANY_ALERT = "any"
IN_CHUNK = 5_000


@dataclass(frozen=True, slots=True)
class ItemFilter:
    """Which items a view counts. ``None`` = no condition; ``from_``/``to`` are normalised instants
    (inclusive, as the report's window). ``alert`` is ``"any"`` (an operational alert) or an alert
    category key (a hit of that category); ``q``: every word a folded substring of the text; ``advice``:
    True = only rows where a rule disagrees with the person's value (ADR 0045), False = only rows where none does.
    ``channel`` is not a column: it names the one channel database that answers (None = every one),
    which the caller's choice of stores applies (``report/sources.StoreSource``)."""

    from_: str | None = None
    to: str | None = None
    store: str | None = None
    category: str | None = None
    issue: str | None = None
    severity: str | None = None
    type: str | None = None
    sentiment: str | None = None
    source: str | None = None
    alert: str | None = None
    q: str | None = None
    channel: str | None = None
    advice: bool | None = None


def where_clause(flt: ItemFilter, *, use_index: bool = True, table: Any = feedback) -> ColumnElement[bool]:
    """The WHERE of every statement: one condition per set field of ``flt`` (AND); ``q``'s are
    store/search.py's (``use_index=False``: without SQLite's search index, for what compares the two).
    ``table``: another table with ``feedback``'s columns of the fields set (the search's narrow copy,
    store/search_rows.py)."""
    c = table.c
    conditions: list[ColumnElement[bool]] = []
    if flt.from_ is not None:
        conditions.append(c.timestamp >= flt.from_)
    if flt.to is not None:
        conditions.append(c.timestamp <= flt.to)
    for name, value in (
        ("store", flt.store),
        ("category", flt.category),
        ("issue", flt.issue),
        ("severity", flt.severity),
        ("type", flt.type),
        ("sentiment", flt.sentiment),
        ("source", flt.source),
    ):
        if value is not None:  # looked up only when set: the narrow copy has a few of the columns
            conditions.append(c[name] == value)
    if flt.alert == ANY_ALERT:
        conditions.append(c.alert.is_(True))
    elif flt.alert is not None:
        conditions.append(
            exists().where(feedback_alerts.c.feedback_id == c.id, feedback_alerts.c.category == flt.alert)
        )
    if flt.advice is not None:  # a JSON text, null when no rule disagrees (store/rows.rule_advice_json)
        advised = c.rule_advice_json.is_not(None)
        conditions.append(advised if flt.advice else ~advised)
    if flt.q is not None:
        conditions.extend(search.conditions(flt.q, use_index=use_index, text_folded=c.text_folded))
    return and_(*conditions) if conditions else true()


# -- the answers ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CountKey:
    """One grouped row's key: an item's category (None = unstructured) and what the report splits by."""

    category: str | None
    severity: str | None
    sentiment: str | None
    rated: bool
    alert: bool
    needs_review: bool
    structure_failed: bool
    second_half: bool  # timestamp >= the window's midpoint


@dataclass(frozen=True, slots=True)
class IssueKey:
    """One grouped row of the issue view (ADR 0055): the problem, where (store, None = none) and which
    half of the window. Its departments are counted apart (``issue_categories``): a key of store and
    department would hold their every pair (ADR 0079)."""

    issue: str
    store: str | None
    second_half: bool


@dataclass(slots=True)
class Counted:
    items: int = 0
    rank_sum: int = 0  # sum of severity_rank (the trend's mean severity per half)


@dataclass(slots=True)
class ThemeCount:
    items: int = 0
    newest: str = ""  # max of "timestamp id": the tie rule's key (newest item first)


@dataclass(frozen=True, slots=True)
class AlertHitRow:
    category: str
    pattern: str
    words: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Example:
    """One example item of a view (an alert row, a group's source or newest item), with its channel."""

    channel: str
    id: str
    source: str
    timestamp: str
    text: str
    severity: str | None
    severity_rank: int
    needs_review: bool
    sentiment: str | None
    category: str | None
    hits: tuple[AlertHitRow, ...] = ()
    theme: str | None = None  # the shown theme in base form (theme_base), for the automatic summary's quotes
    store: str | None = None  # the item's store id: an alert card names its store
    issue: str | None = None  # the item's problem (ADR 0055): the brief folds an alert rise into it

    def newest_key(self) -> tuple[str, str, str]:
        return (self.timestamp, self.channel, self.id)


K = TypeVar("K")  # a grouped row's key: a CountKey, an issue, a (category, theme) pair


def _add_counts(mine: dict[K, Counted], other: dict[K, Counted]) -> None:
    """Another channel's counts added key by key (items and their severity ranks)."""
    for key, counted in other.items():
        found = mine.setdefault(key, Counted())
        found.items += counted.items
        found.rank_sum += counted.rank_sum


def _add_themes(mine: dict[K, ThemeCount], other: dict[K, ThemeCount]) -> None:
    """Another channel's themes added pair by pair (items, and the newest item's time)."""
    for pair, theme in other.items():
        found = mine.setdefault(pair, ThemeCount())
        found.items += theme.items
        found.newest = max(found.newest, theme.newest)


@dataclass(slots=True)
class WindowAggregates:
    counts: dict[CountKey, Counted] = field(default_factory=dict)
    themes: dict[tuple[str, str], ThemeCount] = field(default_factory=dict)  # (category, theme_base)
    alerts: list[Example] = field(default_factory=list)  # newest first, cut at the limit
    sources: dict[str, list[Example]] = field(default_factory=dict)  # per category, most severe first
    newest: dict[str, list[Example]] = field(default_factory=dict)  # per category, newest first
    channel_counts: dict[str, int] = field(default_factory=dict)  # items per channel
    #: the model alert screen's candidates (see :class:`Screen`), newest first; empty without a screen
    candidates: list[StoredFeedback] = field(default_factory=list)
    issues: dict[IssueKey, Counted] = field(default_factory=dict)  # items with an issue, by problem and store
    issue_categories: dict[tuple[str, str], int] = field(default_factory=dict)  # (issue, category) -> items
    issue_themes: dict[tuple[str, str], ThemeCount] = field(default_factory=dict)  # (issue, theme_base)
    advised: int = 0  # items where a rule disagrees with the person's value (ADR 0045)

    def add(self, other: WindowAggregates, limit: int) -> None:
        """Add another channel's answer key by key; examples merged in their order and cut (exact)."""
        _add_counts(self.counts, other.counts)
        _add_themes(self.themes, other.themes)
        self.alerts = sorted([*self.alerts, *other.alerts], key=Example.newest_key, reverse=True)[:limit]
        for category, examples in other.sources.items():
            merged = [*self.sources.get(category, []), *examples]
            self.sources[category] = sorted(merged, key=_severity_key, reverse=True)[:limit]
        for category, examples in other.newest.items():
            merged = [*self.newest.get(category, []), *examples]
            self.newest[category] = sorted(merged, key=Example.newest_key, reverse=True)[:limit]
        _add_counts(self.issues, other.issues)
        for pair, n in other.issue_categories.items():
            self.issue_categories[pair] = self.issue_categories.get(pair, 0) + n
        _add_themes(self.issue_themes, other.issue_themes)
        self.channel_counts.update(other.channel_counts)
        self.advised += other.advised
        self.candidates = [*self.candidates, *other.candidates]  # cut by window_aggregates (the screen's limit)


@dataclass(frozen=True, slots=True)
class Screen:
    """The report's model alert screen asks about keyword-silent items (no hit at all) whose type is not
    one of ``exclude_types`` (praise), newest first, at most ``limit`` (its budget)."""

    exclude_types: tuple[str, ...]
    limit: int


def _severity_key(example: Example) -> tuple[int, str, str, str]:
    return (example.severity_rank, example.timestamp, example.channel, example.id)


# -- the statements ---------------------------------------------------------------------------------


def _range_clauses(ranges: Sequence[tuple[str, str | None]], to: str) -> list[ColumnElement[bool]]:
    """One condition per range of ``ranges`` (``[from, to)``; an open end is the window's inclusive ``to``):
    apart, not OR-ed, because PostgreSQL scans an OR of ranges by bitmap and fetches every heap row, where
    each range alone is an index-only scan of the covering ``ix_feedback_timestamp`` (ADR 0033)."""
    ts = feedback.c.timestamp
    return [and_(ts >= start, ts < end if end is not None else ts <= to) for start, end in ranges]


def _count_statement(flt: ItemFilter, midpoint: str, within: ColumnElement[bool] | None = None) -> Any:
    c = feedback.c
    half = case((c.timestamp < midpoint, 0), else_=1).label("half")
    # severity_rank follows from severity; grouped too, so the examples know each rank's size per category
    keys = (c.category, c.severity, c.severity_rank, c.sentiment, c.rated, c.alert, c.needs_review, c.structure_failed)
    return (
        select(*keys, half, func.count().label("items"), func.coalesce(func.sum(c.severity_rank), 0).label("ranks"))
        .where(where_clause(flt), within if within is not None else true())
        .group_by(*keys, half)
    )


def _advised_statement(flt: ItemFilter) -> Any:
    """How many of ``flt``'s items a rule disagrees with: over the partial ``ix_feedback_advised_timestamp``,
    so the count costs the few advised rows, not the window."""
    c = feedback.c
    return select(func.count()).select_from(feedback).where(where_clause(flt), c.rule_advice_json.is_not(None))


def _theme_statement(flt: ItemFilter, within: ColumnElement[bool] | None = None) -> Any:
    c = feedback.c
    return (
        select(
            c.category,
            c.theme_base,
            func.count().label("items"),
            func.max(c.timestamp + " " + c.id).label("newest"),
        )
        .where(where_clause(flt), within if within is not None else true(), c.theme_base.is_not(None))
        .where(c.category.is_not(None))
        .group_by(c.category, c.theme_base)
    )


def _issue_statement(flt: ItemFilter, midpoint: str, within: ColumnElement[bool] | None = None) -> Any:
    """Items by issue, store and half: the issue view's counts (ADR 0055) on the rows."""
    c = feedback.c
    half = case((c.timestamp < midpoint, 0), else_=1).label("half")
    keys = (c.issue, c.store)
    return (
        select(*keys, half, func.count().label("items"), func.coalesce(func.sum(c.severity_rank), 0).label("ranks"))
        .where(where_clause(flt), within if within is not None else true(), c.issue.is_not(None))
        .group_by(*keys, half)
    )


def _issue_category_statement(flt: ItemFilter, within: ColumnElement[bool] | None = None) -> Any:
    c = feedback.c
    return (
        select(c.issue, c.category, func.count().label("items"))
        .where(where_clause(flt), within if within is not None else true(), c.issue.is_not(None))
        .where(c.category.is_not(None))
        .group_by(c.issue, c.category)
    )


def _issue_theme_statement(flt: ItemFilter, within: ColumnElement[bool] | None = None) -> Any:
    c = feedback.c
    return (
        select(c.issue, c.theme_base, func.count().label("items"), func.max(c.timestamp + " " + c.id).label("newest"))
        .where(where_clause(flt), within if within is not None else true(), c.issue.is_not(None))
        .where(c.theme_base.is_not(None))
        .group_by(c.issue, c.theme_base)
    )


def _issue_total_statement(flt: ItemFilter, within: ColumnElement[bool] | None = None) -> Any:
    c = feedback.c
    return (
        select(c.issue, func.count().label("items"))
        .where(where_clause(flt), within if within is not None else true(), c.issue.is_not(None))
        .group_by(c.issue)
    )


EXAMPLE_COLUMNS = (
    feedback.c.id,
    feedback.c.source,
    feedback.c.timestamp,
    feedback.c.text,
    feedback.c.severity,
    feedback.c.severity_rank,
    feedback.c.needs_review,
    feedback.c.sentiment,
    feedback.c.category,
    feedback.c.theme_base,
    feedback.c.store,
    feedback.c.issue,
)


def _newest_part(flt: ItemFilter, category: str, k: int) -> Any:
    """A category's newest ``k`` items: a LIMIT over the ``(category, timestamp)`` index."""
    c = feedback.c
    return (
        select(*EXAMPLE_COLUMNS)
        .where(where_clause(flt), c.category == category)
        .order_by(c.timestamp.desc(), c.id.desc())
        .limit(k)
    )


def _rank_part(flt: ItemFilter, category: str, rank: int, k: int) -> Any:
    """A category's and severity rank's newest ``k``: over ``(category, severity_rank, timestamp)``."""
    return _newest_part(flt, category, k).where(feedback.c.severity_rank == rank)


PARTS_A_STATEMENT = 64


async def _examples(conn: AsyncConnection, parts: Sequence[Any]) -> list[Any]:
    """The rows of every part, as ``UNION ALL`` of the parts (each its own LIMIT over an index): one round
    trip for up to ``PARTS_A_STATEMENT`` parts instead of one each, so the cost follows the examples shown."""
    rows: list[Any] = []
    for start in range(0, len(parts), PARTS_A_STATEMENT):
        chunk = parts[start : start + PARTS_A_STATEMENT]
        statement: Any = chunk[0]
        if len(chunk) > 1:
            statement = union_all(*[select(part.subquery()) for part in chunk])
        rows.extend((await conn.execute(statement)).all())
    return rows


def severity_parts(rank_counts: dict[tuple[str, int], int], limit: int) -> list[tuple[str, int, int]]:
    """Most severe first, then newest: per category, the ranks from the highest down, each giving its
    newest items until ``limit`` are taken (exact: each rank's size is known from the counts)."""
    parts: list[tuple[str, int, int]] = []
    remaining: dict[str, int] = {}
    for (category, rank), n in sorted(rank_counts.items(), key=lambda kv: (kv[0][0], -kv[0][1])):
        left = remaining.setdefault(category, limit)
        if left > 0 and n > 0:
            take = min(n, left)
            parts.append((category, rank, take))
            remaining[category] = left - take
    return parts


def _alert_statement(flt: ItemFilter, limit: int) -> Any:
    c = feedback.c
    return (
        select(*EXAMPLE_COLUMNS)
        .where(where_clause(flt), c.alert.is_(True))
        .order_by(c.timestamp.desc(), c.id.desc())
        .limit(limit)
    )


async def _hits_of(conn: AsyncConnection, ids: list[str]) -> dict[str, tuple[AlertHitRow, ...]]:
    if not ids:
        return {}
    a = feedback_alerts.c
    rows = (
        await conn.execute(
            select(a.feedback_id, a.category, a.pattern, a.words_json)
            .where(a.feedback_id.in_(ids))
            .order_by(a.feedback_id, a.seq)
        )
    ).all()
    found: dict[str, list[AlertHitRow]] = {}
    for row in rows:
        found.setdefault(row.feedback_id, []).append(
            AlertHitRow(row.category, row.pattern, tuple(json.loads(row.words_json)))
        )
    return {k: tuple(v) for k, v in found.items()}


def _example(channel: str, row: Any, hits: tuple[AlertHitRow, ...] = ()) -> Example:
    return Example(
        channel=channel,
        id=row.id,
        source=row.source,
        timestamp=row.timestamp,
        text=row.text,
        severity=row.severity,
        severity_rank=int(row.severity_rank or 0),
        needs_review=bool(row.needs_review),
        sentiment=row.sentiment,
        category=row.category,
        hits=hits,
        theme=getattr(row, "theme_base", None),
        store=getattr(row, "store", None),
        issue=getattr(row, "issue", None),
    )


#: The filter fields the rollups carry (a window and a category); any other set field, including one
#: added to :class:`ItemFilter` later, counts on the rows.
ROLLUP_FIELDS = frozenset({"from_", "to", "category"})
#: The issue rollups' (ADR 0079): a window only (a department is one facet of theirs, not a key of each).
ISSUE_ROLLUP_FIELDS = frozenset({"from_", "to"})


def rollups_answer(flt: ItemFilter, carried: frozenset[str] = ROLLUP_FIELDS) -> bool:
    """May the rollups that carry the fields ``carried`` count ``flt``? A window with both ends, narrowed
    at most by those; ``q``, a store (one store's rows are its own share of the items), alert categories,
    type, source, severity and sentiment stay on the rows (ADR 0033)."""
    others = (getattr(flt, name) for name in ItemFilter.__dataclass_fields__ if name not in carried)
    return flt.from_ is not None and flt.to is not None and all(value is None for value in others)


def _plan(
    flt: ItemFilter, bucket: rollups.Bucket, midpoint: str | None = None, carried: frozenset[str] = ROLLUP_FIELDS
) -> rollups.Plan | None:
    """The rollups' part of ``flt``'s window in ``bucket``s (split at ``midpoint``), or None when the rows
    answer all of it (a filter the rollups do not carry, or no whole bucket inside the window)."""
    if not rollups_answer(flt, carried) or flt.from_ is None or flt.to is None:
        return None
    return rollups.plan(bucket, flt.from_, flt.to, midpoint)


#: A rows' statement of a filter, narrowed to one range of the window's edges.
OnRows = Callable[[ItemFilter, ColumnElement[bool] | None], Any]
#: A rollup's statement of a plan's whole buckets.
OnRollups = Callable[[rollups.Plan], Any]


async def _planned(
    conn: AsyncConnection, flt: ItemFilter, part: rollups.Plan | None, on_rollups: OnRollups, on_rows: OnRows
) -> list[Any]:
    """The grouped rows of ``flt``: from the rows alone without a ``part``; else the rollups' whole buckets
    and the rest of the window from the rows, one range a statement (an index range scan each). The same
    columns either way: the fold adds them key by key."""
    if part is None or flt.to is None:
        return list((await conn.execute(on_rows(flt, None))).all())
    rows = list((await conn.execute(on_rollups(part))).all())
    rest = replace(flt, from_=None, to=None)
    for within in _range_clauses(part.row_ranges, flt.to):
        rows += (await conn.execute(on_rows(rest, within))).all()
    return rows


@dataclass(frozen=True, slots=True)
class Grouped:
    """The grouped rows of one store's answer: counts, category themes, and the issue view's."""

    counts: list[Any]
    themes: list[Any]
    issues: list[Any]
    issue_categories: list[Any]
    issue_themes: list[Any]


async def _grouped(conn: AsyncConnection, flt: ItemFilter, midpoint: str) -> Grouped:
    """Whole UTC days of the window from the daily rollups, the rest from the rows (the midpoint's day
    too when the midpoint cuts it: the halves stay exact); the themes have no halves, so their midpoint's
    day is whole."""
    halves, whole = _plan(flt, rollups.DAY, midpoint), _plan(flt, rollups.DAY)
    issue_halves = _plan(flt, rollups.DAY, midpoint, ISSUE_ROLLUP_FIELDS)
    issue_whole = _plan(flt, rollups.DAY, carried=ISSUE_ROLLUP_FIELDS)
    category = flt.category
    return Grouped(
        await _planned(
            conn,
            flt,
            halves,
            lambda part: rollups.count_statement(part, category),
            lambda f, within: _count_statement(f, midpoint, within),
        ),
        await _planned(conn, flt, whole, lambda part: rollups.theme_statement(part, category), _theme_statement),
        await _planned(
            conn, flt, issue_halves, rollups.issue_statement, lambda f, within: _issue_statement(f, midpoint, within)
        ),
        await _planned(conn, flt, issue_whole, rollups.issue_category_statement, _issue_category_statement),
        await _planned(conn, flt, issue_whole, rollups.issue_theme_statement, _issue_theme_statement),
    )


async def _one_store(
    store: FeedbackStore, flt: ItemFilter, midpoint: str, limit: int, screen: Screen | None
) -> WindowAggregates:
    out = WindowAggregates()
    async with store.connection() as conn:
        if conn.dialect.name == "postgresql":  # every statement of the answer sees one snapshot
            await conn.execution_options(isolation_level="REPEATABLE READ", postgresql_readonly=True)
        # SQLite: one read transaction over WAL is one snapshot already
        await conn.begin()
        rank_counts: dict[tuple[str, int], int] = {}
        grouped = await _grouped(conn, flt, midpoint)
        for row in grouped.counts:
            key = CountKey(
                row.category or None,
                row.severity or None,
                row.sentiment or None,
                bool(row.rated),
                bool(row.alert),
                bool(row.needs_review),
                bool(row.structure_failed),
                bool(row.half),
            )
            counted = out.counts.setdefault(key, Counted())
            counted.items += int(row.items)
            counted.rank_sum += int(row.ranks)
            if key.category is not None:
                at = (key.category, int(row.severity_rank or 0))
                rank_counts[at] = rank_counts.get(at, 0) + int(row.items)
        for row in grouped.themes:
            theme = out.themes.setdefault((row.category, row.theme_base), ThemeCount())
            theme.items += int(row.items)
            theme.newest = max(theme.newest, row.newest)
        for row in grouped.issues:
            issue_key = IssueKey(row.issue, row.store or None, bool(row.half))
            counted = out.issues.setdefault(issue_key, Counted())
            counted.items += int(row.items)
            counted.rank_sum += int(row.ranks)
        for row in grouped.issue_categories:
            pair = (row.issue, row.category)
            out.issue_categories[pair] = out.issue_categories.get(pair, 0) + int(row.items)
        for row in grouped.issue_themes:
            theme = out.issue_themes.setdefault((row.issue, row.theme_base), ThemeCount())
            theme.items += int(row.items)
            theme.newest = max(theme.newest, row.newest)
        alert_rows = (await conn.execute(_alert_statement(flt, limit))).all()
        out.advised = int((await conn.execute(_advised_statement(flt))).scalar_one())
        by_severity = await _examples(conn, [_rank_part(flt, *part) for part in severity_parts(rank_counts, limit)])
        categories = sorted({category for category, _rank in rank_counts})
        newest = await _examples(conn, [_newest_part(flt, category, limit) for category in categories])
        hits = await _hits_of(conn, list({r.id for r in [*alert_rows, *by_severity]}))
        if screen is not None and screen.limit > 0:
            candidates = (await conn.execute(_candidate_statement(flt, screen))).all()
            out.candidates = [row_to_record(r) for r in candidates]
        await conn.rollback()  # read only
    name = store.name
    out.alerts = [_example(name, r, hits.get(r.id, ())) for r in alert_rows]
    for row in by_severity:
        out.sources.setdefault(row.category, []).append(_example(name, row, hits.get(row.id, ())))
    for examples in out.sources.values():
        examples.sort(key=_severity_key, reverse=True)
    for row in newest:
        out.newest.setdefault(row.category, []).append(_example(name, row))
    for examples in out.newest.values():
        examples.sort(key=Example.newest_key, reverse=True)
    out.channel_counts[name] = sum(counted.items for counted in out.counts.values())
    return out


async def window_aggregates(
    stores: Sequence[FeedbackStore], flt: ItemFilter, *, midpoint: str, limit: int, screen: Screen | None = None
) -> WindowAggregates:
    """The grouped counts, theme counts and examples of ``flt`` over every store, added key by key; with
    ``screen``, the model screen's candidates read in the same snapshot."""
    answers = await asyncio.gather(*(_one_store(s, flt, midpoint, limit, screen) for s in stores))
    channel_of: dict[int, str] = {}  # by record object: ids are unique per channel only
    total = WindowAggregates()
    for answer, store in zip(answers, stores, strict=True):
        total.add(answer, limit)
        channel_of.update((id(r), store.name) for r in answer.candidates)
    if screen is not None:
        total.candidates.sort(key=lambda r: (r.timestamp, channel_of[id(r)], r.id), reverse=True)
        total.candidates = total.candidates[: screen.limit]
    return total


async def window_issue_counts(stores: Sequence[FeedbackStore], flt: ItemFilter) -> dict[str, int]:
    """Items per issue of ``flt`` over every store (whole days from the rollups, the rest on the rows): the
    previous period the issue groups are held against (ADR 0055)."""
    part = _plan(flt, rollups.DAY, carried=ISSUE_ROLLUP_FIELDS)

    async def one(store: FeedbackStore) -> list[Any]:
        async with store.connection() as conn:
            return await _planned(conn, flt, part, rollups.issue_total_statement, _issue_total_statement)

    totals: dict[str, int] = {}
    for rows in await asyncio.gather(*(one(store) for store in stores)):
        for row in rows:
            totals[row.issue] = totals.get(row.issue, 0) + int(row.items)
    return totals


class DigestCategories(Protocol):
    """The alert categories that decide whether an item waits for the digest (``deterministic.alerts.
    DigestRule`` says which): a hit of a ``waiting`` one, and none outside ``allowed``. The rule stays above
    the store; the store counts by its two sets."""

    @property
    def waiting(self) -> frozenset[str]: ...

    @property
    def allowed(self) -> frozenset[str]: ...


def _digest_statement(flt: ItemFilter, rule: DigestCategories) -> Any:
    """``flt``'s items whose alerts wait for the digest (``rule``, deterministic/alerts.py): over the alert
    items of the window (``ix_feedback_alert_timestamp``), each one's hits read by its key."""
    c, a = feedback.c, feedback_alerts.c
    own = a.feedback_id == c.id
    return (
        select(func.count())
        .select_from(feedback)
        .where(
            where_clause(flt),
            c.alert.is_(True),
            exists().where(own, a.category.in_(sorted(rule.waiting))),
            ~exists().where(own, a.category.not_in(sorted(rule.allowed))),
        )
    )


async def window_digest_items(stores: Sequence[FeedbackStore], flt: ItemFilter, rule: DigestCategories) -> int:
    """How many of ``flt``'s items over every store open no case and wait for the digest: every one counted,
    not the alert list's first ``FI_REPORT_MAX_ITEMS``."""
    if not rule.waiting:  # a domain without digest categories: every alert pages
        return 0
    statement = _digest_statement(flt, rule)

    async def one(store: FeedbackStore) -> int:
        async with store.connection() as conn:
            return int((await conn.execute(statement)).scalar_one())

    return sum(await asyncio.gather(*(one(store) for store in stores)))


async def history_start(stores: Sequence[FeedbackStore], store: str | None) -> str | None:
    """The earliest item's timestamp in ``stores`` (one shop's, with ``store``), or None when there is none:
    where the history begins, so that a period before it is not read as a quiet one. One index read each
    (``ix_feedback_timestamp``, ``ix_feedback_store_timestamp``)."""
    c = feedback.c
    statement = select(func.min(c.timestamp))
    if store is not None:
        statement = statement.where(c.store == store)

    async def one(feedback_store: FeedbackStore) -> str | None:
        async with feedback_store.connection() as conn:
            found = await conn.scalar(statement)
        return str(found) if found is not None else None

    starts = [found for found in await asyncio.gather(*(one(s) for s in stores)) if found is not None]
    return min(starts) if starts else None


def _candidate_statement(flt: ItemFilter, screen: Screen) -> Any:
    c = feedback.c
    statement = select(feedback).where(where_clause(flt), c.alerts_json == "[]")
    if screen.exclude_types:
        statement = statement.where(c.type.is_(None) | c.type.not_in(list(screen.exclude_types)))
    return statement.order_by(c.timestamp.desc(), c.id.desc()).limit(screen.limit)


class HourCount(NamedTuple):
    """Items of one UTC hour (``yyyy-MM-ddTHH``), category and operational-alert flag (the series). A
    named tuple: a window and the period before are ~70,000 of them at a chain's scale, and a frozen
    dataclass costs four times as much to make."""

    hour: str
    category: str | None
    alert: bool
    items: int


def _hours_statement(
    flt: ItemFilter, within: ColumnElement[bool] | None = None, bounds: Sequence[str] | None = None
) -> Any:
    c = feedback.c
    hour = func.substr(c.timestamp, 1, 13)
    bucket = rollups.bucketed(hour, bounds).label("bucket")
    return (
        select(func.min(hour).label("hour"), c.category, c.alert, func.count().label("items"))
        .where(where_clause(flt), within if within is not None else true())
        .group_by(bucket, c.category, c.alert)
    )


async def _hour_rows(conn: AsyncConnection, flt: ItemFilter, bounds: Sequence[str] | None) -> list[Any]:
    """The hour rows of ``flt``. Grouped by ``bounds``: the window's whole UTC days from the daily rollup
    (``rollups.day_hours_statement``) and its edges by the hours; else whole hours from the hourly rollup
    when it may answer, the rest from the rows."""
    days = _plan(flt, rollups.DAY) if bounds else None
    if days is None or not bounds:
        return await _hours_planned(conn, flt, bounds)
    rows = list((await conn.execute(rollups.day_hours_statement(days, flt.category, bounds))).all())
    for edge in _day_edges(flt, days):
        rows += await _hours_planned(conn, edge, bounds)
    return rows


async def _hours_planned(conn: AsyncConnection, flt: ItemFilter, bounds: Sequence[str] | None) -> list[Any]:
    return await _planned(
        conn,
        flt,
        _plan(flt, rollups.HOUR),
        lambda part: rollups.hours_statement(part, flt.category, bounds),
        lambda f, within: _hours_statement(f, within, bounds),
    )


def _day_edges(flt: ItemFilter, days: rollups.Plan) -> list[ItemFilter]:
    """The parts of ``flt``'s window before its first whole UTC day and after its last, as windows of their
    own (inclusive ends, as ``flt``'s)."""
    assert flt.from_ is not None and flt.to is not None  # a plan is made of a whole window only
    day = rollups.DAY
    edges = []
    if flt.from_ < day.start(days.first):
        edges.append(replace(flt, to=day.end(day.shift(days.first, -1))))
    after = day.start(day.shift(days.last, 1))
    if after <= flt.to:
        edges.append(replace(flt, from_=after))
    return edges


async def window_hours(
    stores: Sequence[FeedbackStore], flt: ItemFilter, bounds: Sequence[str] | None = None
) -> list[HourCount]:
    """Items per UTC hour, category and alert over every store, added key by key: the same grouping on
    both engines (``substr`` of the fixed-width timestamp), folded into local days by report/series.py.

    With ``bounds`` (report/series.bucket_bounds) the hours are grouped by the bucket they fold into, each
    group answered as one row carrying its earliest hour: a few rows a day and category instead of 24,
    the same series (a 30-day window of a chain is ~36,000 hour rows, ~1,500 bucket rows)."""

    async def one(store: FeedbackStore) -> list[Any]:
        async with store.connection() as conn:
            return await _hour_rows(conn, flt, bounds)

    totals: dict[tuple[str, str | None, bool], int] = {}
    for rows in await asyncio.gather(*(one(store) for store in stores)):
        for row in rows:
            key = (row.hour, row.category or None, bool(row.alert))
            totals[key] = totals.get(key, 0) + int(row.items)
    ordered = sorted(totals.items(), key=lambda kv: (kv[0][0], kv[0][1] or "", kv[0][2]))
    return [HourCount(hour, category, alert, n) for (hour, category, alert), n in ordered]
