"""Background yields to a clerk across replicas (ADR 0017), as real processes over real HTTP: an operator's
restructure holds the only slot on replica X; a clerk's interpretation on replica Y preempts it through
Redis, the sim sees X's request cancelled, and the row the restructure was working on is left as it was
for the next pass."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from feedback_intelligence.devtools.processes import ServerProcess, sim_ollama
from tests.scale.conftest import (
    ACCEPTED,
    INTERPRET,
    gate_status,
    replica_env,
    replicas,
    sim_stats,
    unique_gate_name,
)
from tests.support.waiting import wait_for_sync

pytestmark = [pytest.mark.process, pytest.mark.redis, pytest.mark.postgres]

SERVICE_MS = 3000  # the clerk's call outlasts the restructure's second try at the gate


def preemptions(app: ServerProcess, route: str) -> float:
    text = httpx.get(app.url + "/metrics", timeout=5).text
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "fi_gate_preemptions_total" and sample.labels.get("route") == route:
                return sample.value
    return 0.0


def test_a_clerk_on_one_replica_preempts_a_restructure_running_on_another(pg_databases: tuple[str, str]) -> None:
    with sim_ollama(parallel=1, max_queue=8, service_ms=SERVICE_MS) as sim:
        env = replica_env(
            sim,
            pg_databases,
            gate_name=unique_gate_name(),
            FI_LLM_SLOTS="1",
            FI_LLM_BACKGROUND_RESERVE="0",  # so the restructure may take the only slot
            FI_STRUCTURE_WORKER="false",
            # Room for the preemption's round trip on a loaded machine (X polls for marks, cancels, releases);
            # still short of SERVICE_MS, so without the preemption the clerk is shed and the test fails.
            FI_LLM_ACQUIRE_TIMEOUT_MS="2000",
        )
        with replicas(2, env) as (x, y), ThreadPoolExecutor(1) as pool:
            entry = {"id": "needs-a-pass", "source": "desk", "text": "Tänään kävi niin kuin kävi."}
            saved = httpx.post(
                x.url + "/live/feedback", json={**entry, "acceptedStructure": {**ACCEPTED, "category": "muu"}}
            )
            assert saved.status_code == 201
            restructure = pool.submit(httpx.post, x.url + "/live/restructure", timeout=60)
            wait_for_sync(lambda: sim_stats(sim)["inFlight"] == 1, what="the restructure's call to reach the sim")

            clerk = httpx.post(y.url + "/interpret", json=INTERPRET, timeout=60)

            assert clerk.status_code == 200  # admitted on Y although X's background call held the slot
            interrupted = restructure.result()
            # X asked again for the same row; the clerk's call still held the slot, so the pass stopped.
            assert interrupted.status_code == 503 and interrupted.json()["restructured"] == 0
            assert interrupted.json()["failed"] == 0
            stats = sim_stats(sim)
            assert stats["cancelled"] == 1 and stats["completed"] == 1
            assert preemptions(x, "restructure") == 1 and preemptions(y, "restructure") == 0
            row = httpx.get(x.url + "/live/feedback/needs-a-pass", timeout=5).json()
            assert row["structure"]["category"] == "muu" and not row["structureFailed"]  # left for the next pass
            wait_for_sync(lambda: gate_status(x)["inUse"] == 0 and gate_status(y)["inUse"] == 0, what="no slot held")
