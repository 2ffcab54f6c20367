"""The brief by mail (ADR 0062): once the shop's clock (``FI_TIMEZONE``) passes ``FI_NOTIFY_BRIEF_HOUR``,
each person who asked for it (``accounts.brief_mail``: ``weekly`` on Mondays, ``daily`` every day) and has
an address gets the first screen's brief of their stores, in their language.

It rides the outbox like the day's digest (workers/alert_digest.py): one row per person and day in the
live database's outbox, its ``feedback_id`` ``brief-{day}-{account id}`` and its route
``FI_NOTIFY_BRIEF_ROUTE`` (the smtp route whose relay carries it), so every replica that notices the hour
enqueues it once and a dead replica's send is resent under the same delivery id. Nothing of it is stored:
at delivery the person is read again (gone, disabled, no longer opted in, no address: the row is
cancelled) and the brief is built then for their grants as they are — a manager of some stores reads
only those stores' counts, rises and cases, a manager of the chain the chain's.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from email.message import EmailMessage
from zoneinfo import ZoneInfo

from feedback_intelligence.auth.reach import reaches
from feedback_intelligence.config import ReportSettings
from feedback_intelligence.config.notify_routes import NotifyRoute
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.instants.clock import SYSTEM_CLOCK, Clock, now_ms
from feedback_intelligence.instants.timestamps import format_instant
from feedback_intelligence.outputs.brief_mail import BriefMail, CaseLine
from feedback_intelligence.report.brief import brief, brief_week, stores_in_reach
from feedback_intelligence.report.service import ReportService
from feedback_intelligence.services.alert_intake import operational_categories
from feedback_intelligence.services.cases import CaseService
from feedback_intelligence.services.channels import Channel
from feedback_intelligence.store import outbox
from feedback_intelligence.store.accounts import AccountStore, BriefReader
from feedback_intelligence.store.cases import ACKNOWLEDGED, OPEN
from feedback_intelligence.wording.sentences import wording_for

log = logging.getLogger(__name__)

BRIEF_PREFIX = "brief-"
WEEKLY, DAILY = "weekly", "daily"
PERIODS = (WEEKLY, DAILY)
MANAGER = "manager"
CASES_READ = 1000  # the active cases read to find a person's; the mail lists the first few, the page all


def brief_id(day: date, account_id: str) -> str:
    """The outbox's ``feedback_id`` of a person's brief for ``day`` (no item has such an id)."""
    return f"{BRIEF_PREFIX}{day.isoformat()}-{account_id}"


def parse_brief_id(feedback_id: str) -> tuple[date, str] | None:
    if not feedback_id.startswith(BRIEF_PREFIX):
        return None
    rest = feedback_id.removeprefix(BRIEF_PREFIX)
    try:
        return date.fromisoformat(rest[:10]), rest[11:]
    except ValueError:
        return None


def reach_of(reader: BriefReader) -> frozenset[str] | None:
    """The stores a person's brief covers: their manager grants' (None: the chain, ``*``); empty: none."""
    stores = {grant.store for grant in reader.grants if grant.role == MANAGER}
    return None if "*" in stores else frozenset(stores)


def period_of(reader: BriefReader, day: date) -> str | None:
    """Which brief ``reader`` gets on ``day``: the daily every day, the weekly on Mondays; None: none."""
    if reader.brief == DAILY:
        return DAILY
    return WEEKLY if reader.brief == WEEKLY and day.weekday() == 0 else None


@dataclass
class BriefMailer:
    domain: Domain
    accounts: AccountStore
    reports: ReportService
    cases: CaseService
    channels: dict[str, Channel]  # the outbox is the live channel's; both are read for the week's stores
    options: ReportSettings
    route: str  # FI_NOTIFY_BRIEF_ROUTE
    zone: ZoneInfo
    hour: int
    configured_stores: Sequence[str] | None = None  # FI_STORES' ids in order
    store_name: Callable[[str], str] = str
    public_url: str | None = None
    clock: Clock = SYSTEM_CLOCK
    home: str = "live"
    _enqueued_for: date | None = field(default=None, init=False)

    def due_day(self, now: datetime) -> date | None:
        """The shop's today from the brief's hour on; None before it."""
        local = now.astimezone(self.zone)
        return local.date() if local.hour >= self.hour else None

    async def enqueue_due(self, now: datetime | None = None) -> int:
        """Enqueue today's briefs once (a tick of the notify worker's loop); how many rows were new."""
        moment = now or self.clock.now()
        day = self.due_day(moment)
        if day is None or day == self._enqueued_for:
            return 0
        added = 0
        for reader in await self.accounts.brief_readers():
            if period_of(reader, day) is None or reach_of(reader) == frozenset():
                continue
            async with self.channels[self.home].store.transaction() as conn:
                added += await outbox.enqueue(
                    conn,
                    channel=self.home,
                    feedback_id=brief_id(day, reader.account_id),
                    routes=[self.route],
                    event=outbox.BRIEF,
                    created_at=format_instant(moment),
                    due_ms=now_ms(self.clock),
                )
        self._enqueued_for = day
        if added:
            log.info("brief: %s's briefs enqueued for %d person(s)", day.isoformat(), added)
        return added

    async def message(self, route: NotifyRoute, feedback_id: str, delivery_id: str) -> EmailMessage | None:
        """The person's brief, built now for their grants; None when they no longer take it."""
        parsed = parse_brief_id(feedback_id)
        if parsed is None:
            return None
        day, account_id = parsed
        reader = next((r for r in await self.accounts.brief_readers() if r.account_id == account_id), None)
        period = None if reader is None else period_of(reader, day)
        if reader is None or period is None:
            return None
        reach = reach_of(reader)
        if reach == frozenset():
            return None
        week = brief_week(None, self.clock.now(), self.options)
        found = [
            s for channel in self.channels.values() for s in await channel.store.stores_in(week.from_norm, week.to_norm)
        ]
        ids = stores_in_reach(self.configured_stores, found, reach)
        content = await brief(self.reports, week, ids, self.store_name, chain=reach is None)
        lines = await self.case_lines(reach, reader.language)
        return BriefMail(
            delivery_id=delivery_id,
            period=period,
            day=day,
            name=reader.display_name,
            language=reader.language or self.domain.language,
            brief=content,
            cases=lines,
            open_cases=len(lines),
            public_url=self.public_url,
            zone=self.zone,
        ).email(route.mail_from or "", reader.email)

    async def case_lines(self, reach: frozenset[str] | None, language: str | None) -> list[CaseLine]:
        """The active cases of the person's stores, in the case list's order (the most serious first)."""
        wording = wording_for(language or self.domain.language)
        lines: list[CaseLine] = []
        for view in await self.cases.listed((OPEN, ACKNOWLEDGED), CASES_READ):
            store = view.item.store if view.item is not None else None
            if not reaches(reach, store):
                continue
            categories = operational_categories(view.item, self.domain) if view.item is not None else []
            lines.append(
                CaseLine(
                    ref=view.ref,
                    alerts=", ".join(wording.alert_label(c) for c in categories) or "-",
                    store=self.store_name(store) if store else None,
                    at=view.item.timestamp if view.item is not None else view.case.opened_at,
                    owner=view.case.owner_name,
                )
            )
        return lines
