"""What a replica does when a shared dependency goes away, and that it recovers by itself.

Redis (the gate's store) is a private redis-server on a free port, stopped and started again here;
PostgreSQL is the shared local server behind a TCP proxy that this test cuts (stopping the server
itself would break every other test using it).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from feedback_intelligence.devtools.processes import ServerProcess, app_server, sim_ollama
from tests.scale.conftest import INTERPRET, PrivateRedis, desk_entry, replica_env, sim_stats, unique_gate_name
from tests.support.tcp_proxy import TcpProxy
from tests.support.waiting import wait_for_sync

pytestmark = [pytest.mark.process, pytest.mark.redis, pytest.mark.postgres]


def metric(app: ServerProcess, name: str) -> float | None:
    text = httpx.get(app.url + "/metrics", timeout=10).text
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name:
                return sample.value
    return None


def live_ids(app: ServerProcess) -> list[str]:
    response = httpx.get(app.url + "/live/feedback", timeout=10)
    assert response.status_code == 200, response.text
    return sorted(row["id"] for row in response.json())


@pytest.fixture
def sim() -> Iterator[ServerProcess]:
    with sim_ollama(parallel=2, max_queue=8, service_ms=200) as server:
        yield server


def test_redis_down_sheds_every_llm_call_says_why_and_recovers(
    sim: ServerProcess, pg_databases: tuple[str, str], private_redis: PrivateRedis
) -> None:
    env = replica_env(sim, pg_databases, redis_url=private_redis.url, gate_name=unique_gate_name())
    with app_server(env) as app:
        for i in range(3):
            assert httpx.post(app.url + "/live/feedback", json=desk_entry(f"before-{i}"), timeout=10).status_code == 201
        assert httpx.post(app.url + "/interpret", json=INTERPRET, timeout=30).status_code == 200
        seen_before = sim_stats(sim)["requestsSeen"]

        private_redis.stop()

        async def burst() -> tuple[list[httpx.Response], float]:
            async with httpx.AsyncClient(base_url=app.url, timeout=30) as http:
                started = time.perf_counter()
                answers = await asyncio.gather(*(http.post("/interpret", json=INTERPRET) for _ in range(6)))
                return answers, time.perf_counter() - started

        answers, elapsed = asyncio.run(burst())
        assert [a.status_code for a in answers] == [503] * 6
        assert all(a.json()["error"] == "busy" and a.json()["reason"] == "gate_unavailable" for a in answers)
        assert all(int(a.headers["Retry-After"]) >= 1 for a in answers)
        assert elapsed < 3, "a gate that cannot be consulted must shed fast, not hang"
        assert sim_stats(sim)["requestsSeen"] == seen_before, "nothing may reach the backend unguarded"

        health = httpx.get(app.url + "/health", timeout=30)
        assert health.status_code == 503
        body = health.json()
        assert (body["status"], body["probe"]) == ("llm_unavailable", "gate_unavailable")
        assert "gate store" in body["detail"]
        assert f":{private_redis.port}" not in health.text, "the public body names no internal address"
        assert body["gate"]["healthy"] is False
        assert metric(app, "fi_gate_store_up") == 0  # /metrics still answers

        # what never needs the LLM keeps working: lists, the version, a desk save with a structure
        assert live_ids(app) == ["before-0", "before-1", "before-2"]
        assert httpx.post(app.url + "/live/feedback", json=desk_entry("during"), timeout=10).status_code == 201

        private_redis.start()
        wait_for_sync(
            lambda: httpx.post(app.url + "/interpret", json=INTERPRET, timeout=30).status_code == 200,
            timeout_s=10,
            what="interpret to be admitted again",
        )
        assert httpx.get(app.url + "/health", timeout=30).status_code == 200
        assert metric(app, "fi_gate_store_up") == 1
        assert live_ids(app) == ["before-0", "before-1", "before-2", "during"]


def test_postgresql_down_answers_503_store_unavailable_loses_nothing_and_recovers(
    sim: ServerProcess, pg_databases: tuple[str, str]
) -> None:
    proxy = TcpProxy("127.0.0.1", 5432)
    proxy.start()
    through_proxy = tuple(url.replace("127.0.0.1:5432", f"127.0.0.1:{proxy.port}") for url in pg_databases)
    try:
        env = replica_env(sim, through_proxy, gate_name=unique_gate_name())  # type: ignore[arg-type]
        with app_server(env) as app:
            assert httpx.post(app.url + "/live/feedback", json=desk_entry("kept"), timeout=10).status_code == 201

            proxy.cut()
            for method, path, body in [
                ("GET", "/live/version", None),
                ("GET", "/live/feedback", None),
                ("GET", "/live/report", None),
                ("POST", "/live/feedback", desk_entry("lost-in-transit")),
                ("POST", "/feedback", desk_entry("c1")),
            ]:
                answer = httpx.request(method, app.url + path, json=body, timeout=30)
                assert answer.status_code == 503, f"{method} {path}: {answer.status_code} {answer.text}"
                assert answer.json()["error"] == "store_unavailable" and answer.headers["Retry-After"]
            # the gate and the LLM do not need the database
            assert httpx.post(app.url + "/interpret", json=INTERPRET, timeout=30).status_code == 200
            status = httpx.get(app.url + "/admin/status", timeout=10).json()
            assert status["channels"]["live"]["healthy"] is False

            proxy.start()
            wait_for_sync(
                lambda: httpx.get(app.url + "/live/version", timeout=10).status_code == 200,
                timeout_s=10,
                what="the store to answer again",
            )
            assert live_ids(app) == ["kept"]  # the refused save stored nothing, the earlier one survived
            retried = httpx.post(app.url + "/live/feedback", json=desk_entry("lost-in-transit"), timeout=10)
            assert retried.status_code == 201  # the client's retry with the same id
            assert live_ids(app) == ["kept", "lost-in-transit"]
    finally:
        proxy.close()
