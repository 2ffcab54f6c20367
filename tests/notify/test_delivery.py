"""The outbox against a real HTTP receiver: written with the save, delivered once, signed, retried.

The generic webhook's receiver here is what the operations guide tells people to write: the
``standardwebhooks`` package's ``Webhook(secret).verify(body, headers)`` on the raw body."""

from __future__ import annotations

import asyncio
import json
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select
from standardwebhooks import Webhook, WebhookVerificationError

from feedback_intelligence.devtools.receiver import Receiver
from feedback_intelligence.instants.clock import ManualClock
from feedback_intelligence.store.schema import cases, outbox
from tests.notify.support import FAST, SECRET, alert_item, rig, routes, with_routes


@pytest.fixture
def receiver() -> Receiver:
    r = Receiver().start()
    yield r
    r.hold.set()
    r.stop()


async def wait_rows(r, state: str, count: int, timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        async with r.channel.store.engine.connect() as conn:
            states = (await conn.execute(select(outbox.c.state))).scalars().all()
        if states.count(state) >= count:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"outbox states {states}, wanted {count} {state}")


async def deliver_one(tmp_path: Path, receiver: Receiver, feedback_id: str = "desk-1"):
    configured = routes({"name": "duty", "kind": "webhook", "url": receiver.url, "secret": SECRET})
    async with rig(tmp_path, configured) as r:
        await r.channel.insert(alert_item(feedback_id))
        r.worker.start()
        await asyncio.to_thread(receiver.wait_for, 1)
        await wait_rows(r, "delivered", 1)
    [got] = receiver.received
    return got


async def test_a_saved_alert_reaches_the_webhook_once_and_its_signature_verifies(
    tmp_path: Path, receiver: Receiver
) -> None:
    got = await deliver_one(tmp_path, receiver)
    body = Webhook(SECRET).verify(got.body, got.headers)  # the Standard Webhooks receiver's whole check
    assert got.headers["webhook-id"] == "live:desk-1:duty:alert"  # the outbox row's key: stable across retries
    assert body["feedbackId"] == "desk-1" and body["channel"] == "live" and body["alertCategories"] == ["food_safety"]
    assert body["deliveryId"] == got.delivery_id == "live:desk-1:duty:alert"
    assert body["caseUrl"] == "http://fi.example/#case=live:desk-1"
    assert body["store"] == "S1" and "vatsataudin" in body["excerpt"]
    assert "source" not in body and "author" not in body  # no more personal data than the message needs


async def test_the_receiver_refuses_the_delivery_replayed_late_and_refuses_a_tampered_body(
    tmp_path: Path, receiver: Receiver
) -> None:
    got = await deliver_one(tmp_path, receiver)
    hook = Webhook(SECRET)
    hook.verify(got.body, got.headers)
    # The same delivery as it was signed just past the maximum age: what a replay of a captured one is
    # (nobody without the secret can sign it afresh). The library's maximum age is 5 minutes.
    late = datetime.now(UTC) - timedelta(minutes=5, seconds=2)
    replayed = {
        **got.headers,
        "webhook-timestamp": str(int(late.timestamp())),
        "webhook-signature": hook.sign(got.headers["webhook-id"], late, got.body),
    }
    with pytest.raises(WebhookVerificationError, match="too old"):
        hook.verify(got.body, replayed)
    with pytest.raises(WebhookVerificationError):  # the captured signature under an earlier timestamp
        hook.verify(got.body, {**got.headers, "webhook-timestamp": replayed["webhook-timestamp"]})
    tampered = got.body.replace(b'"store":"S1"', b'"store":"S2"')
    assert tampered != got.body
    with pytest.raises(WebhookVerificationError, match="No matching signature"):
        hook.verify(tampered, got.headers)
    with pytest.raises(WebhookVerificationError, match="No matching signature"):  # another route's secret
        Webhook("whsec_" + "b" * 44).verify(got.body, got.headers)


