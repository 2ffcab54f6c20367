"""The day's digest: alerts of the domain's digest categories told once a day, not one page each (ADR 0057).

Payment trouble (a card reader, a double charge, the till's price above the shelf's) is most of a chain's
alerts and none of them is urgent to a person on call; paged one by one they buried the safety cases.
An alert of a digest category (``digestCategories`` in the domain's ``alert-keywords.json``) opens no case
and pages nobody when it is saved (services/alert_intake.py); once the shop's clock (``FI_TIMEZONE``)
passes ``FI_NOTIFY_DIGEST_HOUR``, every route that would have taken one of the day before's such items
gets one message listing them: counts by store, a few examples, a link to the list.

The digest rides the outbox like any notification: one row per (channel, day, route), its key
``{channel}:digest-{day}:{route}:digest``, so replicas that all notice the hour enqueue it once, a
dead replica's send is resent under the same delivery id, and nothing is sent for a day without such
items. The items are read again when the row is delivered (the outbox keeps no text): an item erased
meanwhile is not in it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from feedback_intelligence.config.notify_routes import NotifyRoute
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.instants.clock import SYSTEM_CLOCK, Clock, now_ms
from feedback_intelligence.instants.timestamps import format_instant
from feedback_intelligence.notify.message import Message, render_digest
from feedback_intelligence.records import StoredFeedback
from feedback_intelligence.services.alert_intake import AlertIntake, digest_categories
from feedback_intelligence.services.channels import Channel
from feedback_intelligence.store import outbox
from feedback_intelligence.store.aggregates import ItemFilter
from feedback_intelligence.store.item_list import page_of

log = logging.getLogger(__name__)

DIGEST_PREFIX = "digest-"
MAX_ITEMS = 1000  # per channel and day: a digest is a summary; the report lists the rest


def digest_id(day: date) -> str:
    """The outbox's ``feedback_id`` of a day's digest (no item has such an id: a desk id is ``desk-<uuid>``)."""
    return f"{DIGEST_PREFIX}{day.isoformat()}"


def day_of(feedback_id: str) -> date | None:
    """The day a digest row is about; None for an item's row."""
    if not feedback_id.startswith(DIGEST_PREFIX):
        return None
    try:
        return date.fromisoformat(feedback_id.removeprefix(DIGEST_PREFIX))
    except ValueError:
        return None


@dataclass
class AlertDigest:
    domain: Domain
    channels: Mapping[str, Channel]
    intake: AlertIntake
    zone: ZoneInfo
    hour: int  # the shop's hour after which the day before's digest goes out
    store_name: Callable[[str], str] = str
    public_url: str | None = None
    clock: Clock = SYSTEM_CLOCK
    _enqueued_for: date | None = field(default=None, init=False)

    def due_day(self, now: datetime) -> date | None:
        """The day whose digest is due at ``now``: yesterday in the shop's zone, from the digest hour on."""
        local = now.astimezone(self.zone)
        return local.date() - timedelta(days=1) if local.hour >= self.hour else None

    def bounds(self, day: date) -> tuple[str, str]:
        """The day's first and last instants in the shop's zone, as the store's inclusive window."""
        start = datetime.combine(day, time(0), self.zone)
        end = datetime.combine(day + timedelta(days=1), time(0), self.zone)
        return format_instant(start), format_instant(end - timedelta(milliseconds=1))

    async def enqueue_due(self, now: datetime | None = None) -> int:
        """Enqueue the due day's digest rows once (a tick of the notify worker's loop); how many were new."""
        moment = now or self.clock.now()
        day = self.due_day(moment)
        if day is None or day == self._enqueued_for or not self.domain.digest_alert_categories:
            return 0
        added = 0
        for name, channel in self.channels.items():
            routes = sorted({route for item in await self.items(channel, day) for route in self.routes_for(item)})
            if not routes:
                continue
            async with channel.store.transaction() as conn:
                added += await outbox.enqueue(
                    conn,
                    channel=name,
                    feedback_id=digest_id(day),
                    routes=routes,
                    event=outbox.DIGEST,
                    created_at=format_instant(moment),
                    due_ms=now_ms(self.clock),
                )
        self._enqueued_for = day
        if added:
            log.info("digest: %s's digest enqueued for %d route(s)", day.isoformat(), added)
        return added

    def routes_for(self, item: StoredFeedback) -> list[str]:
        return self.intake.routes_taking(item, digest_categories(item, self.domain), escalation=False)

    async def items(self, channel: Channel, day: date) -> list[StoredFeedback]:
        """The day's items of ``channel`` with an alert of a digest category, oldest first."""
        first, last = self.bounds(day)
        found: dict[str, StoredFeedback] = {}
        for category in self.domain.digest_alert_categories:
            flt = ItemFilter(from_=first, to=last, alert=category)
            for listed in await page_of(channel.store, flt, None, MAX_ITEMS):
                found[listed.record.id] = listed.record
        return sorted(found.values(), key=lambda item: (item.timestamp, item.id))

    async def message(self, channel: Channel, route: NotifyRoute, feedback_id: str, delivery_id: str) -> Message | None:
        """The digest of the row's day for ``route``; None when nothing is left to tell (items erased)."""
        day = day_of(feedback_id)
        if day is None:
            return None
        items = [item for item in await self.items(channel, day) if route.name in self.routes_for(item)]
        if not items:
            return None
        return render_digest(
            items,
            day=day,
            delivery_id=delivery_id,
            channel=channel.name,
            domain=self.domain,
            zone=self.zone,
            store_name=self.store_name,
            public_url=self.public_url,
        )
