"""The notification outbox: one row per (item, notify route, event), delivered by a lease (ADR 0024 section 4).

:func:`enqueue` runs inside the caller's transaction, so the item's save and its notifications commit
together or not at all; a second enqueue of the same ``dedupe_key`` does nothing. :class:`Outbox`
is the worker's side, shaped like the structuring queue (store/structure_queue.py): a claim is a lease
(store/leases.py: ``FOR UPDATE SKIP LOCKED`` on PostgreSQL, one conditional ``UPDATE`` on SQLite), renewed while a
send runs, lapsing when the replica dies; every outcome is written only while the lease is still held,
so one row is settled by exactly one worker. What may still repeat is a send whose replica died after
the receiver's 2xx and before its own commit: the resend carries the same ``dedupe_key`` as its
delivery id, which receivers dedupe on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, func, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.elements import ColumnElement

from feedback_intelligence.instants.clock import now_ms
from feedback_intelligence.store.base import StoreView
from feedback_intelligence.store.leases import claim_oldest
from feedback_intelligence.store.schema import outbox

PENDING, DELIVERED, FAILED, CANCELLED = "pending", "delivered", "failed", "cancelled"
ALERT, ESCALATION, DIGEST, OVERDUE, BRIEF = "alert", "escalation", "digest", "overdue", "brief"
ERROR_MAX_CHARS = 300


def dedupe_key(channel: str, feedback_id: str, route: str, event: str) -> str:
    """``{channel}:{feedback_id}:{route}:{event}``: unique per row, and the delivery id receivers see."""
    return f"{channel}:{feedback_id}:{route}:{event}"


@dataclass(frozen=True, slots=True)
class OutboxRow:
    id: int
    feedback_id: str
    event: str
    route: str
    dedupe_key: str
    state: str
    attempts: int
    created_at: str
    token: str | None = None  # the lease holder, on a claimed row
    lease_until_ms: int | None = None
    last_error: str | None = None


def _row(row: Any, token: str | None = None) -> OutboxRow:
    return OutboxRow(
        id=int(row.id),
        feedback_id=row.feedback_id,
        event=row.event,
        route=row.route,
        dedupe_key=row.dedupe_key,
        state=row.state,
        attempts=int(row.attempts),
        created_at=row.created_at,
        token=token,
        lease_until_ms=row.lease_until_ms,
        last_error=row.last_error,
    )


async def enqueue(
    conn: AsyncConnection,
    *,
    channel: str,
    feedback_id: str,
    routes: Sequence[str],
    event: str,
    created_at: str,
    due_ms: int,
) -> int:
    """Add a pending row per route in the caller's transaction, due at ``due_ms`` (the caller's clock),
    skipping keys already there; returns how many rows were new."""
    if not routes:
        return 0
    rows = [
        {
            "feedback_id": feedback_id,
            "event": event,
            "route": route,
            "dedupe_key": dedupe_key(channel, feedback_id, route, event),
            "state": PENDING,
            "attempts": 0,
            "next_attempt_at_ms": due_ms,
            "created_at": created_at,
        }
        for route in routes
    ]
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    statement = dialect.insert(outbox).on_conflict_do_nothing(index_elements=["dedupe_key"])
    added = 0
    for row in rows:  # one by one: rowcount of a multi-row ON CONFLICT insert is not portable
        added += (await conn.execute(statement.values(**row))).rowcount
    return added


async def delete_item(conn: AsyncConnection, feedback_id: str) -> int:
    """The item's rows (its erasure): nothing is left to send."""
    return (await conn.execute(outbox.delete().where(outbox.c.feedback_id == feedback_id))).rowcount


def _claimable(at_ms: int) -> ColumnElement[bool]:
    return and_(
        outbox.c.state == PENDING,
        outbox.c.next_attempt_at_ms <= at_ms,
        or_(outbox.c.lease_until_ms.is_(None), outbox.c.lease_until_ms <= at_ms),
    )


def _held(row: OutboxRow) -> ColumnElement[bool]:
    return and_(outbox.c.id == row.id, outbox.c.lease_owner == row.token, outbox.c.state == PENDING)


@dataclass(frozen=True, slots=True)
class OutboxStats:
    by_state: dict[str, int]
    oldest_pending_created_at: str | None


class Outbox(StoreView):
    """The worker's view of one channel database's outbox."""

    async def claim(self, token: str, lease_s: float, *, at_ms: int | None = None) -> OutboxRow | None:
        """Lease the row due longest to ``token`` and count the attempt; None when nothing is due."""
        at = now_ms(self.clock) if at_ms is None else at_ms
        row = await claim_oldest(
            self.engine,
            outbox,
            claimable=_claimable(at),
            oldest_first=[outbox.c.next_attempt_at_ms, outbox.c.id],
            token=token,
            take=dict(lease_until_ms=at + int(lease_s * 1000), attempts=outbox.c.attempts + 1),
        )
        return _row(row, token) if row is not None else None

    async def renew(self, row: OutboxRow, lease_s: float) -> bool:
        async with self.engine.begin() as conn:
            statement = update(outbox).where(_held(row)).values(lease_until_ms=now_ms(self.clock) + int(lease_s * 1000))
            return bool((await conn.execute(statement)).rowcount)

    async def delivered(self, row: OutboxRow, at: str) -> bool:
        return await self._settle(row, state=DELIVERED, delivered_at=at, last_error=None)

    async def retry(self, row: OutboxRow, *, in_s: float, error: str) -> bool:
        next_at = now_ms(self.clock) + int(in_s * 1000)
        return await self._settle(row, state=PENDING, next_attempt_at_ms=next_at, last_error=error[:ERROR_MAX_CHARS])

    async def give_up(self, row: OutboxRow, *, state: str, error: str) -> bool:
        """``failed`` (the bound) or ``cancelled`` (the route left the configuration, the item is gone)."""
        return await self._settle(row, state=state, last_error=error[:ERROR_MAX_CHARS])

    async def release(self, row: OutboxRow) -> bool:
        """Give a row back untried (shutdown): its attempt is refunded."""
        async with self.engine.begin() as conn:
            statement = (
                update(outbox)
                .where(_held(row))
                .values(lease_owner=None, lease_until_ms=None, attempts=outbox.c.attempts - 1)
            )
            return bool((await conn.execute(statement)).rowcount)

    async def _settle(self, row: OutboxRow, **values: Any) -> bool:
        async with self.engine.begin() as conn:
            statement = update(outbox).where(_held(row)).values(lease_owner=None, lease_until_ms=None, **values)
            return bool((await conn.execute(statement)).rowcount)

    async def stats(self) -> OutboxStats:
        async with self.engine.connect() as conn:
            grouped = (await conn.execute(select(outbox.c.state, func.count()).group_by(outbox.c.state))).all()
            oldest = await conn.scalar(select(func.min(outbox.c.created_at)).where(outbox.c.state == PENDING))
        return OutboxStats({state: int(count) for state, count in grouped}, oldest)

    async def rows_for(self, feedback_id: str) -> list[OutboxRow]:
        async with self.engine.connect() as conn:
            statement = select(outbox).where(outbox.c.feedback_id == feedback_id).order_by(outbox.c.id)
            return [_row(r) for r in (await conn.execute(statement)).all()]
