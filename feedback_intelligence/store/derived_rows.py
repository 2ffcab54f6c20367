"""The derived columns (ADR 0024 section 2): what ``derivation.derive`` makes of a record, written beside
it so reports group in SQL: the starred columns of ``feedback`` and the ``feedback_alerts`` child rows.

A store is handed a :class:`Deriver` and never imports the domain. Every write of a record writes its
derivation in the same transaction: the insert through :func:`rows_of`, every later change through
:func:`write_derived`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import bindparam, delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from feedback_intelligence.records import Derived, StoredFeedback
from feedback_intelligence.store.rows import compact_json, record_to_row, row_to_record
from feedback_intelligence.store.schema import feedback, feedback_alerts


class Deriver(Protocol):
    """``derivation.derive`` bound to a domain (``derivation.DomainDeriver``). ``rev`` is what a
    current row's ``derived_rev`` reads."""

    rev: str

    def __call__(self, record: StoredFeedback, /) -> Derived: ...


@dataclass(frozen=True, slots=True)
class ReadyRows:
    """What :func:`rows_of` made of a batch's records elsewhere (a worker process, docs/adr/0074): the
    derivations by id, the rows in the records' order, and the ``rev`` of the deriver that made them."""

    derived: dict[str, Derived]
    rows: list[dict[str, Any]]
    rev: str


def derived_values(derived: Derived, rev: str) -> dict[str, Any]:
    """The starred columns; ``derived_rev`` is the deriver's, which is what staleness is judged by (so a
    pass always ends, even under a deriver whose records name another rev)."""
    return {
        "category": derived.category,
        "issue": derived.issue,
        "severity": derived.severity,
        "type": derived.type,
        "sentiment": derived.sentiment,
        "language": derived.language,
        "severity_rank": derived.severity_rank,
        "rated": derived.rated,
        "theme_base": derived.theme_base,
        "alert": derived.alert,
        "text_folded": derived.text_folded,
        "corrected_fields": derived.corrected_fields,
        "derived_rev": rev,
    }


def alert_rows(feedback_id: str, derived: Derived) -> list[dict[str, Any]]:
    """The item's ``feedback_alerts`` rows: one per alert hit, in the derivation's order."""
    return [
        {
            "feedback_id": feedback_id,
            "seq": seq,
            "category": hit.category,
            "pattern": hit.pattern,
            "words_json": compact_json(list(hit.words)),
        }
        for seq, hit in enumerate(derived.alerts)
    ]


def rows_of(records: list[StoredFeedback], derive: Deriver | None) -> tuple[dict[str, Derived], list[dict[str, Any]]]:
    """The records' derivations (by id) and their rows as the single insert writes them."""
    derived = {r.id: derive(r) for r in records} if derive is not None else {}
    rows = []
    for record in records:
        row = record_to_row(record)
        if derive is not None:
            row.update(derived_values(derived[record.id], derive.rev))
        rows.append(row)
    return derived, rows


async def write_derived(conn: AsyncConnection, derive: Deriver | None, feedback_ids: list[str]) -> int:
    """Re-read the rows (inside the caller's transaction, after its write), derive them and write the
    derived columns and the alert child rows: the one way a row's derived state is written after its
    insert. Without a deriver nothing is written and the rows stay stale for the re-derivation pass."""
    if derive is None or not feedback_ids:
        return 0
    rows = (await conn.execute(select(feedback).where(feedback.c.id.in_(feedback_ids)))).all()
    if not rows:
        return 0
    updates: list[dict[str, Any]] = []
    children: list[dict[str, Any]] = []
    for row in rows:
        derived = derive(row_to_record(row))
        updates.append({"b_id": row.id, **derived_values(derived, derive.rev)})
        children.extend(alert_rows(row.id, derived))
    # executemany: the parameters' column keys are the SET clause
    await conn.execute(update(feedback).where(feedback.c.id == bindparam("b_id")), updates)
    ids = [row.id for row in rows]
    await conn.execute(delete(feedback_alerts).where(feedback_alerts.c.feedback_id.in_(ids)))
    if children:
        await conn.execute(insert(feedback_alerts), children)
    return len(rows)
