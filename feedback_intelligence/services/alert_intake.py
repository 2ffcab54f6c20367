"""What a saved alert item starts, in the save's own transaction (ADR 0024 sections 4-5, ADR 0029).

An item with a paging alert (a deterministic hit outside the demoted categories and outside the
domain's digest categories; the report's model screen starts nothing) whose timestamp is at most
``FI_CASE_MAX_AGE_DAYS`` old gets an ``alert`` outbox row for every notify route that takes it and a
case. An alert of a digest category (payment trouble in retail) pages nobody and opens no case: it is
listed in the report and told once a day in the routes' digest (workers/alert_digest.py, ADR 0057).
Older items (a history import) open no case and page nobody; a batch marked ``history`` (a backfill, ADR
0059) starts nothing at all, however recent its items: the channel leaves this hook out. Composed into
the store's insert as its ``also`` hook, so the item, its case and its notifications commit together or
not at all; and into a correction's write (a correction is a save, ADR 0041), with the item as corrected
and the correction's instant: an alert it adds opens the case and notifies, and what the item had already
started (its case, a route already told) is not started twice. An alert a correction removes closes
nothing: a person closes the case.

One incident, one case (ADR 0060): a paging item of a store that already has a case of one of its paging
categories opened within ``incident_window_h`` hours joins that case as a further report (the case
counts it, the audit log says ``case.report``) and pages nobody, since the case's routes were told; if
that case was closed, the report reopens it (``case.reopen`` by the system) and pages again. A window of
0 opens one case per item. A correction's new alert opens the item's own case, as before, unless the
item joined a case as a report.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncConnection

from feedback_intelligence.config.notify_routes import NotifyRoute
from feedback_intelligence.deterministic import alerts
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.instants.clock import SYSTEM_CLOCK, Clock, now_ms
from feedback_intelligence.instants.timestamps import format_instant, parse_normalized
from feedback_intelligence.records import StoredFeedback
from feedback_intelligence.store import audit, cases, outbox
from feedback_intelligence.store.feedback_store import SaveHook


def operational_categories(item: StoredFeedback, domain: Domain) -> list[str]:
    """The item's operational alert categories (deterministic/alerts.py holds the rule)."""
    return alerts.operational_categories(item.alerts, domain)


def paging_categories(item: StoredFeedback, domain: Domain) -> list[str]:
    """The operational alert categories that page a person and open a case at once."""
    return [c for c in operational_categories(item, domain) if domain.pages_for(c)]


def digest_categories(item: StoredFeedback, domain: Domain) -> list[str]:
    """The operational alert categories told in the day's digest instead."""
    return [c for c in operational_categories(item, domain) if not domain.pages_for(c)]


def severity_rank_of(item: StoredFeedback, domain: Domain) -> int:
    """The item's severity; before the model has structured it, the strongest its alerts imply (the rule is
    deterministic/alerts.py's; the derived ``severity_rank`` column is the same)."""
    return alerts.item_severity_rank(item.structure, item.alerts, domain)


REOPEN_REASON = "a new report of the same incident"


def _system_entry(
    at: str,
    action: str,
    feedback_id: str,
    *,
    new: str,
    old: str | None = None,
    reason: str | None = None,
    change: str | None = None,
) -> audit.AuditEntry:
    return audit.AuditEntry(
        at=at,
        change_id=change or uuid.uuid4().hex,
        actor_kind="system",
        actor_id="alert-intake",
        actor_name=None,
        action=action,
        feedback_id=feedback_id,
        old_value=old,
        new_value=new,
        reason=reason,
    )


