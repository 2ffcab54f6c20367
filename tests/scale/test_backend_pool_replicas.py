"""Three replicas on one Redis in front of two backends: no backend is ever sent more than its slots."""

from __future__ import annotations

import asyncio
import json

import pytest

from feedback_intelligence.cli.crowd import CrowdResult, run_crowd
from feedback_intelligence.devtools.databases import postgres_pair
from feedback_intelligence.devtools.processes import sim_ollama
from tests.scale.conftest import gate_status, replica_env, replicas, sim_stats, unique_gate_name
from tests.support.waiting import wait_for_sync

pytestmark = [pytest.mark.process, pytest.mark.redis, pytest.mark.postgres]

SERVICE_MS = 300


def test_three_replicas_never_send_either_backend_more_than_its_two_slots() -> None:
    with (
        postgres_pair() as databases,
        sim_ollama(parallel=2, max_queue=8, service_ms=SERVICE_MS) as one,
        sim_ollama(parallel=2, max_queue=8, service_ms=SERVICE_MS) as two,
    ):
        backends = [
            {"name": name, "kind": "ollama", "url": sim.url, "model": "sim-model", "slots": 2}
            for name, sim in (("gpu1", one), ("gpu2", two))
        ]
        env = replica_env(one, databases, gate_name=unique_gate_name(), FI_LLM_BACKENDS=json.dumps(backends))
        with replicas(3, env) as apps:

            async def crowds() -> list[CrowdResult]:
                return await asyncio.gather(
                    *(
                        run_crowd(app.url, clerks=12, duration_s=8, think_s=(0.1, 0.6), seed=i)
                        for i, app in enumerate(apps)
                    )
                )

            results = asyncio.run(crowds())
            for result in results:
                assert result.other_errors == {}
                assert result.admitted_latencies_ms and result.shed_latencies_ms
            for sim in (one, two):
                stats = sim_stats(sim)
                # each backend ran exactly its own slots at the peak, and nothing queued inside it
                assert stats["maxConcurrency"] == 2, stats
                assert stats["maxWaitMs"] < 100, f"calls queued inside a backend: {stats}"
                assert stats["rejectedBusy"] == 0
            assert gate_status(apps[0])["slots"] == 4
            wait_for_sync(lambda: all(gate_status(app)["inUse"] == 0 for app in apps), what="every lease released")
