"""A batch of new feedback rows by ``INSERT … VALUES`` pages: SQLite's way (PostgreSQL's is COPY,
``store/copy_rows.py``, with the same two functions and the same outcome). Both run inside the
caller's transaction, on its connection.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import insert
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from feedback_intelligence.store import tombstones
from feedback_intelligence.store.schema import feedback, feedback_alerts


async def insert_new(conn: AsyncConnection, rows: Sequence[Mapping[str, Any]]) -> set[str]:
    """Insert the rows whose id is neither taken nor erased (an erased item never comes back); the ids
    inserted. One ``INSERT … ON CONFLICT DO NOTHING RETURNING id`` executed for many parameter sets
    (SQLAlchemy's multi-row VALUES pages)."""
    erased = await tombstones.among(conn, [row["id"] for row in rows])
    kept = [row for row in rows if row["id"] not in erased]
    if not kept:
        return set()
    statement = _insert_ignoring_taken(conn.dialect.name).returning(feedback.c.id)
    return {row.id for row in await conn.execute(statement, kept)}


async def insert_alert_rows(conn: AsyncConnection, rows: Sequence[Mapping[str, Any]]) -> None:
    """The alert child rows of items just inserted."""
    if rows:
        await conn.execute(insert(feedback_alerts), rows)


def _insert_ignoring_taken(dialect: str) -> Any:
    """``INSERT INTO feedback … ON CONFLICT (id) DO NOTHING`` in the dialect's spelling."""
    if dialect == "postgresql":
        return postgresql_insert(feedback).on_conflict_do_nothing(index_elements=[feedback.c.id])
    return sqlite_insert(feedback).on_conflict_do_nothing(index_elements=[feedback.c.id])