async def test_routing_by_category_severity_store_and_age(tmp_path: Path) -> None:
    configured = routes(
        {"name": "all", "kind": "webhook", "url": "http://127.0.0.1:9/a", "unsigned": True},
        {"name": "food", "kind": "slack", "url": "http://127.0.0.1:9/b", "categories": ["food_safety"]},
        {"name": "bad", "kind": "teams", "url": "http://127.0.0.1:9/c", "minSeverity": "critical"},
        {"name": "s2", "kind": "webhook", "url": "http://127.0.0.1:9/d", "stores": ["S2"], "secret": SECRET},
        {"name": "boss", "kind": "slack", "url": "http://127.0.0.1:9/e", "escalation": True},
    )
    async with rig(tmp_path, configured) as r:
        assert r.intake.routes_for(alert_item("x"), escalation=False) == ["all", "food", "bad"]
        high_injury = alert_item("y", category="injury_safety", severity="high", store="S2")
        assert r.intake.routes_for(high_injury, escalation=False) == ["all", "s2"]
        assert r.intake.routes_for(alert_item("z"), escalation=True) == ["boss"]
        # payment trouble pages nobody: it waits for the day's digest, which these routes would take
        high_payment = alert_item("p", category="payment", severity="high", store="S2")
        assert r.intake.routes_for(high_payment, escalation=False) == []
        assert r.digest.routes_for(high_payment) == ["all", "s2"]
        await r.channel.insert(alert_item("old", age_days=30))  # a history import pages nobody
        await r.channel.insert(alert_item("slur", category="rasismi"))  # moderation, not an operational alert
        await r.channel.insert(high_payment)
        await r.channel.insert(alert_item("new"))
        async with r.channel.store.engine.connect() as conn:
            rows = (await conn.execute(select(outbox.c.feedback_id, outbox.c.route))).all()
            opened = (await conn.execute(select(cases.c.feedback_id))).scalars().all()
    assert sorted(rows) == [("new", "all"), ("new", "bad"), ("new", "food")]
    assert opened == ["new"]  # a case for the paging alert only


async def test_the_same_item_and_route_is_enqueued_once(tmp_path: Path) -> None:
    configured = routes({"name": "duty", "kind": "webhook", "url": "http://127.0.0.1:9/", "secret": SECRET})
    async with rig(tmp_path, configured) as r:
        item = alert_item("twice")
        await r.channel.insert(item)
        async with r.channel.store.engine.begin() as conn:  # a correction re-matching the same hit
            await r.intake.started(conn, "live", [item])
        async with r.channel.store.engine.connect() as conn:
            keys = (await conn.execute(select(outbox.c.dedupe_key))).scalars().all()
    assert keys == ["live:twice:duty:alert"]


async def _delivered(r) -> int:
    async with r.channel.store.engine.connect() as conn:
        states = (await conn.execute(select(outbox.c.state))).scalars().all()
    return states.count("delivered")


async def test_the_receiver_down_for_a_minute_then_up_gets_each_notification_exactly_once(
    tmp_path: Path, receiver: Receiver
) -> None:
    receiver.stop()  # down before the saves
    configured = routes({"name": "duty", "kind": "webhook", "url": receiver.url, "secret": SECRET})
    patient = FAST.model_copy(
        update={"retry_base_s": 1, "retry_max_s": 8, "max_attempts": 20}
    )  # the bound outlasts the minute
    clock = ManualClock(datetime.now(UTC))  # the worker's pauses and the rows' due times: a minute in no time
    async with rig(tmp_path, configured, patient, clock=clock) as r:
        for n in range(5):
            await r.channel.insert(alert_item(f"down-{n}"))
        r.worker.start()
        for _ in range(60):  # a minute, a second at a time: every retry that falls due is tried, and fails
            await clock.sleepers(patient.tasks)
            clock.advance(1)
        await clock.sleepers(patient.tasks)
        assert receiver.received == []
        receiver.start()
        for _ in range(60):  # time goes on until every row's next retry has come and been delivered
            if await _delivered(r) == 5:
                break
            await clock.sleepers(patient.tasks)
            clock.advance(1)
        await asyncio.to_thread(receiver.wait_for, 5, 30)
        await wait_rows(r, "delivered", 5)
    ids = [got.delivery_id for got in receiver.received]
    assert sorted(ids) == sorted(f"live:down-{n}:duty:alert" for n in range(5))  # each once, none twice


