"""Structure later across replicas: two app processes on one PostgreSQL drain one backlog, and each
row is structured exactly once (one model call, one write)."""

from __future__ import annotations

import httpx
import pytest

from feedback_intelligence.devtools.processes import sim_ollama
from tests.scale.conftest import replica_env, replicas, sim_stats, unique_gate_name
from tests.support.waiting import wait_for_sync
from tests.workers.test_structure_later import TEXT, later, metric

pytestmark = pytest.mark.process  # starts real processes (tests/conftest.py)


@pytest.mark.postgres
def test_two_replicas_on_one_postgresql_structure_every_row_exactly_once(pg_databases) -> None:
    with sim_ollama(parallel=2, max_queue=8, service_ms=60) as sim:
        env = replica_env(
            sim, pg_databases, gate_name=unique_gate_name(), FI_LLM_BACKGROUND_RESERVE="0", FI_STRUCTURE_POLL_S="0.2"
        )
        with replicas(2, env) as (first, second):
            ids = [f"x-{i:02d}" for i in range(24)]
            for n, feedback_id in enumerate(ids):
                app = first if n % 2 else second
                saved = httpx.post(app.url + "/live/feedback", json=later(feedback_id, f"{TEXT} {n}"), timeout=10)
                assert saved.status_code == 202

            def settled() -> bool:
                rows = httpx.get(first.url + "/live/feedback", params={"limit": 100}, timeout=10).json()
                return len(rows) == len(ids) and not any(r["pending"] for r in rows)

            wait_for_sync(settled, timeout_s=120, what="both replicas to drain the backlog")
            structured = [metric(app, "fi_structure_later_total", outcome="structured") for app in (first, second)]
            lost = [metric(app, "fi_structure_later_total", outcome="lost") for app in (first, second)]
            assert sum(structured) == len(ids) and sum(lost) == 0
            assert sim_stats(sim)["completed"] == len(ids)  # one model call per row: nobody structured twice
