"""The day's digest: payment trouble told once a day, by store, to the routes that would have taken it.

The shop's clock is a ManualClock set to Helsinki's morning; the items are stamped on the day before
(and one just before its midnight, which belongs to the day before that)."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select
from standardwebhooks import Webhook

from feedback_intelligence.devtools.receiver import Receiver
from feedback_intelligence.instants.clock import ManualClock
from feedback_intelligence.instants.timestamps import format_instant
from feedback_intelligence.notify.message import email_message, slack_body
from feedback_intelligence.records import AlertHit, StoredFeedback
from feedback_intelligence.store.audit import AuditEntry
from feedback_intelligence.store.schema import cases, outbox
from tests.notify.support import SECRET, SHOP_ZONE, alert_item, rig, routes
from tests.notify.test_delivery import wait_rows
from tests.support.people import add_user, client, csrf, desk_entry, people_settings, running_app, sign_in

# Saturday 5 December 2026, 06:59 in Helsinki (UTC+2): a minute before the digest hour.
BEFORE_HOUR = datetime(2026, 12, 5, 6, 59, tzinfo=SHOP_ZONE)


def at_shop(day: int, hour: int, minute: int = 0) -> str:
    return format_instant(datetime(2026, 12, day, hour, minute, tzinfo=SHOP_ZONE))


def payment(feedback_id: str, store: str, when: str, text: str = "Kortti veloitettiin kahdesti.") -> StoredFeedback:
    item = alert_item(feedback_id, category="payment", severity="high", store=store, text=text)
    return StoredFeedback(
        id=item.id,
        source=item.source,
        text=item.text,
        timestamp=when,
        created_at=when,
        structure=item.structure,
        alerts=(AlertHit("payment", "veloitettiin kahdesti"),),
        store=store,
    )


DUTY = {"name": "duty", "kind": "webhook", "url": "http://127.0.0.1:9/", "secret": SECRET}
TAMPERE = {"name": "tampere", "kind": "slack", "url": "http://127.0.0.1:9/t", "stores": ["S2"]}
FOOD = {"name": "food", "kind": "slack", "url": "http://127.0.0.1:9/f", "categories": ["food_safety"]}


async def save_the_day(r) -> None:
    for item in (
        payment("p1", "S1", at_shop(4, 9, 5), "Korttimaksu ei mennyt läpi kassalla 3."),
        payment("p2", "S1", at_shop(4, 12, 40)),
        payment("p3", "S1", at_shop(4, 18, 15), "Hyllyn hinta 2,49 mutta kassalla 3,19."),
        payment("p4", "S2", at_shop(4, 10, 30)),
        payment("late", "S1", at_shop(3, 23, 59)),  # Thursday, in the shop's zone: not Friday's digest
    ):
        await r.channel.insert(item)


async def test_payment_alerts_open_no_case_and_page_nobody_when_saved(tmp_path: Path) -> None:
    clock = ManualClock(BEFORE_HOUR.astimezone(UTC))
    async with rig(tmp_path, routes(DUTY, TAMPERE), clock=clock) as r:
        await save_the_day(r)
        async with r.channel.store.engine.connect() as conn:
            assert (await conn.execute(select(outbox.c.id))).all() == []
            assert (await conn.execute(select(cases.c.feedback_id))).all() == []


async def test_the_days_digest_is_enqueued_once_per_route_from_the_shops_digest_hour(tmp_path: Path) -> None:
    clock = ManualClock(BEFORE_HOUR.astimezone(UTC))
    async with rig(tmp_path, routes(DUTY, TAMPERE, FOOD), clock=clock) as r:
        await save_the_day(r)
        assert await r.digest.enqueue_due() == 0  # 06:59: not yet
        clock.advance(60)
        assert await r.digest.enqueue_due() == 2  # the food route takes no payment trouble
        assert await r.digest.enqueue_due() == 0  # this replica remembers the day
        another_replica = type(r.digest)(r.domain, {"live": r.channel}, r.intake, SHOP_ZONE, 7, clock=clock)
        assert await another_replica.enqueue_due() == 0  # the rows' keys are the day's and the route's
        async with r.channel.store.engine.connect() as conn:
            rows = (await conn.execute(select(outbox.c.dedupe_key, outbox.c.event).order_by(outbox.c.id))).all()
    assert rows == [
        ("live:digest-2026-12-04:duty:digest", "digest"),
        ("live:digest-2026-12-04:tampere:digest", "digest"),
    ]


async def test_a_day_without_digest_alerts_sends_nothing(tmp_path: Path) -> None:
    clock = ManualClock(BEFORE_HOUR.astimezone(UTC) + timedelta(hours=2))
    async with rig(tmp_path, routes(DUTY), clock=clock) as r:
        await r.channel.insert(payment("old", "S1", at_shop(2, 12)))  # two days ago: not yesterday
        assert await r.digest.enqueue_due() == 0


@pytest.fixture
def receiver() -> Receiver:
    got = Receiver().start()
    yield got
    got.hold.set()
    got.stop()


async def test_the_digest_reaches_the_webhook_with_counts_by_store_examples_and_the_list(
    tmp_path: Path, receiver: Receiver
) -> None:
    clock = ManualClock(BEFORE_HOUR.astimezone(UTC) + timedelta(minutes=1))
    configured = routes({**DUTY, "url": receiver.url}, {**TAMPERE, "url": receiver.url})
    async with rig(tmp_path, configured, clock=clock) as r:
        await save_the_day(r)
        assert await r.digest.enqueue_due() == 2
        r.worker.start()
        await asyncio.to_thread(receiver.wait_for, 2)
        await wait_rows(r, "delivered", 2)
    by_route = {got.headers["webhook-id"]: got for got in receiver.received if "webhook-signature" in got.headers}
    duty = by_route["live:digest-2026-12-04:duty:digest"]
    body = Webhook(SECRET).verify(duty.body, duty.headers)
    assert body["event"] == "digest" and body["count"] == 4
    assert body["refs"] == ["live:p1", "live:p4", "live:p2", "live:p3"]  # the day's, oldest first; not Thursday's
    assert body["caseUrl"] == "http://fi.example/?alert=payment&channel=live"
    # The Tampere route (a Slack one, unsigned here) hears of its own store's item only.
    [tampere] = [got for got in receiver.received if "webhook-signature" not in got.headers]
    assert "Päivän kooste 4.12.2026: 1 hälytystä" in tampere.body.decode()
    assert "Tampere Koskikeskus: 1" in tampere.body.decode() and "Espoo" not in tampere.body.decode()


async def test_the_digest_reads_as_a_person_would_in_a_mail(tmp_path: Path) -> None:
    clock = ManualClock(BEFORE_HOUR.astimezone(UTC) + timedelta(minutes=1))
    async with rig(tmp_path, routes(DUTY), clock=clock) as r:
        await save_the_day(r)
        await r.digest.enqueue_due()
        message = await r.digest.message(r.channel, r.worker.routes["duty"], "digest-2026-12-04", "key")
    assert message is not None
    mail = email_message(message, "fi@example.org", ("boss@example.org",))
    assert mail["Subject"] == "Päivän kooste 4.12.2026: 4 hälytystä (maksaminen)"
    text = mail.get_content()
    assert text.splitlines()[1:3] == ["Espoo Iso Omena: 3", "Tampere Koskikeskus: 1"]
    assert "klo 09.05 Espoo Iso Omena: ”Korttimaksu ei mennyt läpi kassalla 3.”" in text
    assert "Avaa lista: http://fi.example/?alert=payment&channel=live" in text
    assert "<" not in slack_body(message).decode().replace("<http://fi.example/", "")  # no markup but the link


async def test_a_digest_whose_items_were_erased_is_cancelled_not_sent(tmp_path: Path) -> None:
    clock = ManualClock(BEFORE_HOUR.astimezone(UTC) + timedelta(minutes=1))
    async with rig(tmp_path, routes(DUTY), clock=clock) as r:
        await r.channel.insert(payment("only", "S1", at_shop(4, 9)))
        assert await r.digest.enqueue_due() == 1
        erasure = AuditEntry(
            at=at_shop(5, 7),
            change_id="c",
            actor_kind="operator",
            actor_id="op",
            actor_name=None,
            action="feedback.erase",
            feedback_id="only",
        )
        assert await r.channel.store.erase("only", erasure, expected_revision=None)
        message = await r.digest.message(r.channel, r.worker.routes["duty"], "digest-2026-12-04", "key")
    assert message is None


async def test_the_running_service_sends_the_digest_when_its_hour_comes_on_its_one_clock(
    tmp_path: Path, receiver: Receiver
) -> None:
    """The wiring: the notify worker's loop enqueues the digest at the hour and delivers it, on the app's clock."""
    clock = ManualClock(datetime(2027, 2, 1, 11, 30, tzinfo=SHOP_ZONE).astimezone(UTC))
    route = [{"name": "duty", "kind": "webhook", "url": receiver.url, "unsigned": True}]
    settings = people_settings(
        tmp_path, notify_channels=json.dumps(route), notify_digest_hour=7, notify_public_url="https://fi.example"
    )
    async with running_app(settings, clock=clock) as app:
        await add_user(app, "kaisa", ("clerk", "s1"))
        async with client(app) as clerk:
            await sign_in(clerk, "kaisa")
            for n in range(3):
                entry = desk_entry(f"desk-pay-{n}", "Kortti veloitettiin kahdesti kassalla.", store="s1")
                entry["timestamp"] = f"2027-02-01T10:0{n}:00+02:00"
                assert (await clerk.post("/live/feedback", json=entry, headers=csrf(clerk))).status_code == 201
        assert receiver.received == []  # nobody paged at the save
        clock.advance(19.5 * 3600)  # Tuesday 07:00 in Helsinki: the loop's next beat enqueues and sends
        await asyncio.to_thread(receiver.wait_for, 1)
    [got] = receiver.received
    assert got.delivery_id == "live:digest-2027-02-01:duty:digest"
    body = json.loads(got.body)
    assert body["count"] == 3 and body["caseUrl"] == "https://fi.example/?alert=payment&channel=live"
