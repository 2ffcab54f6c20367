"""The leased claim: take the oldest claimable row of a table for one holder, atomically, on either engine.

Two queues live in tables this way, the structure-later rows (``store/structure_queue.py``) and the
notification outbox (``store/outbox.py``); both claim here. A claim writes the holder's token and an
expiry into the row's ``lease_owner`` and ``lease_until_ms`` columns. It is atomic:

* on PostgreSQL the row is picked ``FOR UPDATE SKIP LOCKED``: two replicas never pick the same row and
  never wait on each other;
* on SQLite one conditional ``UPDATE … WHERE id = (the oldest) AND (still claimable)``: the single
  writer makes the check-and-set atomic.

An idle worker polls, so a plain read looks first: an empty queue never takes SQLite's write lock. A
replica that dies simply stops renewing; once the lease lapses the row is claimable again. What a
holder writes later is the caller's, conditional on still holding the lease.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Row, Table, select, update
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.sql.elements import ColumnElement


async def claim_oldest(
    engine: AsyncEngine,
    table: Table,
    *,
    claimable: ColumnElement[bool],
    oldest_first: Sequence[ColumnElement[Any]],
    token: str,
    take: Mapping[str, Any],
) -> Row[Any] | None:
    """Lease the first row of ``table`` by ``oldest_first`` among the ``claimable`` ones to ``token``,
    writing ``take`` with it (the expiry, an attempt counted); the row as claimed, or None when nothing is
    claimable. ``table`` has an ``id`` key and a ``lease_owner`` column, which the claim sets to ``token``."""
    oldest = select(table.c.id).where(claimable).order_by(*oldest_first).limit(1)
    values = {**take, "lease_owner": token}
    async with engine.connect() as conn:  # a plain read first: an idle poll never takes SQLite's write lock
        if await conn.scalar(oldest) is None:
            return None
    async with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            row_id = await conn.scalar(oldest.with_for_update(skip_locked=True))
            if row_id is None:
                return None
            await conn.execute(update(table).where(table.c.id == row_id).values(**values))
        else:
            statement = update(table).where(table.c.id == oldest.scalar_subquery(), claimable).values(**values)
            if (await conn.execute(statement)).rowcount == 0:
                return None
        return (await conn.execute(select(table).where(table.c.lease_owner == token))).first()
