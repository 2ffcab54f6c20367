"""Case handling: the manager's actions on an alert item's case, each one transaction of the item's
database with its audit row and a tick of the channel's version (the report counts cases by state);
and the escalation check, which needs no model and runs in the notify worker's loop.

A case is named by its item's ref (``live:desk-3f…``). Until accounts exist (ADR 0030) the actor and
the owner are a name the manager typed, recorded as ``typed``; without one the actor is ``operator``
(the caller reached an operator route).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from feedback_intelligence.deterministic.alerts import implied_severity_rank
from feedback_intelligence.domain.model import OTHER_ROOT_CAUSE, Domain
from feedback_intelligence.instants.clock import SYSTEM_CLOCK, Clock, now_ms
from feedback_intelligence.instants.timestamps import format_instant
from feedback_intelligence.records import StoredFeedback
from feedback_intelligence.services.alert_intake import (
    AlertIntake,
    operational_categories,
    paging_categories,
    severity_rank_of,
)
from feedback_intelligence.services.case_due import Due, DueTerms, due_of
from feedback_intelligence.services.channels import Channel
from feedback_intelligence.store import audit, cases, counters, outbox
from feedback_intelligence.store.audit import AuditEntry
from feedback_intelligence.store.cases import Closure
from feedback_intelligence.store.counters import VERSION_COUNTER
from feedback_intelligence.store.errors import CaseNotFound

NAME_MAX_CHARS = 100


class ClosureRefused(Exception):
    """A ``handle`` without what closing a case needs: ``code`` and ``field`` name what is missing."""

    def __init__(self, code: str, field: str, message: str) -> None:
        self.code = code
        self.field = field
        super().__init__(message)


def closure_for(domain: Domain, root_cause: str | None, root_cause_text: str | None, resolution: str | None) -> Closure:
    """The one rule of closing a case as handled: a root cause of the domain's list (``caseRootCauses``),
    words about it when it is ``other``, and what was done. Raises :class:`ClosureRefused`."""
    cause = (root_cause or "").strip()
    words = (root_cause_text or "").strip() or None
    done = (resolution or "").strip()
    if not cause:
        raise ClosureRefused("root_cause_required", "rootCause", "A case is closed as handled with its root cause.")
    if cause not in domain.case_root_causes:
        known = ", ".join(domain.case_root_causes)
        raise ClosureRefused("root_cause_unknown", "rootCause", f"The root cause is one of: {known}.")
    if cause == OTHER_ROOT_CAUSE and words is None:
        raise ClosureRefused("root_cause_text_required", "rootCauseText", "Say in words what the other cause was.")
    if not done:
        raise ClosureRefused("resolution_required", "resolution", "A case is closed as handled with what was done.")
    return Closure(cause, words, done)


class UnknownRef(Exception):
    def __init__(self, ref: str) -> None:
        self.ref = ref
        super().__init__(f"no case {ref!r}")


@dataclass(frozen=True, slots=True)
class Actor:
    kind: str  # account (a signed-in person), typed (a name as typed, FI_AUTH=none), operator, system
    id: str | None
    name: str | None
    aliases: tuple[str, ...] = ()  # an account's names, case-folded: typing one takes the case as oneself

    @staticmethod
    def typed_or_operator(name: str | None) -> Actor:
        name = (name or "").strip()[:NAME_MAX_CHARS]
        return Actor("typed", None, name) if name else Actor("operator", None, None)

    @staticmethod
    def account(account_id: str, display_name: str, username: str) -> Actor:
        """A signed-in person (what they type as their name is not asked for)."""
        name = display_name[:NAME_MAX_CHARS]
        return Actor("account", account_id, name, (name.casefold(), username.casefold()))


SYSTEM = Actor("system", "notify-worker", None)


@dataclass(frozen=True, slots=True)
class CaseView:
    channel: str
    case: cases.Case
    item: StoredFeedback | None
    reported_by: tuple[str, ...] = ()  # the ids of the items that joined the case as further reports (ADR 0060)

    @property
    def ref(self) -> str:
        return f"{self.channel}:{self.case.feedback_id}"

    @property
    def report_refs(self) -> list[str]:
        """Every report of the case's incident: its own item first, then those that joined it."""
        return [self.ref, *(f"{self.channel}:{i}" for i in self.reported_by)]


def new_change_id() -> str:
    return uuid.uuid4().hex


