"""A replica SIGKILLed mid-delivery: another one delivers what it held, with the same delivery id, so
the receiver (which dedupes by delivery id, ADR 0024 section 4) processes every notification once."""

from __future__ import annotations

import json

import httpx
import pytest
from standardwebhooks import Webhook

from feedback_intelligence.devtools.processes import app_server, sim_ollama
from feedback_intelligence.devtools.receiver import Receiver
from tests.notify.support import SECRET
from tests.scale.conftest import desk_entry, replica_env, unique_gate_name
from tests.support.waiting import wait_for_sync

pytestmark = [pytest.mark.process, pytest.mark.redis, pytest.mark.postgres]

ALERT_TEXT = "Asiakas liukastui märällä lattialla ja loukkaantui, ensiapu tuli paikalle."


def outbox_of(app) -> dict:
    return httpx.get(app.url + "/admin/status", timeout=10).json()["notify"]["outbox"]["live"]


def test_a_replica_killed_mid_delivery_loses_none_and_the_receiver_processes_each_once(pg_databases) -> None:
    receiver = Receiver().start()
    receiver.hold.clear()  # the first sends stay in flight until the replica holding them is dead
    channels = json.dumps([{"name": "duty", "kind": "webhook", "url": receiver.url, "secret": SECRET}])
    try:
        with sim_ollama(parallel=2, service_ms=20) as sim:
            env = replica_env(
                sim,
                pg_databases,
                gate_name=unique_gate_name(),
                FI_NOTIFY_CHANNELS=channels,
                FI_NOTIFY_LEASE_S="3",
                FI_NOTIFY_POLL_S="0.2",
                FI_NOTIFY_RETRY_S="0.2",
                FI_NOTIFY_TIMEOUT_S="30",
            )
            ids = [f"kill-{n}" for n in range(6)]
            with app_server(env) as first:
                for feedback_id in ids:
                    saved = httpx.post(
                        first.url + "/live/feedback", json=desk_entry(feedback_id, ALERT_TEXT), timeout=10
                    )
                    assert saved.status_code == 201, saved.text
                receiver.wait_for(2, 30, distinct=False)  # two sends (the worker's two tasks) in flight
                in_flight = {got.delivery_id for got in receiver.received}
                first.kill()  # SIGKILL: no release, no goodbye
            receiver.hold.set()
            with app_server(env) as second:  # takes the rows over once the dead replica's leases lapse
                receiver.wait_for(len(ids), 60)
                wait_for_sync(lambda: outbox_of(second)["delivered"] == len(ids), 30, "every row delivered")
                assert outbox_of(second)["pending"] == 0 and outbox_of(second)["failed"] == 0
    finally:
        receiver.hold.set()
        receiver.stop()
    assert sorted(receiver.processed) == sorted(f"live:{i}:duty:alert" for i in ids)  # none lost
    sent = [got.delivery_id for got in receiver.received]
    repeated = {d for d in sent if sent.count(d) > 1}
    assert repeated <= in_flight  # only what was in flight at the kill came again, with its own id
    assert all(sent.count(d) <= 2 for d in sent)
    for got in receiver.received:  # a resend is signed afresh, under the same webhook-id
        body = Webhook(SECRET).verify(got.body, got.headers)
        assert body["deliveryId"] == got.headers["webhook-id"] == got.delivery_id