@dataclass(frozen=True, slots=True)
class AlertIntake:
    domain: Domain
    routes: Sequence[NotifyRoute]
    max_age_days: float
    clock: Clock = SYSTEM_CLOCK  # what "recent" is measured from, and when the notifications are due
    incident_window_h: float = 0  # a report joins its store's case of its category this young; 0 = off

    def recent(self, item: StoredFeedback, now: datetime | None = None) -> bool:
        age = (now or self.clock.now()) - parse_normalized(item.timestamp)
        return age <= timedelta(days=self.max_age_days)

    def mail_route(self) -> str | None:
        """The route whose mail transport tells a store's managers of an overdue case (ADR 0061): the first
        ``smtp`` route of ``FI_NOTIFY_CHANNELS``, whatever it routes; None without one."""
        return next((r.name for r in self.routes if r.kind == "smtp"), None)

    def routes_for(self, item: StoredFeedback, *, escalation: bool) -> list[str]:
        """The routes paged for ``item`` (its paging alerts)."""
        return self.routes_taking(item, paging_categories(item, self.domain), escalation=escalation)

    def routes_taking(self, item: StoredFeedback, categories: Sequence[str], *, escalation: bool) -> list[str]:
        """The routes that take ``item`` for these of its alert categories."""
        if not categories:
            return []
        rank = severity_rank_of(item, self.domain)
        return [
            r.name
            for r in self.routes
            if r.takes(
                event_escalation=escalation,
                categories=categories,
                severity_rank=rank,
                store=item.store,
                rank_of=self.domain.severity_rank,
            )
        ]

    def hook(self, channel: str) -> SaveHook:
        async def on_save(conn: AsyncConnection, items: Sequence[StoredFeedback], *, at: str | None = None) -> None:
            await self.started(conn, channel, items, at=at)

        return on_save

    async def started(
        self, conn: AsyncConnection, channel: str, items: Sequence[StoredFeedback], *, at: str | None = None
    ) -> None:
        """The cases and the notifications new or newly alerting items start (inside ``conn``'s transaction).
        ``at``: when (a correction's instant); None = each item's saving (``created_at``)."""
        now = self.clock.now()
        alerting = [item for item in items if paging_categories(item, self.domain) and self.recent(item, now)]
        if at is not None and alerting:  # a correction: a report that joined a case has its case already
            reported = await audit.joined(conn, [item.id for item in alerting])
            alerting = [item for item in alerting if item.id not in reported]
        if self.incident_window_h > 0 and at is None:
            paged = await self._join_or_open(conn, alerting)
        else:
            paged = alerting
            await self._open_all(conn, paged, at)
        for item in paged:
            await self._page(conn, channel, item, at or item.created_at)

    async def _open_all(self, conn: AsyncConnection, paged: Sequence[StoredFeedback], at: str | None) -> None:
        """The cases in one statement and their audit rows in another, however many items a batch brings."""
        opened = await cases.open_cases(conn, [(item.id, at or item.created_at) for item in paged])
        await audit.append(
            conn,
            [
                _system_entry(at or item.created_at, "case.open", item.id, new=cases.OPEN)
                for item in paged
                if item.id in opened
            ],
        )

    async def _page(self, conn: AsyncConnection, channel: str, item: StoredFeedback, at: str) -> None:
        await outbox.enqueue(
            conn,
            channel=channel,
            feedback_id=item.id,
            routes=self.routes_for(item, escalation=False),
            event=outbox.ALERT,
            created_at=at,
            due_ms=now_ms(self.clock),
        )

    async def _join_or_open(self, conn: AsyncConnection, items: Sequence[StoredFeedback]) -> list[StoredFeedback]:
        """Each item in turn joins its store's case of the same incident, if there is one, or opens its own,
        which the batch's later items join: one incident, one case, however its reports arrive. The cases a
        report may join are read in one statement for the whole batch; the writes are one statement per case
        touched. Returns the items to page: those that opened a case, and those whose report reopened one."""
        window = timedelta(hours=self.incident_window_h)
        categories = {item.id: paging_categories(item, self.domain) for item in items}
        incidents = await self._incidents(conn, items, categories, window)
        opening: list[StoredFeedback] = []
        paged: list[StoredFeedback] = []
        reports: dict[str, list[str]] = {}  # case -> when each new report of it was saved
        reopening: list[tuple[str, str]] = []  # (case, at)
        rows: list[tuple[audit.AuditEntry, str | None]] = []  # in the order of the items; an opening's row names it
        for item in items:
            at = item.created_at
            incident = self._joinable(item, categories[item.id], incidents, window)
            if incident is None:
                opening.append(item)
                paged.append(item)
                rows.append((_system_entry(at, "case.open", item.id, new=cases.OPEN), item.id))
                if item.store is not None:  # the batch's later reports join it
                    new = _Incident(item.id, at, cases.OPEN)
                    for key in ((item.store, category) for category in categories[item.id]):
                        if key not in incidents or new.order() > incidents[key].order():
                            incidents[key] = new
                continue
            change = uuid.uuid4().hex
            reports.setdefault(incident.case_id, []).append(at)
            rows.append((_system_entry(at, audit.REPORT, incident.case_id, new=item.id, change=change), None))
            if incident.state in (cases.HANDLED, cases.DISMISSED):
                entry = _system_entry(
                    at,
                    "case.reopen",
                    incident.case_id,
                    old=incident.state,
                    new=cases.OPEN,
                    reason=REOPEN_REASON,
                    change=change,
                )
                rows.append((entry, None))
                reopening.append((incident.case_id, at))
                incident.state = cases.OPEN
                paged.append(item)  # the new report is what the routes read
        opened = await cases.open_cases(conn, [(item.id, item.created_at) for item in opening])
        for case_id, at in reopening:
            await cases.transition(conn, case_id, "reopen", at=at, reason=REOPEN_REASON)
        for case_id, ats in reports.items():
            await cases.add_reports(conn, case_id, len(ats), max(ats))
        await audit.append(conn, [entry for entry, opens in rows if opens is None or opens in opened])
        return paged

    async def _incidents(
        self,
        conn: AsyncConnection,
        items: Sequence[StoredFeedback],
        categories: dict[str, list[str]],
        window: timedelta,
    ) -> dict[tuple[str, str], _Incident]:
        """The newest case of each (store, paging category) of the items opened within the window of the
        earliest of them: every case one of them may join."""
        placed = [item for item in items if item.store is not None and categories[item.id]]
        if not placed:
            return {}
        earliest = min(parse_normalized(item.created_at) for item in placed)
        found = await cases.incident_cases(
            conn,
            stores={item.store for item in placed if item.store is not None},
            categories={category for item in placed for category in categories[item.id]},
            opened_since=format_instant(earliest - window),
        )
        shared: dict[str, _Incident] = {}  # one object per case, so a reopening is seen under each category
        return {
            key: shared.setdefault(case.feedback_id, _Incident(case.feedback_id, case.opened_at, case.state))
            for key, case in found.items()
        }

    @staticmethod
    def _joinable(
        item: StoredFeedback,
        categories: Sequence[str],
        incidents: dict[tuple[str, str], _Incident],
        window: timedelta,
    ) -> _Incident | None:
        """The case ``item`` joins: of its first paging category whose store's newest case opened within the
        window before it was saved; None opens its own."""
        if item.store is None:
            return None
        since = format_instant(parse_normalized(item.created_at) - window)
        for category in categories:
            incident = incidents.get((item.store, category))
            if incident is not None and incident.opened_at >= since and incident.case_id != item.id:
                return incident
        return None


@dataclass(slots=True)
class _Incident:
    """A case a report may join, as this batch leaves it (a report reopens a closed one)."""

    case_id: str
    opened_at: str
    state: str

    def order(self) -> tuple[str, str]:
        return cases.incident_order(self.opened_at, self.case_id)