class CaseService:
    def __init__(
        self,
        domain: Domain,
        channels: Mapping[str, Channel],
        intake: AlertIntake,
        escalate_after_s: float,
        *,
        clock: Clock = SYSTEM_CLOCK,
        due_terms: DueTerms = DueTerms(),
    ):
        self.clock = clock  # when an action happened, and which open cases are due for escalation
        self.due_terms = due_terms
        self.domain = domain
        self.channels = channels
        self.intake = intake
        self.escalate_after_s = escalate_after_s

    def _split(self, ref: str) -> tuple[Channel, str]:
        name, _, feedback_id = ref.partition(":")
        channel = self.channels.get(name)
        if channel is None or not feedback_id:
            raise UnknownRef(ref)
        return channel, feedback_id

    # -- reads --------------------------------------------------------------------------------------

    async def listed(self, states: tuple[str, ...] = (), limit: int = 200, store: str | None = None) -> list[CaseView]:
        """Both channels, open first; within a state the most serious alert first (:func:`case_tier`: injury
        and food safety before payment noise), then oldest first;
        ``store``: only that store's items' cases."""
        views: list[CaseView] = []
        for name, channel in self.channels.items():
            async with channel.store.connection() as conn:
                found = await cases.listed(conn, states=states, limit=limit, store=store)
                joined = await audit.reports_of(conn, [c.feedback_id for c in found if c.reports > 1])
            for case in found:
                by = tuple(joined.get(case.feedback_id, ()))
                views.append(CaseView(name, case, await channel.store.get(case.feedback_id), by))
        rank = {state: n for n, state in enumerate(cases.STATES)}
        now = self.clock.now()

        def order(v: CaseView) -> tuple[int, bool, int, str, str]:  # an overdue case first within its state
            late = self.due(v).overdue(now)
            return rank.get(v.case.state, 9), not late, -case_tier(v, self.domain), v.case.opened_at, v.ref

        views.sort(key=order)
        return views[:limit]

    def as_json(self, view: CaseView) -> dict[str, Any]:
        """The API's case (:func:`case_json`), its due time by this service's terms and clock."""
        return case_json(view, self.domain, self.due(view), self.clock.now())

    def due(self, view: CaseView) -> Due:
        """The case's due time by the one rule (services/case_due.py)."""
        incident_at = view.item.timestamp if view.item is not None else None
        return due_of(view.case, incident_at, case_tier(view, self.domain), self.domain, self.due_terms)

    async def detail(self, ref: str) -> tuple[CaseView, list[cases.Note], list[AuditEntry]]:
        channel, feedback_id = self._split(ref)
        async with channel.store.connection() as conn:
            case = await cases.get(conn, feedback_id)
            if case is None:
                raise UnknownRef(ref)
            notes = await cases.notes(conn, feedback_id)
            log = await audit.for_item(conn, feedback_id)
        by = tuple(e.new_value for e in log if e.action == audit.REPORT and e.new_value is not None)
        return CaseView(channel.name, case, await channel.store.get(feedback_id), by), notes, log

    async def report_items(self, view: CaseView) -> list[tuple[str, StoredFeedback]]:
        """The items that joined ``view``'s case, with their refs, oldest first; an erased one is left out."""
        store = self.channels[view.channel].store
        found = [(f"{view.channel}:{i}", await store.get(i)) for i in view.reported_by]
        return [(ref, item) for ref, item in found if item is not None]

    async def counts(self, store: str | None = None) -> dict[str, int]:
        total = dict.fromkeys(cases.STATES, 0)
        for channel in self.channels.values():
            async with channel.store.connection() as conn:
                for state, n in (await cases.counts(conn, store)).items():
                    total[state] += n
        return total

    async def counts_for(self, channel: str, feedback_ids: list[str]) -> dict[str, int]:
        """The report's alert section: these items' cases by state in ``channel``'s database."""
        async with self.channels[channel].store.connection() as conn:
            return await cases.counts_for(conn, feedback_ids)

    async def counts_by_item(self, items: list[tuple[str, str]]) -> dict[str, int]:
        """As :meth:`counts_for` over ``(channel, feedback_id)`` pairs of any channels, added state by state."""
        by_channel: dict[str, list[str]] = {}
        for channel, feedback_id in items:
            by_channel.setdefault(channel, []).append(feedback_id)
        total = {**dict.fromkeys(cases.STATES, 0), "none": 0}
        for channel, ids in by_channel.items():
            for state, n in (await self.counts_for(channel, ids)).items():
                total[state] = total.get(state, 0) + n
        return total

    async def recent_audit(self, limit: int, before_at: str | None = None) -> list[tuple[str, AuditEntry]]:
        """Both databases' newest rows, merged by time."""
        rows: list[tuple[str, AuditEntry]] = []
        for name, channel in self.channels.items():
            async with channel.store.connection() as conn:
                rows.extend((name, e) for e in await audit.recent(conn, limit=limit, before_at=before_at))
        rows.sort(key=lambda r: r[1].at, reverse=True)
        return rows[:limit]

    # -- changes ------------------------------------------------------------------------------------

    async def act(
        self,
        ref: str,
        action: str,
        actor: Actor,
        *,
        expected_revision: int | None,
        reason: str | None = None,
        closure: Closure | None = None,
    ) -> CaseView:
        """``closure`` (:func:`closure_for`) goes with ``handle``: the audit log's ``case.handle`` row says what
        was done, a ``case.root_cause`` row of the same change why it happened."""
        channel, feedback_id = self._split(ref)
        at = format_instant(self.clock.now())
        async with channel.store.transaction() as conn:
            try:
                before, after = await cases.transition(
                    conn,
                    feedback_id,
                    action,
                    at=at,
                    expected_revision=expected_revision,
                    reason=reason,
                    closure=closure,
                )
            except CaseNotFound:
                raise UnknownRef(ref) from None
            change = new_change_id()
            told = closure.resolution if closure and after.state == cases.HANDLED else reason
            rows = [
                self._entry(
                    at,
                    actor,
                    f"case.{action}",
                    feedback_id,
                    old=before.state,
                    new=after.state,
                    reason=told,
                    change=change,
                )
            ]
            if closure is not None and after.state == cases.HANDLED:
                rows.append(
                    self._entry(
                        at,
                        actor,
                        "case.root_cause",
                        feedback_id,
                        new=closure.root_cause,
                        reason=closure.root_cause_text,
                        change=change,
                        field="rootCause",
                    )
                )
            await audit.append(conn, rows)
            await counters.bump(conn, VERSION_COUNTER)
        return CaseView(channel.name, after, await channel.store.get(feedback_id))

    async def assign(self, ref: str, owner_name: str, actor: Actor, *, expected_revision: int | None) -> CaseView:
        """The owner is the name as typed; a signed-in person who types their own name (or user name)
        takes the case as themselves, an account."""
        name = owner_name.strip()[:NAME_MAX_CHARS] or None
        themselves = actor.kind == "account" and name is not None and name.casefold() in actor.aliases
        if themselves:
            owner: Actor | None = actor
        else:
            owner = Actor("typed", None, name) if name else None
        return await self.set_owner(ref, owner, actor, expected_revision=expected_revision)

    async def set_owner(
        self, ref: str, owner: Actor | None, actor: Actor, *, expected_revision: int | None
    ) -> CaseView:
        """``owner``: an account (one the route found granted the case's store), a typed name, or None."""
        channel, feedback_id = self._split(ref)
        at = format_instant(self.clock.now())
        async with channel.store.transaction() as conn:
            try:
                before, after = await cases.assign(
                    conn,
                    feedback_id,
                    owner_kind=owner.kind if owner else None,
                    owner_id=owner.id if owner else None,
                    owner_name=owner.name[:NAME_MAX_CHARS] if owner and owner.name else None,
                    at=at,
                    expected_revision=expected_revision,
                )
            except CaseNotFound:
                raise UnknownRef(ref) from None
            entry = self._entry(at, actor, "case.assign", feedback_id, old=before.owner_name, new=after.owner_name)
            await audit.append(conn, [entry])
            await counters.bump(conn, VERSION_COUNTER)
        return CaseView(channel.name, after, await channel.store.get(feedback_id))

    async def note(self, ref: str, text: str, actor: Actor) -> int:
        channel, feedback_id = self._split(ref)
        at = format_instant(self.clock.now())
        async with channel.store.transaction() as conn:
            try:
                note_id = await cases.add_note(
                    conn,
                    feedback_id,
                    text=text,
                    at=at,
                    author_kind=actor.kind,
                    author_id=actor.id,
                    author_name=actor.name,
                )
            except CaseNotFound:
                raise UnknownRef(ref) from None
            await audit.append(conn, [self._entry(at, actor, "case.note", feedback_id, new=str(note_id))])
            await counters.bump(conn, VERSION_COUNTER)
        return note_id

    async def escalate_due(self, now: datetime | None = None) -> int:
        """Give every open critical case older than ``FI_CASE_ESCALATE_AFTER_S`` its escalation rows."""
        moment = now or self.clock.now()
        cutoff = format_instant(moment - timedelta(seconds=self.escalate_after_s))
        critical = len(self.domain.severities)
        escalated = 0
        for name, channel in self.channels.items():
            async with channel.store.connection() as conn:
                due = await cases.due_for_escalation(conn, cutoff, limit=500)
            for case in due:
                item = await channel.store.get(case.feedback_id)
                if item is None or severity_rank_of(item, self.domain) < critical:
                    continue
                if not paging_categories(item, self.domain):
                    continue
                at = format_instant(moment)
                async with channel.store.transaction() as conn:
                    if not await cases.mark_escalated(conn, case.feedback_id, at):
                        continue  # another replica's check was first
                    await outbox.enqueue(
                        conn,
                        channel=name,
                        feedback_id=case.feedback_id,
                        routes=self.intake.routes_for(item, escalation=True),
                        event=outbox.ESCALATION,
                        created_at=at,
                        due_ms=now_ms(self.clock),
                    )
                    await audit.append(conn, [self._entry(at, SYSTEM, "case.escalate", case.feedback_id)])
                    await counters.bump(conn, VERSION_COUNTER)
                escalated += 1
        return escalated

    async def escalate_overdue(self, now: datetime | None = None) -> int:
        """Tell the store's managers of every case past its due time, once (ADR 0061): ``overdue_at``, one
        ``overdue`` outbox row on the mail route (its addressees are read when it is sent) and a
        ``case.overdue`` audit row, in one transaction; a conditional update keeps it to one replica."""
        moment = now or self.clock.now()
        started_before = format_instant(moment - self.due_terms.shortest)
        route = self.intake.mail_route()
        told = 0
        for name, channel in self.channels.items():
            async with channel.store.connection() as conn:
                candidates = await cases.overdue_candidates(conn, started_before)
            for case, _ in candidates:
                view = CaseView(name, case, await channel.store.get(case.feedback_id))
                due = self.due(view)
                if not due.overdue(moment):
                    continue
                at = format_instant(moment)
                async with channel.store.transaction() as conn:
                    if not await cases.mark_overdue(conn, case.feedback_id, at):
                        continue  # another replica's check was first, or the case closed meanwhile
                    await outbox.enqueue(
                        conn,
                        channel=name,
                        feedback_id=case.feedback_id,
                        routes=[route] if route else [],
                        event=outbox.OVERDUE,
                        created_at=at,
                        due_ms=now_ms(self.clock),
                    )
                    why = None if route else "no smtp route in FI_NOTIFY_CHANNELS: nobody was mailed"
                    entry = self._entry(at, SYSTEM, "case.overdue", case.feedback_id, new=format_instant(due.due_at))
                    await audit.append(conn, [replace(entry, reason=why)])
                    await counters.bump(conn, VERSION_COUNTER)
                told += 1
        return told

    @staticmethod
    def _entry(
        at: str,
        actor: Actor,
        action: str,
        feedback_id: str,
        *,
        old: str | None = None,
        new: str | None = None,
        reason: str | None = None,
        change: str | None = None,
        field: str | None = None,
    ) -> AuditEntry:
        return AuditEntry(
            at=at,
            change_id=change or new_change_id(),
            field=field,
            actor_kind=actor.kind,
            actor_id=actor.id,
            actor_name=actor.name,
            action=action,
            feedback_id=feedback_id,
            old_value=old,
            new_value=new,
            reason=reason,
        )


