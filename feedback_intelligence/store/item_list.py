"""The drill-in's items of one channel database: the rows a filter matches, newest first, by keyset.

The order key is ``(timestamp, channel, id)`` descending (ADR 0024 section 1): within one database the
channel is fixed, so a page is ``ORDER BY timestamp DESC, id DESC LIMIT n`` after the cursor's key,
over the ``(timestamp)`` index (and the filters' own). Never OFFSET: an item saved while a reader pages
moves every offset, never a key. The merge of several databases is the caller's (``report/items.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, func, or_, select, text, true
from sqlalchemy.sql.elements import ColumnElement

from feedback_intelligence.records import StoredFeedback
from feedback_intelligence.store import search_rows
from feedback_intelligence.store.aggregates import ItemFilter, where_clause
from feedback_intelligence.store.feedback_store import FeedbackStore
from feedback_intelligence.store.rows import row_to_record
from feedback_intelligence.store.schema import feedback


@dataclass(frozen=True, slots=True, order=True)
class ItemKey:
    """An item's place in the inbox's order (descending); the cursor carries the last one shown."""

    timestamp: str
    channel: str
    id: str


@dataclass(frozen=True, slots=True)
class ListedItem:
    channel: str
    record: StoredFeedback
    sentiment: str | None  # the effective sentiment (derived column)
    issue: str | None = None  # the problem it reports (derived column)

    def key(self) -> ItemKey:
        return ItemKey(self.record.timestamp, self.channel, self.record.id)


def _after(channel: str, cursor: ItemKey | None) -> ColumnElement[bool]:
    """Rows of ``channel`` whose key is below ``cursor`` (every row without one)."""
    c = feedback.c
    if cursor is None:
        return true()
    if channel < cursor.channel:  # at the cursor's instant this channel's rows come after the cursor's
        return c.timestamp <= cursor.timestamp
    if channel > cursor.channel:
        return c.timestamp < cursor.timestamp
    # the bound on timestamp alone first: it is what the (timestamp) index can range-scan from (a bare OR
    # of the two cases made PostgreSQL scan the window; bench/drill_in)
    return and_(c.timestamp <= cursor.timestamp, or_(c.timestamp < cursor.timestamp, c.id < cursor.id))


async def page_of(store: FeedbackStore, flt: ItemFilter, after: ItemKey | None, limit: int) -> list[ListedItem]:
    """At most ``limit`` matching rows of ``store`` below ``after``, newest first."""
    c = feedback.c
    statement = (
        select(feedback)
        .where(where_clause(flt), _after(store.name, after))
        .order_by(c.timestamp.desc(), c.id.desc())
        .limit(limit)
    )
    async with store.connection() as conn:
        rows = (await conn.execute(statement)).all()
    return [ListedItem(store.name, row_to_record(row), row.sentiment, row.issue) for row in rows]


async def count_of(store: FeedbackStore, flt: ItemFilter, *, use_copy: bool = True) -> int:
    """How many rows of ``store`` match ``flt``: a search on PostgreSQL from the narrow copy when it can
    answer (store/search_rows.py), else on ``feedback``. ``use_copy=False``: on ``feedback`` always,
    for what compares the two (the tests and ``bench/search_scale``)."""
    statement: Any = select(func.count()).select_from(feedback).where(where_clause(flt))
    if use_copy and search_rows.answers(flt, store.engine.dialect.name):
        statement = search_rows.count_statement(flt)
    async with store.connection() as conn:
        if flt.q is not None and conn.dialect.name == "postgresql":  # this count's transaction only
            await conn.execute(text(f"SET LOCAL work_mem = '{search_rows.COUNT_WORK_MEM}'"))
        return int((await conn.execute(statement)).scalar_one())
