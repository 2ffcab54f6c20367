"""The audit log: who changed what, when (ADR 0024 section 8, docs/data-model.md).

The one writer of ``audit_log``. Functions take the caller's :class:`AsyncConnection`, so an entry is
appended in the transaction of the change it records (a case action, a correction, an erasure, an
account change) and the two can never part. Rows are never edited, with one exception: an item's
erasure redacts its earlier rows (values and reasons nulled, ``redacted`` set), keeping the facts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from feedback_intelligence.store.schema import audit_log

REPORT = "case.report"  # an item joined a case as a further report of its incident: new_value is the item's id
#: The model's later structure changed the theme the rules gave an item (ADR 0063): old and new theme.
REFINED = "structure.refined"


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One row of ``audit_log``. ``at`` is a normalised instant; ``change_id`` is shared by every row
    of one request; ``actor_kind`` is ``account``, ``typed``, ``visitor``, ``operator`` or ``system``."""

    at: str
    change_id: str
    actor_kind: str
    actor_id: str | None
    actor_name: str | None
    action: str
    feedback_id: str | None = None
    field: str | None = None
    old_value: str | None = None
    new_value: str | None = None
    reason: str | None = None
    redacted: bool = False


def _entry(row: Any) -> AuditEntry:
    return AuditEntry(
        at=row.at,
        change_id=row.change_id,
        actor_kind=row.actor_kind,
        actor_id=row.actor_id,
        actor_name=row.actor_name,
        action=row.action,
        feedback_id=row.feedback_id,
        field=row.field,
        old_value=row.old_value,
        new_value=row.new_value,
        reason=row.reason,
        redacted=bool(row.redacted),
    )


async def append(conn: AsyncConnection, entries: Sequence[AuditEntry]) -> None:
    """Append ``entries`` inside the caller's transaction, in the order given."""
    if entries:
        await conn.execute(insert(audit_log), [asdict(entry) for entry in entries])


async def for_item(conn: AsyncConnection, feedback_id: str) -> list[AuditEntry]:
    """The item's rows, oldest first (append order breaks ties of one instant)."""
    statement = select(audit_log).where(audit_log.c.feedback_id == feedback_id).order_by(audit_log.c.at, audit_log.c.id)
    return [_entry(row) for row in (await conn.execute(statement)).all()]


async def reports_of(conn: AsyncConnection, case_ids: Sequence[str]) -> dict[str, list[str]]:
    """The items that joined each of these cases as a further report (its ``case.report`` rows, ADR 0060),
    oldest first."""
    found: dict[str, list[str]] = {}
    wanted = list(dict.fromkeys(case_ids))
    for start in range(0, len(wanted), 500):  # bounded IN lists
        statement = (
            select(audit_log.c.feedback_id, audit_log.c.new_value)
            .where(audit_log.c.action == REPORT, audit_log.c.feedback_id.in_(wanted[start : start + 500]))
            .order_by(audit_log.c.at, audit_log.c.id)
        )
        for case_id, report_id in (await conn.execute(statement)).all():
            if report_id is not None:  # None once redacted
                found.setdefault(case_id, []).append(report_id)
    return found


async def joined(conn: AsyncConnection, item_ids: Sequence[str]) -> set[str]:
    """Those of these items that joined a case as a further report (``ix_audit_log_reports``)."""
    if not item_ids:
        return set()
    statement = select(audit_log.c.new_value).where(
        audit_log.c.action == REPORT, audit_log.c.new_value.in_(list(item_ids))
    )
    return {value for value in (await conn.execute(statement)).scalars().all() if value is not None}


async def recent(conn: AsyncConnection, *, limit: int, before_at: str | None = None) -> list[AuditEntry]:
    """The newest ``limit`` rows, newest first; ``before_at`` pages on to rows strictly older."""
    statement = select(audit_log)
    if before_at is not None:
        statement = statement.where(audit_log.c.at < before_at)
    statement = statement.order_by(audit_log.c.at.desc(), audit_log.c.id.desc()).limit(limit)
    return [_entry(row) for row in (await conn.execute(statement)).all()]


async def redact_item(conn: AsyncConnection, feedback_id: str) -> int:
    """Null the values and reasons of the item's rows (its erasure); returns how many rows changed."""
    statement = (
        update(audit_log)
        .where(audit_log.c.feedback_id == feedback_id, audit_log.c.redacted.is_(False))
        .values(old_value=None, new_value=None, reason=None, redacted=True)
    )
    return (await conn.execute(statement)).rowcount