def case_tier(view: CaseView, domain: Domain) -> int:
    """How serious the case's alert is: the highest severity rank its alert categories imply (the domain's
    ``severityByAlert``: injury and food safety are critical, payment high); -1 without a known alert."""
    if view.item is None:
        return -1
    implied = implied_severity_rank(operational_categories(view.item, domain), domain)
    return -1 if implied is None else implied


def case_json(view: CaseView, domain: Domain, due: Due, now: datetime) -> dict[str, Any]:
    """``due``: :meth:`CaseService.due` of the view; ``now``: the service's clock."""
    case, item = view.case, view.item
    return {
        "ref": view.ref,
        "channel": view.channel,
        "id": case.feedback_id,
        "state": case.state,
        "openedAt": case.opened_at,
        "acknowledgedAt": case.acknowledged_at,
        "closedAt": case.closed_at,
        "dismissReason": case.dismiss_reason,
        "rootCause": case.root_cause,
        "rootCauseText": case.root_cause_text,
        "resolution": case.resolution,
        "escalatedAt": case.escalated_at,
        **due.as_json(now),
        "overdueNotifiedAt": case.overdue_at,
        "owner": ({"kind": case.owner_kind, "id": case.owner_id, "name": case.owner_name} if case.owner_name else None),
        "revision": case.revision,
        "updatedAt": case.updated_at,
        "tier": case_tier(view, domain),
        "reports": case.reports,
        "reportRefs": view.report_refs,
        "item": (
            {
                "text": item.text,
                "timestamp": item.timestamp,
                "store": item.store,
                "severity": item.structure.severity if item.structure else None,
                "alertCategories": operational_categories(item, domain),
            }
            if item is not None
            else None
        ),
    }
