"""The structuring worker's queue, kept in the feedback rows themselves (durable, shared by replicas).

A row saved "structure later" is *due*. A worker claims one due row at a time with a **lease**: a
token of its own and an expiry. The claim is atomic (store/leases.py) — ``FOR UPDATE SKIP LOCKED`` on
PostgreSQL (two replicas never pick the same row and never wait on each other), one conditional
``UPDATE`` on SQLite (the single writer makes the check-and-set atomic). A replica that dies simply stops
renewing; once the lease lapses any replica may claim the row again. Finishing is conditional on
still holding the lease, so a row is written by exactly one worker even if a lease was lost.
"""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, func, or_, select, update
from sqlalchemy.sql.elements import ColumnElement

from feedback_intelligence.instants.clock import Clock, now_ms
from feedback_intelligence.instants.timestamps import format_instant, parse_normalized
from feedback_intelligence.records import StoredFeedback, Structure
from feedback_intelligence.store import audit, counters, rollups
from feedback_intelligence.store.base import StoreView
from feedback_intelligence.store.counters import VERSION_COUNTER
from feedback_intelligence.store.derived_rows import write_derived
from feedback_intelligence.store.feedback_store import FeedbackStore
from feedback_intelligence.store.leases import claim_oldest
from feedback_intelligence.store.rows import compact_json, row_to_record, structure_to_json
from feedback_intelligence.store.schema import audit_log, feedback


@dataclass(frozen=True, slots=True)
class Claim:
    """A due row this worker holds until ``lease_until_ms`` (or until it finishes or releases it)."""

    item: StoredFeedback
    token: str
    lease_until_ms: int


#: How far back the worker's pace is measured: long enough to span a few slow model calls, short enough
#: that the estimate follows a change of pace (a crowd at the desks, a second replica started).
RATE_WINDOW_S = 600.0


@dataclass(frozen=True, slots=True)
class Backlog:
    """Rows still due, the oldest one's save, and how many rows the workers (every replica's) finished in
    the last ``window_s``: the measured pace that the estimate of the time left divides by."""

    items: int
    oldest_created_at: str | None
    finished_recently: int = 0
    window_s: float = RATE_WINDOW_S

    @property
    def rows_per_minute(self) -> float:
        return self.finished_recently * 60.0 / self.window_s

    @property
    def minutes_left(self) -> int | None:
        """Rows waiting / rows a minute, rounded up; 0 with nothing waiting, None while no pace is measured
        (nothing finished in the window: the model is busy with clerks, down, or the backlog just began)."""
        if self.items == 0:
            return 0
        if self.finished_recently == 0:
            return None
        return math.ceil(self.items / self.rows_per_minute)

    def oldest_age_s(self, now: datetime) -> float:
        if self.oldest_created_at is None:
            return 0.0
        age = now - parse_normalized(self.oldest_created_at)
        return max(0.0, age.total_seconds())


def _refined(item: StoredFeedback, structure: Structure | None, at: str) -> list[audit.AuditEntry]:
    """The item's history line when the model's structure changed the theme a report may already have
    shown (the rules' one): themes never change under a manager's eyes without a note (ADR 0063)."""
    before = item.structure.theme if item.structure is not None else None
    after = structure.theme if structure is not None else None
    if before is None or after is None or before == after:
        return []
    return [
        audit.AuditEntry(
            at=at,
            change_id=uuid.uuid4().hex,
            actor_kind="system",
            actor_id="structure-later",
            actor_name=None,
            action=audit.REFINED,
            feedback_id=item.id,
            field="theme",
            old_value=before,
            new_value=after,
        )
    ]


def _claimable(at_ms: int) -> ColumnElement[bool]:
    """Due, and nobody holds it (never claimed, released, or its holder's lease lapsed)."""
    return and_(
        feedback.c.structure_due.is_(True),
        or_(feedback.c.lease_until_ms.is_(None), feedback.c.lease_until_ms <= at_ms),
    )