async def test_a_refusing_receiver_fails_at_once_and_a_failing_one_after_the_bound(tmp_path: Path) -> None:
    refusing, failing = Receiver(status=404).start(), Receiver(status=503).start()
    try:
        configured = routes(
            {"name": "wrong", "kind": "webhook", "url": refusing.url, "secret": SECRET},
            {"name": "flaky", "kind": "webhook", "url": failing.url, "secret": SECRET},
        )
        # every retry after the shortest pause: the bound is on attempts, and FAST's growing pauses
        # would add ~2 s of waiting to reach it
        async with rig(tmp_path, configured, FAST.model_copy(update={"retry_max_s": FAST.retry_base_s})) as r:
            await r.channel.insert(alert_item("f-1"))
            r.worker.start()
            await wait_rows(r, "failed", 2)
            async with r.channel.store.engine.connect() as conn:
                rows = dict((await conn.execute(select(outbox.c.route, outbox.c.attempts))).all())
        assert rows == {"wrong": 1, "flaky": r.worker.options.max_attempts}
        assert len(refusing.received) == 1 and len(failing.received) == r.worker.options.max_attempts
        # every retry is the same delivery to the receiver (one id to dedupe on), each signed afresh
        assert {got.headers["webhook-id"] for got in failing.received} == {"live:f-1:flaky:alert"}
        for got in failing.received:
            Webhook(SECRET).verify(got.body, got.headers)
    finally:
        refusing.stop()
        failing.stop()


async def test_a_route_that_left_the_configuration_is_cancelled(tmp_path: Path, receiver: Receiver) -> None:
    configured = routes({"name": "gone", "kind": "webhook", "url": receiver.url, "secret": SECRET})
    async with rig(tmp_path, configured) as r:
        await r.channel.insert(alert_item("c-1"))
        worker = with_routes(r, [])
        worker.start()
        try:
            await wait_rows(r, "cancelled", 1)
        finally:
            await worker.stop()
    assert receiver.received == []


async def test_slack_and_teams_get_their_incoming_webhook_bodies(tmp_path: Path, receiver: Receiver) -> None:
    configured = routes(
        {"name": "slack", "kind": "slack", "url": receiver.url + "/slack"},
        {"name": "teams", "kind": "teams", "url": receiver.url + "/teams"},
    )
    async with rig(tmp_path, configured) as r:
        await r.channel.insert(alert_item("chat-1"))
        r.worker.start()
        await asyncio.to_thread(receiver.wait_for, 2)
    bodies = {got.path: got.json() for got in receiver.received}
    slack, teams = bodies["/hook/slack"], bodies["/hook/teams"]
    assert "ruokaturvallisuus" in slack["text"]  # what the notification shows
    assert slack["blocks"][0]["type"] == "section"
    assert "<http://fi.example/#case=live:chat-1|Avaa tapaus>" in slack["blocks"][0]["text"]["text"]
    card = teams["attachments"][0]
    assert card["contentType"] == "application/vnd.microsoft.card.adaptive"
    assert card["content"]["actions"][0]["url"] == "http://fi.example/#case=live:chat-1"
    assert json.dumps(teams, ensure_ascii=False).count("vatsataudin") == 1


async def test_a_route_configured_unsigned_gets_the_id_and_timestamp_and_no_signature(
    tmp_path: Path, receiver: Receiver
) -> None:
    configured = routes({"name": "open", "kind": "webhook", "url": receiver.url, "unsigned": True})
    async with rig(tmp_path, configured) as r:
        await r.channel.insert(alert_item("u-1"))
        r.worker.start()
        await asyncio.to_thread(receiver.wait_for, 1)
    [got] = receiver.received
    assert got.headers["webhook-id"] == got.delivery_id == "live:u-1:open:alert"
    assert abs(int(got.headers["webhook-timestamp"]) - time.time()) < 60
    assert "webhook-signature" not in got.headers
