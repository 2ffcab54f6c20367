"""Tombstones: the ids of erased items, which no channel stores again (ADR 0024 section 7, ADR 0039).

The one writer of ``erased_items``, as functions over the caller's :class:`AsyncConnection` (the bulk COPY
path reads it inside its own ``INSERT … SELECT``, store/copy_rows.py).
A channel's database holds the tombstones of its own erasures and those of every other channel
(``services/tombstones.py`` carries them over), so each save, batch and COPY refuses an erased id by
asking its own database only: a desk save never waits on the corpus database.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from feedback_intelligence.store.schema import erased_items

#: Ids per ``IN (…)`` of a lookup (a batch of FI_BATCH_MAX_ITEMS ids in a few statements).
IN_CHUNK = 5_000


@dataclass(frozen=True, slots=True)
class Tombstone:
    """What an erased item leaves: its id, when it was erased, its store (no text, no author)."""

    feedback_id: str
    erased_at: str
    store: str | None


async def add(conn: AsyncConnection, tombstones: Sequence[Tombstone]) -> None:
    """Write ``tombstones``; an id that has one already keeps it (the erasure in its own channel, or the
    copy another channel's erasure made first)."""
    if not tombstones:
        return
    statement = (postgresql_insert if conn.dialect.name == "postgresql" else sqlite_insert)(erased_items)
    rows = [{"feedback_id": t.feedback_id, "erased_at": t.erased_at, "store": t.store} for t in tombstones]
    await conn.execute(statement.on_conflict_do_nothing(index_elements=["feedback_id"]), rows)


async def among(conn: AsyncConnection, feedback_ids: Sequence[str]) -> set[str]:
    """The ids of ``feedback_ids`` that are erased."""
    found: set[str] = set()
    for start in range(0, len(feedback_ids), IN_CHUNK):
        chunk = list(feedback_ids[start : start + IN_CHUNK])
        statement = select(erased_items.c.feedback_id).where(erased_items.c.feedback_id.in_(chunk))
        found.update((await conn.execute(statement)).scalars().all())
    return found


async def every(conn: AsyncConnection) -> list[Tombstone]:
    """All of them, in id order (erasures are few: a whole list is cheap)."""
    statement = select(erased_items).order_by(erased_items.c.feedback_id)
    return [Tombstone(r.feedback_id, r.erased_at, r.store) for r in (await conn.execute(statement)).all()]