class StructureQueue(StoreView):
    """The structure-later rows of one channel store, as a queue."""

    store: FeedbackStore  # its deriver writes a finished row's derived columns

    def __init__(self, store: FeedbackStore, clock: Clock | None = None) -> None:
        super().__init__(store, clock)

    async def claim(self, token: str, lease_s: float, *, at_ms: int | None = None) -> Claim | None:
        """Lease the oldest claimable row to ``token`` and count the attempt; None when nothing is due."""
        at = now_ms(self.clock) if at_ms is None else at_ms
        until = at + int(lease_s * 1000)
        row = await claim_oldest(
            self.engine,
            feedback,
            claimable=_claimable(at),
            oldest_first=[feedback.c.created_at, feedback.c.id],
            token=token,
            take=dict(lease_until_ms=until, structure_attempts=feedback.c.structure_attempts + 1),
        )
        if row is None:
            return None
        return Claim(row_to_record(row), token, until)

    async def renew(self, claim: Claim, lease_s: float) -> Claim | None:
        """Extend a held lease (a long call); None when it was lost meanwhile."""
        until = now_ms(self.clock) + int(lease_s * 1000)
        async with self.engine.begin() as conn:
            rows = (await conn.execute(update(feedback).where(self._held(claim)).values(lease_until_ms=until))).rowcount
        return Claim(claim.item, claim.token, until) if rows else None

    async def finish(
        self,
        claim: Claim,
        structure: Structure | None,
        *,
        structure_failed: bool,
        salvage_notes: list[str] | tuple[str, ...],
        needs_review: bool,
        review_flags: list[str] | tuple[str, ...],
    ) -> int | None:
        """Store the outcome and tick the channel's version in one transaction, if the lease is still
        held; returns the new version, or None when the lease was lost (another worker owns the row)."""
        values = dict(
            structure_json=structure_to_json(structure),
            structure_failed=structure_failed,
            salvage_notes_json=compact_json(list(salvage_notes)),
            needs_review=needs_review,
            review_flags_json=compact_json(list(review_flags)),
            structure_due=False,
            lease_owner=None,
            lease_until_ms=None,
        )
        async with self.engine.begin() as conn:
            written: dict[str, Any] = {
                **values,
                "revision": feedback.c.revision + 1,  # a write: If-Match
                "updated_at": format_instant(self.clock.now()),
            }
            async with rollups.tracking(conn, [claim.item.id]):
                if (await conn.execute(update(feedback).where(self._held(claim)).values(**written))).rowcount == 0:
                    return None
                await write_derived(conn, self.store.derive, [claim.item.id])
            await audit.append(conn, _refined(claim.item, structure, written["updated_at"]))
            return await counters.bump(conn, VERSION_COUNTER)

    async def release(self, claim: Claim, *, retry_in_s: float, refund_attempt: bool, preempted: bool = False) -> bool:
        """Give the row back, claimable again after ``retry_in_s``. A shed is not the item's fault, so
        its attempt is refunded; a failed call's attempt counts toward the bound. A preempted call is
        refunded too and counted apart (aging: after ``FI_LLM_PREEMPT_MAX`` it is not preempted again)."""
        values: dict[str, object] = dict(lease_owner=None, lease_until_ms=now_ms(self.clock) + int(retry_in_s * 1000))
        if refund_attempt or preempted:
            values["structure_attempts"] = feedback.c.structure_attempts - 1
        if preempted:
            values["structure_preemptions"] = feedback.c.structure_preemptions + 1
        async with self.engine.begin() as conn:
            return bool((await conn.execute(update(feedback).where(self._held(claim)).values(**values))).rowcount)

    async def refined_since(self, since: str, stores: frozenset[str] | None) -> int:
        """How many items' themes the model changed since ``since`` (an instant), of ``stores`` (None: all;
        an item without a store is the chain's, as every read's rule is)."""
        statement = (
            select(func.count())
            .select_from(audit_log)
            .where(audit_log.c.action == audit.REFINED, audit_log.c.at >= since)
        )
        if stores is not None:
            mine = select(feedback.c.id).where(feedback.c.store.in_(sorted(stores)))
            statement = statement.where(audit_log.c.feedback_id.in_(mine))
        async with self.engine.connect() as conn:
            return int((await conn.execute(statement)).scalar_one() or 0)

    async def backlog(self, window_s: float = RATE_WINDOW_S) -> Backlog:
        """The rows due, and (only while some are: it reads the table) how many rows the workers finished
        in the last ``window_s``: rows claimed at least once, no longer due, written since. A row a person
        corrected in the window counts too; a slight overestimate of the pace, only while both happen."""
        statement = select(func.count(), func.min(feedback.c.created_at)).where(feedback.c.structure_due.is_(True))
        async with self.engine.connect() as conn:
            count, oldest = (await conn.execute(statement)).one()
            finished = 0
            if count:
                since = format_instant(self.clock.now() - timedelta(seconds=window_s))
                recent = select(func.count()).where(
                    feedback.c.structure_due.is_(False),
                    feedback.c.structure_attempts > 0,
                    feedback.c.updated_at >= since,
                )
                finished = int((await conn.execute(recent)).scalar_one() or 0)
        return Backlog(int(count or 0), oldest, finished, window_s)

    @staticmethod
    def _held(claim: Claim) -> ColumnElement[bool]:
        return and_(
            feedback.c.id == claim.item.id,
            feedback.c.lease_owner == claim.token,
            feedback.c.structure_due.is_(True),
        )
