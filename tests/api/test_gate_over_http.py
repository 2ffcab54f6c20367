"""The foundation's promises, shown with the app and sim-ollama as real processes over real HTTP."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Iterator

import httpx
import pytest

from feedback_intelligence.devtools.processes import ServerProcess, app_server, free_port, sim_ollama
from tests.support.waiting import wait_for_sync

pytestmark = pytest.mark.process  # starts real processes (tests/conftest.py)

INTERPRET = {"text": "Maito oli hapanta ja kassajono pitkä."}


def ollama_env(sim: ServerProcess, **extra: str) -> dict[str, str]:
    return {
        "FI_LLM_BACKEND": "ollama",
        "FI_LLM_BASE_URL": sim.url,
        "FI_LLM_MODEL": "sim-model",
        "FI_LLM_SLOTS": "2",
        "FI_LLM_ACQUIRE_TIMEOUT_MS": "500",
        **extra,
    }


def sim_stats(sim: ServerProcess) -> dict:
    return httpx.get(sim.url + "/sim/stats", timeout=5).json()


def gate_in_use(app: ServerProcess) -> int:
    return httpx.get(app.url + "/admin/status", timeout=5).json()["gate"]["inUse"]


@pytest.fixture(scope="module")
def slow_stack() -> Iterator[tuple[ServerProcess, ServerProcess]]:
    """A 2-parallel sim whose calls take 1.5 s, and the app in front of it."""
    with sim_ollama(parallel=2, max_queue=8, service_ms=1500) as sim, app_server(ollama_env(sim)) as app:
        yield sim, app


@pytest.fixture(autouse=True)
def _reset(request: pytest.FixtureRequest) -> None:
    if "slow_stack" in request.fixturenames:
        sim, app = request.getfixturevalue("slow_stack")
        wait_for_sync(lambda: gate_in_use(app) == 0 and sim_stats(sim)["inFlight"] == 0, what="an idle stack")
        httpx.post(sim.url + "/sim/reset", timeout=5)


def test_two_concurrent_interprets_both_succeed_and_the_sim_ran_two_at_once(slow_stack) -> None:
    sim, app = slow_stack

    async def both() -> list[httpx.Response]:
        async with httpx.AsyncClient(base_url=app.url, timeout=30) as http:
            return await asyncio.gather(*(http.post("/interpret", json=INTERPRET) for _ in range(2)))

    responses = asyncio.run(both())
    assert [r.status_code for r in responses] == [200, 200]
    assert all(r.json()["structure"] is not None for r in responses)
    assert sim_stats(sim)["maxConcurrency"] == 2


def test_a_third_concurrent_interpret_is_shed_in_about_the_acquire_timeout(slow_stack) -> None:
    sim, app = slow_stack

    async def timed(request) -> tuple[httpx.Response, float]:
        response = await request
        return response, time.perf_counter()

    async def three() -> tuple[list[httpx.Response], float, float, float]:
        async with httpx.AsyncClient(base_url=app.url, timeout=30) as http:
            holders = [asyncio.create_task(timed(http.post("/interpret", json=INTERPRET))) for _ in range(2)]
            await asyncio.to_thread(wait_for_sync, lambda: sim_stats(sim)["inFlight"] == 2, 10, "two calls in the sim")
            started = time.perf_counter()
            third, shed_at = await timed(http.post("/interpret", json=INTERPRET))
            held = await asyncio.gather(*holders)
            return [*(r for r, _ in held), third], started, shed_at, min(at for _, at in held)

    (first, second, third), started, shed_at, first_holder_done = asyncio.run(three())
    assert (first.status_code, second.status_code) == (200, 200)
    assert third.status_code == 503
    # Not before the acquire timeout (the policy's floor), and answered while both slots were still held:
    # a queued call would have waited for a holder. No upper wall-clock bound: the machine may be loaded.
    assert shed_at - started >= 0.45
    assert shed_at < first_holder_done
    assert int(third.headers["Retry-After"]) >= 1
    assert third.json()["error"] == "busy"
    assert sim_stats(sim)["maxConcurrency"] == 2


def test_health_while_both_slots_are_held_is_ok_at_once_without_a_probe(slow_stack) -> None:
    sim, app = slow_stack

    async def scenario() -> tuple[httpx.Response, int, int, float]:
        async with httpx.AsyncClient(base_url=app.url, timeout=30) as http:
            holders = [asyncio.create_task(http.post("/interpret", json=INTERPRET)) for _ in range(2)]
            await asyncio.to_thread(wait_for_sync, lambda: sim_stats(sim)["inFlight"] == 2, 10, "two calls in the sim")
            before = sim_stats(sim)["requestsSeen"]
            started = time.perf_counter()
            health = await http.get("/health")
            elapsed = time.perf_counter() - started
            after = sim_stats(sim)["requestsSeen"]
            await asyncio.gather(*holders)
            return health, before, after, elapsed

    health, before, after, elapsed = asyncio.run(scenario())
    assert health.status_code == 200
    assert health.json()["status"] == "ok"
    assert health.json()["probe"] == "skipped_gate_saturated"
    assert after == before
    assert elapsed < 0.5


def test_idle_health_probes_with_one_real_completion(slow_stack) -> None:
    sim, app = slow_stack
    health = httpx.get(app.url + "/health", timeout=30)
    assert health.status_code == 200 and health.json()["probe"] == "completed"
    assert sim_stats(sim)["requestsSeen"] == 1


def test_a_client_that_disconnects_mid_interpret_frees_its_slot_and_cancels_the_backend_call(
    slow_stack,
) -> None:
    sim, app = slow_stack
    host, port = app.url.removeprefix("http://").split(":")
    body = b'{"text": "Leipa oli homeessa."}'
    raw = socket.create_connection((host, int(port)))
    raw.sendall(
        b"POST /interpret HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
    wait_for_sync(lambda: sim_stats(sim)["inFlight"] == 1, what="the call to reach the sim")
    assert gate_in_use(app) == 1
    raw.close()
    wait_for_sync(lambda: sim_stats(sim)["cancelled"] == 1, what="the sim to see the cancel")
    wait_for_sync(lambda: gate_in_use(app) == 0, what="the slot to be released")
    assert sim_stats(sim)["completed"] == 0


def test_backend_unreachable_health_says_llm_unavailable_every_time() -> None:
    dead = f"http://127.0.0.1:{free_port()}"
    with app_server({"FI_LLM_BACKEND": "ollama", "FI_LLM_BASE_URL": dead}) as app:
        for _ in range(3):
            health = httpx.get(app.url + "/health", timeout=30)
            assert health.status_code == 503
            assert health.json()["status"] == "llm_unavailable"
        assert gate_in_use(app) == 0


def test_cold_loading_backend_health_says_warming() -> None:
    with (
        sim_ollama(parallel=2, service_ms=100, load_ms=8000) as sim,
        app_server(ollama_env(sim, FI_HEALTH_TIMEOUT_S="1")) as app,
    ):
        health = httpx.get(app.url + "/health", timeout=30)
        assert health.status_code == 503
        assert health.json()["status"] == "warming"
        assert gate_in_use(app) == 0
