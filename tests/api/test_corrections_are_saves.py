"""A correction is a save (ADR 0041): over the real app with accounts and a real webhook receiver, an alert
a correction adds opens the item's case and enqueues and delivers its notification exactly as a save of
that text does; an alert a correction removes leaves the case open for a person, with the change in the
case's log; a correction that changes no alert starts nothing twice."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from standardwebhooks import Webhook

from feedback_intelligence.devtools.receiver import Receiver
from feedback_intelligence.instants.timestamps import format_instant
from feedback_intelligence.store.outbox import Outbox, OutboxRow
from tests.notify.support import SECRET
from tests.support.people import add_user, client, csrf, desk_entry, people_settings, running_app, sign_in

FALL = "Asiakas liukastui märällä lattialla ja löi päänsä, ambulanssi haettiin."
QUIET = "Kiitos hyvästä palvelusta, kassalla oli mukava myyjä."


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver().start()
    yield r
    r.stop()


def _settings(tmp_path: Path, receiver: Receiver) -> Any:
    route = {"name": "duty", "kind": "webhook", "url": receiver.url, "secret": SECRET}
    return people_settings(
        tmp_path,
        rate_limit="10000/60seconds",
        audience_rate_limit="10000/60seconds",
        notify_channels=[route],
        notify_poll_s=0.05,
    )


def _now() -> str:
    return format_instant(datetime.now(UTC))


async def _rows(app: FastAPI, feedback_id: str) -> list[OutboxRow]:
    return await Outbox(app.state.runtime.channels["live"].store).rows_for(feedback_id)


async def _case(http: httpx.AsyncClient, feedback_id: str) -> dict[str, Any]:
    answer = await http.get(f"/cases/live:{feedback_id}")
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def _log(case: dict[str, Any]) -> list[tuple[str, str | None, str | None, str | None, str]]:
    return [(e["action"], e["field"], e["oldValue"], e["newValue"], e["actor"]["kind"]) for e in case["audit"]]


async def test_an_alert_a_correction_adds_opens_its_case_and_notifies_as_a_save_does(
    tmp_path: Path, receiver: Receiver
) -> None:
    async with running_app(_settings(tmp_path, receiver)) as app:
        await add_user(app, "kaisa", ("clerk", "s1"))
        await add_user(app, "pia", ("manager", "s1"))
        async with client(app) as clerk, client(app) as manager:
            await sign_in(clerk, "kaisa")
            await sign_in(manager, "pia")

            async def save(feedback_id: str, text: str) -> None:
                entry = desk_entry(feedback_id, text, timestamp=_now())
                answer = await clerk.post("/live/feedback", json=entry, headers=csrf(clerk))
                assert answer.status_code == 201, answer.text

            await save("saved", FALL)  # the save: the reference
            await save("fixed", QUIET)  # no alert: no case, nothing to send
            assert (await manager.get("/cases/live:fixed")).status_code == 404
            assert await _rows(app, "fixed") == []

            # the clerk corrects their own entry: the customer did say they fell
            corrected = await clerk.patch("/live/feedback/fixed", json={"text": FALL}, headers=csrf(clerk))
            assert corrected.status_code == 200, corrected.text
            assert {a["category"] for a in corrected.json()["alerts"]} == {"injury_safety"}

            # the case, opened by the intake as a save's is, now (not at the entry's saving)
            saved_case, fixed_case = await _case(manager, "saved"), await _case(manager, "fixed")
            assert fixed_case["state"] == saved_case["state"] == "open"
            assert fixed_case["item"]["alertCategories"] == saved_case["item"]["alertCategories"] == ["injury_safety"]
            assert fixed_case["openedAt"] > saved_case["openedAt"]
            assert _log(saved_case) == [("case.open", None, None, "open", "system")]
            assert _log(fixed_case) == [
                ("item.correct", "text", None, None, "account"),
                ("item.correct", "alerts", None, "injury_safety", "account"),
                ("case.open", None, None, "open", "system"),
            ]

            # the notification: the same route and event as the save's, delivered to the real receiver
            await asyncio.to_thread(receiver.wait_for, 2)
            # each as a Standard Webhooks receiver reads it: signed with the route's secret
            deliveries = {key: Webhook(SECRET).verify(got.body, got.headers) for key, got in receiver.processed.items()}
            assert set(deliveries) == {"live:saved:duty:alert", "live:fixed:duty:alert"}
            saved_rows, fixed_rows = await _rows(app, "saved"), await _rows(app, "fixed")
            assert (
                [(r.event, r.route) for r in fixed_rows]
                == [(r.event, r.route) for r in saved_rows]
                == [("alert", "duty")]
            )
            assert fixed_rows[0].created_at >= fixed_case["openedAt"]  # enqueued with the correction, not before
            for feedback_id in ("saved", "fixed"):
                body = deliveries[f"live:{feedback_id}:duty:alert"]
                assert body["event"] == "alert" and body["feedbackId"] == feedback_id
                assert body["alertCategories"] == ["injury_safety"]

            # a correction that changes no alert starts nothing twice: no second case row, no second send
            retitled = await manager.patch(
                "/live/feedback/fixed", json={"theme": "liukas lattia"}, headers=csrf(manager)
            )
            assert retitled.status_code == 200, retitled.text
            assert len(await _rows(app, "fixed")) == 1
            assert [e[0] for e in _log(await _case(manager, "fixed"))].count("case.open") == 1


async def test_an_alert_a_correction_removes_leaves_the_case_open_with_the_change_in_its_log(
    tmp_path: Path, receiver: Receiver
) -> None:
    async with running_app(_settings(tmp_path, receiver)) as app:
        await add_user(app, "pia", ("manager", "s1"))
        async with client(app) as manager:
            await sign_in(manager, "pia")
            entry = desk_entry("fall", FALL, timestamp=_now(), store="s1")
            assert (await manager.post("/live/feedback", json=entry, headers=csrf(manager))).status_code == 201
            await asyncio.to_thread(receiver.wait_for, 1)
            before = await _case(manager, "fall")

            # the customer slipped on nothing after all: the text is corrected and no longer alerts
            corrected = await manager.patch("/live/feedback/fall", json={"text": QUIET}, headers=csrf(manager))
            assert corrected.status_code == 200 and corrected.json()["alerts"] == []

            after = await _case(manager, "fall")
            assert after["state"] == "open" and after["closedAt"] is None  # a person closes it
            assert after["revision"] == before["revision"]
            assert after["item"]["alertCategories"] == []
            assert _log(after)[-1] == ("item.correct", "alerts", "injury_safety", None, "account")
            assert "liukastui" not in str(after["audit"])  # the log holds categories, never the words
            assert [(r.event, r.route) for r in await _rows(app, "fall")] == [("alert", "duty")]  # nothing new
            assert list(receiver.processed) == ["live:fall:duty:alert"]

            closed = await manager.post(
                "/cases/live:fall/actions",
                json={"action": "dismiss", "reason": "Korjattu: ei tapaturmaa."},
                headers=csrf(manager),
            )
            assert closed.status_code == 200 and closed.json()["state"] == "dismissed"


async def test_an_alert_moved_to_another_store_is_told_to_that_stores_channel_once(
    tmp_path: Path, receiver: Receiver
) -> None:
    per_store = [
        {"name": f"duty-{store}", "kind": "webhook", "url": receiver.url, "stores": [store], "secret": SECRET}
        for store in ("s1", "s2")
    ]
    settings = people_settings(
        tmp_path,
        rate_limit="10000/60seconds",
        audience_rate_limit="10000/60seconds",
        notify_channels=per_store,
        notify_poll_s=0.05,
    )
    async with running_app(settings) as app:
        await add_user(app, "ceo", ("manager", "*"))
        async with client(app) as chain:
            await sign_in(chain, "ceo")
            entry = desk_entry("moved", FALL, timestamp=_now(), store="s1")
            assert (await chain.post("/live/feedback", json=entry, headers=csrf(chain))).status_code == 201
            moved = await chain.patch("/live/feedback/moved", json={"store": "s2"}, headers=csrf(chain))
            assert moved.status_code == 200 and moved.json()["store"] == "s2"
            # a save for s2 would have told s2's channel: the move does; s1's was told at the save, not again
            assert [r.route for r in await _rows(app, "moved")] == ["duty-s1", "duty-s2"]
            await asyncio.to_thread(receiver.wait_for, 2)
            assert sorted(receiver.processed) == ["live:moved:duty-s1:alert", "live:moved:duty-s2:alert"]
            assert [e[0] for e in _log(await _case(chain, "moved"))].count("case.open") == 1
