"""Cases and their notes (ADR 0024 section 5, docs/data-model.md): the one writer of ``cases`` and
``case_notes``, as functions over the caller's :class:`AsyncConnection`.

The state machine is :data:`TRANSITIONS`, the one place that says which move is allowed: ``open`` →
``acknowledged`` | ``dismissed``, ``acknowledged`` → ``handled`` | ``dismissed``, ``handled`` |
``dismissed`` → ``open``. Every change is conditional on the revision the caller read (``If-Match``),
so two managers acting at once cannot both win; the revision moves by one on every change.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import case as when
from sqlalchemy import func, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

from feedback_intelligence.store.audit import REPORT
from feedback_intelligence.store.errors import CaseNotFound, CaseTransitionInvalid, StaleCaseRevision
from feedback_intelligence.store.schema import audit_log, case_notes, cases, feedback, feedback_alerts

OPEN, ACKNOWLEDGED, HANDLED, DISMISSED = "open", "acknowledged", "handled", "dismissed"
STATES: tuple[str, ...] = (OPEN, ACKNOWLEDGED, HANDLED, DISMISSED)  # also the list's order: open first
#: (state, action) -> the new state.
TRANSITIONS: dict[tuple[str, str], str] = {
    (OPEN, "acknowledge"): ACKNOWLEDGED,
    (OPEN, "dismiss"): DISMISSED,
    (ACKNOWLEDGED, "handle"): HANDLED,
    (ACKNOWLEDGED, "dismiss"): DISMISSED,
    (HANDLED, "reopen"): OPEN,
    (DISMISSED, "reopen"): OPEN,
}
ACTIONS: tuple[str, ...] = ("acknowledge", "handle", "dismiss", "reopen")


@dataclass(frozen=True, slots=True)
class Case:
    feedback_id: str
    state: str
    opened_at: str
    acknowledged_at: str | None
    closed_at: str | None
    dismiss_reason: str | None
    escalated_at: str | None
    owner_kind: str | None
    owner_id: str | None
    owner_name: str | None
    revision: int
    updated_at: str
    root_cause: str | None = None
    root_cause_text: str | None = None
    resolution: str | None = None
    reports: int = 1  # the items reporting its incident: its own and those that joined it (ADR 0060)
    overdue_at: str | None = None  # when its overdue escalation was enqueued (ADR 0061)


@dataclass(frozen=True, slots=True)
class Closure:
    """Why a handled case happened (a key of the domain's ``caseRootCauses``, and words) and what was done."""

    root_cause: str
    root_cause_text: str | None
    resolution: str


@dataclass(frozen=True, slots=True)
class Note:
    id: int
    feedback_id: str
    at: str
    author_kind: str | None
    author_id: str | None
    author_name: str | None
    text: str


def _case(row: Any) -> Case:
    return Case(**{c: getattr(row, c) for c in Case.__dataclass_fields__})


async def open_case(conn: AsyncConnection, feedback_id: str, at: str) -> bool:
    """Open the item's case unless it has one; True when it was opened now."""
    return feedback_id in await open_cases(conn, [(feedback_id, at)])


async def open_cases(conn: AsyncConnection, opening: Sequence[tuple[str, str]]) -> set[str]:
    """Open each ``(feedback_id, at)`` item's case unless it has one, in one statement (a bulk import opens
    many); the ids whose case was opened now."""
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    opened: set[str] = set()
    for start in range(0, len(opening), _OPEN_CHUNK):
        rows = [
            {"feedback_id": i, "state": OPEN, "opened_at": at, "revision": 1, "updated_at": at}
            for i, at in opening[start : start + _OPEN_CHUNK]
        ]
        statement = (
            dialect.insert(cases)
            .values(rows)
            .on_conflict_do_nothing(index_elements=["feedback_id"])
            .returning(cases.c.feedback_id)
        )
        opened.update((await conn.execute(statement)).scalars().all())
    return opened


_OPEN_CHUNK = 500  # rows of one statement: 5 parameters each, well inside SQLite's bound on parameters


async def get(conn: AsyncConnection, feedback_id: str) -> Case | None:
    row = (await conn.execute(select(cases).where(cases.c.feedback_id == feedback_id))).first()
    return _case(row) if row is not None else None


def _of_store(statement: Any, store: str | None) -> Any:
    """Only the cases whose item is of ``store`` (a case's store is its item's: ADR 0024 section 5)."""
    if store is None:
        return statement
    return statement.join(feedback, feedback.c.id == cases.c.feedback_id).where(feedback.c.store == store)


async def listed(
    conn: AsyncConnection, *, states: Sequence[str] = (), limit: int = 200, store: str | None = None
) -> list[Case]:
    """Open first, then acknowledged, handled, dismissed; oldest first within a state."""
    rank = when({state: n for n, state in enumerate(STATES)}, value=cases.c.state, else_=len(STATES))
    statement = _of_store(select(cases), store)
    if states:
        statement = statement.where(cases.c.state.in_(list(states)))
    statement = statement.order_by(rank, cases.c.opened_at, cases.c.feedback_id).limit(limit)
    return [_case(row) for row in (await conn.execute(statement)).all()]


async def counts(conn: AsyncConnection, store: str | None = None) -> dict[str, int]:
    statement = _of_store(select(cases.c.state, func.count()), store).group_by(cases.c.state)
    grouped = (await conn.execute(statement)).all()
    found = {state: int(n) for state, n in grouped}
    return {state: found.get(state, 0) for state in STATES}


async def counts_for(conn: AsyncConnection, feedback_ids: Sequence[str]) -> dict[str, int]:
    """These items' cases by state, and ``none`` for those without a case (the report's alert section)."""
    found: dict[str, int] = dict.fromkeys(STATES, 0)
    wanted = list(dict.fromkeys(feedback_ids))
    seen = 0
    for start in range(0, len(wanted), 500):  # bounded IN lists
        chunk = wanted[start : start + 500]
        statement = select(cases.c.state, func.count()).where(cases.c.feedback_id.in_(chunk)).group_by(cases.c.state)
        # a report that joined a case (ADR 0060) counts in its case's state, not as an item without one
        joined = (
            select(cases.c.state, func.count())
            .join(audit_log, audit_log.c.feedback_id == cases.c.feedback_id)
            .where(audit_log.c.action == REPORT, audit_log.c.new_value.in_(chunk))
            .group_by(cases.c.state)
        )
        for part in (statement, joined):
            for state, n in (await conn.execute(part)).all():
                found[state] = found.get(state, 0) + int(n)
                seen += int(n)
    return {**found, "none": len(wanted) - seen}


async def incident_cases(
    conn: AsyncConnection, *, stores: Collection[str], categories: Collection[str], opened_since: str
) -> dict[tuple[str, str], Case]:
    """For each (store, category) of these, the newest case of the store whose item alerts the category and
    that was opened at or after ``opened_since``, in any state: the incidents a batch's new reports may join
    (ADR 0060), read in one statement however many reports the batch brings."""
    if not stores or not categories:
        return {}
    statement = (
        select(cases, feedback.c.store.label("incident_store"), feedback_alerts.c.category.label("incident_category"))
        .join(feedback, feedback.c.id == cases.c.feedback_id)
        .join(feedback_alerts, feedback_alerts.c.feedback_id == cases.c.feedback_id)
        .where(
            feedback.c.store.in_(sorted(stores)),
            feedback_alerts.c.category.in_(sorted(categories)),
            cases.c.opened_at >= opened_since,
        )
    )
    newest: dict[tuple[str, str], Case] = {}
    for row in await conn.execute(statement):
        key, case = (row.incident_store, row.incident_category), _case(row)
        newer = key not in newest or incident_order(case.opened_at, case.feedback_id) > incident_order(
            newest[key].opened_at, newest[key].feedback_id
        )
        if newer:
            newest[key] = case
    return newest


def incident_order(opened_at: str, feedback_id: str) -> tuple[str, str]:
    """Which of two cases of one incident is the newer (the greater): the later opened, then the greater id."""
    return opened_at, feedback_id


async def add_reports(conn: AsyncConnection, feedback_id: str, count: int, at: str) -> None:
    """``count`` more reports of the case's incident, the last at ``at``: each a change of the case, so its
    revision moves by ``count``. In the caller's transaction, as one statement."""
    statement = (
        update(cases)
        .where(cases.c.feedback_id == feedback_id)
        .values(reports=cases.c.reports + count, revision=cases.c.revision + count, updated_at=at)
    )
    if (await conn.execute(statement)).rowcount == 0:
        raise CaseNotFound(feedback_id)


async def _change(conn: AsyncConnection, current: Case, expected_revision: int | None, **values: Any) -> Case:
    if expected_revision is not None and expected_revision != current.revision:
        raise StaleCaseRevision(current.revision)
    statement = (
        update(cases)
        .where(cases.c.feedback_id == current.feedback_id, cases.c.revision == current.revision)
        .values(revision=current.revision + 1, **values)
    )
    if (await conn.execute(statement)).rowcount == 0:  # someone else's change committed between read and write
        latest = await get(conn, current.feedback_id)
        raise StaleCaseRevision(latest.revision if latest else current.revision)
    changed = await get(conn, current.feedback_id)
    assert changed is not None
    return changed


async def _current(conn: AsyncConnection, feedback_id: str) -> Case:
    found = await get(conn, feedback_id)
    if found is None:
        raise CaseNotFound(feedback_id)
    return found


async def transition(
    conn: AsyncConnection,
    feedback_id: str,
    action: str,
    *,
    at: str,
    expected_revision: int | None = None,
    reason: str | None = None,
    closure: Closure | None = None,
) -> tuple[Case, Case]:
    """Apply ``action``; returns (before, after). Raises CaseNotFound, CaseTransitionInvalid, StaleCaseRevision.

    ``closure`` is kept on a handled case; a reopened one starts without it (the audit log keeps the old)."""
    before = await _current(conn, feedback_id)
    target = TRANSITIONS.get((before.state, action))
    if target is None:
        raise CaseTransitionInvalid(before.state, action)
    values: dict[str, Any] = {"state": target, "updated_at": at}
    if target == ACKNOWLEDGED:
        values["acknowledged_at"] = at
    elif target in (HANDLED, DISMISSED):
        values["closed_at"] = at
        values["dismiss_reason"] = reason if target == DISMISSED else None
        kept = closure if target == HANDLED else None
        values.update(
            root_cause=kept.root_cause if kept else None,
            root_cause_text=kept.root_cause_text if kept else None,
            resolution=kept.resolution if kept else None,
        )
    elif target == OPEN:  # reopened
        values.update(closed_at=None, dismiss_reason=None, root_cause=None, root_cause_text=None, resolution=None)
    return before, await _change(conn, before, expected_revision, **values)


async def assign(
    conn: AsyncConnection,
    feedback_id: str,
    *,
    owner_kind: str | None,
    owner_id: str | None,
    owner_name: str | None,
    at: str,
    expected_revision: int | None = None,
) -> tuple[Case, Case]:
    before = await _current(conn, feedback_id)
    after = await _change(
        conn,
        before,
        expected_revision,
        owner_kind=owner_kind,
        owner_id=owner_id,
        owner_name=owner_name,
        updated_at=at,
    )
    return before, after


async def add_note(
    conn: AsyncConnection,
    feedback_id: str,
    *,
    text: str,
    at: str,
    author_kind: str | None,
    author_id: str | None,
    author_name: str | None,
) -> int:
    current = await _current(conn, feedback_id)
    await _change(conn, current, None, updated_at=at)  # a note is a change of the case: its revision moves
    inserted = await conn.execute(
        insert(case_notes)
        .values(
            feedback_id=feedback_id,
            at=at,
            author_kind=author_kind,
            author_id=author_id,
            author_name=author_name,
            text=text,
        )
        .returning(case_notes.c.id)
    )
    return int(inserted.scalar_one())


async def notes(conn: AsyncConnection, feedback_id: str) -> list[Note]:
    statement = (
        select(case_notes).where(case_notes.c.feedback_id == feedback_id).order_by(case_notes.c.at, case_notes.c.id)
    )
    return [
        Note(**{c: getattr(r, c) for c in Note.__dataclass_fields__}) for r in (await conn.execute(statement)).all()
    ]


async def due_for_escalation(conn: AsyncConnection, opened_before: str, limit: int = 100) -> list[Case]:
    """Open, never escalated, opened at or before ``opened_before``: the escalation check's candidates."""
    statement = (
        select(cases)
        .where(cases.c.state == OPEN, cases.c.escalated_at.is_(None), cases.c.opened_at <= opened_before)
        .order_by(cases.c.opened_at)
        .limit(limit)
    )
    return [_case(row) for row in (await conn.execute(statement)).all()]


async def mark_escalated(conn: AsyncConnection, feedback_id: str, at: str) -> bool:
    """Conditional: only one replica's check escalates a case."""
    statement = (
        update(cases)
        .where(cases.c.feedback_id == feedback_id, cases.c.escalated_at.is_(None), cases.c.state == OPEN)
        .values(escalated_at=at, revision=cases.c.revision + 1, updated_at=at)
    )
    return bool((await conn.execute(statement)).rowcount)


async def overdue_candidates(conn: AsyncConnection, happened_before: str, limit: int = 500) -> list[tuple[Case, str]]:
    """Not closed, never told overdue, whose item happened at or before ``happened_before`` (the shortest
    due span ago): the overdue check's candidates with their items' times; the rule decides which are due."""
    statement = (
        select(cases, feedback.c.timestamp.label("incident_at"))
        .join(feedback, feedback.c.id == cases.c.feedback_id)
        .where(
            cases.c.state.in_([OPEN, ACKNOWLEDGED]),
            cases.c.overdue_at.is_(None),
            feedback.c.timestamp <= happened_before,
        )
        .order_by(feedback.c.timestamp, cases.c.feedback_id)
        .limit(limit)
    )
    return [(_case(row), row.incident_at) for row in (await conn.execute(statement)).all()]


async def mark_overdue(conn: AsyncConnection, feedback_id: str, at: str) -> bool:
    """Conditional: only one replica's check tells a case overdue, and only once. The revision stays: a
    manager closing the case at that moment changes what they read, and must not be refused as stale."""
    statement = (
        update(cases)
        .where(
            cases.c.feedback_id == feedback_id,
            cases.c.overdue_at.is_(None),
            cases.c.state.in_([OPEN, ACKNOWLEDGED]),
        )
        .values(overdue_at=at)
    )
    return bool((await conn.execute(statement)).rowcount)


async def delete_item(conn: AsyncConnection, feedback_id: str) -> None:
    """The item's notes and case (its erasure), children first."""
    await conn.execute(case_notes.delete().where(case_notes.c.feedback_id == feedback_id))
    await conn.execute(cases.delete().where(cases.c.feedback_id == feedback_id))
