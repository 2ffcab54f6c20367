"""Several backends behind one gate, shown with the app and two sim-ollama processes over real HTTP."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import httpx
import pytest

from feedback_intelligence.api.routes.health import HealthBody
from feedback_intelligence.devtools.processes import ServerProcess, app_server, sim_ollama
from tests.support.waiting import wait_for_sync

pytestmark = pytest.mark.process  # starts real processes (tests/conftest.py)

INTERPRET = {"text": "Maito oli hapanta ja kassajono pitkä."}


def pool_env(*sims: ServerProcess, **extra: str) -> dict[str, str]:
    backends = [
        {"name": f"gpu{i + 1}", "kind": "ollama", "url": sim.url, "model": "sim-model", "slots": 2}
        for i, sim in enumerate(sims)
    ]
    return {
        "FI_LLM_BACKENDS": json.dumps(backends),
        "FI_LLM_ACQUIRE_TIMEOUT_MS": "500",
        "FI_HEALTH_CACHE_S": "0",
        **extra,
    }


def stats(sim: ServerProcess) -> dict:
    return httpx.get(sim.url + "/sim/stats", timeout=5).json()


def health(app: ServerProcess) -> httpx.Response:
    return httpx.get(app.url + "/health", timeout=30)


async def interprets(app: ServerProcess, count: int) -> list[httpx.Response]:
    async with httpx.AsyncClient(base_url=app.url, timeout=60) as http:
        return await asyncio.gather(*(http.post("/interpret", json=INTERPRET) for _ in range(count)))


@pytest.fixture()
def two_sims() -> Iterator[tuple[ServerProcess, ServerProcess]]:
    with (
        sim_ollama(parallel=2, max_queue=8, service_ms=1500) as one,
        sim_ollama(parallel=2, max_queue=8, service_ms=1500) as two,
    ):
        yield one, two


def test_two_backends_of_two_slots_admit_four_and_shed_the_fifth(two_sims) -> None:
    one, two = two_sims
    with app_server(pool_env(one, two)) as app:

        async def five() -> tuple[list[httpx.Response], httpx.Response]:
            async with httpx.AsyncClient(base_url=app.url, timeout=60) as http:
                held = [asyncio.create_task(http.post("/interpret", json=INTERPRET)) for _ in range(4)]
                await asyncio.to_thread(
                    wait_for_sync,
                    lambda: stats(one)["inFlight"] + stats(two)["inFlight"] == 4,
                    20,
                    "four calls in flight",
                )
                fifth = await http.post("/interpret", json=INTERPRET)
                return list(await asyncio.gather(*held)), fifth

        held, fifth = asyncio.run(five())
        assert [r.status_code for r in held] == [200] * 4
        assert fifth.status_code == 503 and "Retry-After" in fifth.headers
        # each backend got exactly its own slots, never more
        assert stats(one)["maxConcurrency"] == 2 and stats(two)["maxConcurrency"] == 2
        body = health(app).json()
        assert body["gate"]["slots"] == 4
        assert [row["name"] for row in body["backends"]] == ["gpu1", "gpu2"]
        assert "127.0.0.1" not in json.dumps(body)  # backends by name, never by address


def test_a_dead_backend_is_taken_out_at_once_and_returns_when_it_comes_back() -> None:
    with sim_ollama(parallel=2, service_ms=200) as one:
        two_cm = sim_ollama(parallel=2, service_ms=200)
        two = two_cm.__enter__()
        port = int(two.url.rsplit(":", 1)[1])
        try:
            with app_server(pool_env(one, two)) as app:
                assert [r.status_code for r in asyncio.run(interprets(app, 4))] == [200] * 4
                assert stats(two)["completed"] > 0  # both backends served while both were up
                two.kill()
                # The first call that lands on the dead backend fails as an LLM failure (503 for the desk,
                # never a 500); the breaker takes it out, and every later call goes to the live one.
                first = [r.status_code for r in asyncio.run(interprets(app, 2))]
                assert set(first) <= {200, 503}
                before = stats(one)
                later = asyncio.run(interprets(app, 4))
                assert [r.status_code for r in later] == [200] * 4
                assert stats(one)["completed"] - before["completed"] >= 4  # all of them on the live one
                report = health(app)
                assert report.status_code == 200
                body = report.json()
                assert body["degraded"] is True
                assert {row["name"]: row["state"] for row in body["backends"]} == {"gpu1": "ok", "gpu2": "down"}
                documented = HealthBody.model_validate(body)  # the body is the documented one, field for field
                assert documented.backends is not None and set(documented.model_fields_set) >= set(body)
                # The backend comes back on its address and is probed back in after the cool-down.
                with sim_ollama(parallel=2, service_ms=200, port=port):
                    wait_for_sync(lambda: health(app).json().get("degraded") is False, 30, "gpu2 back in the pool")
        finally:
            two_cm.__exit__(None, None, None)


def test_a_backend_three_times_slower_receives_proportionally_fewer_calls() -> None:
    from feedback_intelligence.cli.crowd import run_crowd

    with (
        sim_ollama(parallel=2, max_queue=8, service_ms=250) as fast,
        sim_ollama(parallel=2, max_queue=8, service_ms=750) as slow,
        app_server(pool_env(fast, slow)) as app,
    ):
        result = asyncio.run(run_crowd(app.url, clerks=10, duration_s=8, think_s=(0.05, 0.2), seed=7))
        assert result.other_errors == {}
        done_fast, done_slow = stats(fast)["completed"], stats(slow)["completed"]
        assert done_slow > 0
        # saturated, each backend takes calls as fast as it frees slots: about 3 : 1 (margin for a loaded machine)
        assert done_fast >= 2 * done_slow, (done_fast, done_slow)
        assert stats(fast)["maxConcurrency"] <= 2 and stats(slow)["maxConcurrency"] <= 2


def test_calls_in_flight_on_a_backend_that_dies_fail_as_llm_failures() -> None:
    with (
        sim_ollama(parallel=2, service_ms=4000) as one,
        sim_ollama(parallel=2, service_ms=4000) as two,
        app_server(pool_env(one, two)) as app,
    ):

        async def in_flight_then_kill() -> list[httpx.Response]:
            async with httpx.AsyncClient(base_url=app.url, timeout=60) as http:
                calls = [
                    asyncio.create_task(http.post("/interpret", json=INTERPRET)),
                    asyncio.create_task(http.post("/interpret", json=INTERPRET)),
                    asyncio.create_task(
                        http.post(
                            "/feedback", json={"id": "dies-1", "source": "web_form", "text": "Maito oli hapanta."}
                        )
                    ),
                    asyncio.create_task(
                        http.post(
                            "/feedback", json={"id": "dies-2", "source": "web_form", "text": "Kassajono oli pitkä."}
                        )
                    ),
                ]
                await asyncio.to_thread(wait_for_sync, lambda: stats(two)["inFlight"] == 2, 20, "two calls on gpu2")
                two.kill()
                return list(await asyncio.gather(*calls))

        responses = asyncio.run(in_flight_then_kill())
        interprets_, ingests = responses[:2], responses[2:]
        # the calls on the dead backend fail as LLM failures: the desk gets 503, ingest stores the row
        # structureFailed; the calls on the live backend finish as usual. Never a 500.
        assert sorted(r.status_code for r in interprets_) in ([200, 503], [503, 503], [200, 200])
        assert all(r.status_code == 201 for r in ingests)
        failed = [r for r in interprets_ if r.status_code == 503] + [r for r in ingests if r.json()["structureFailed"]]
        assert len(failed) == 2, [r.text for r in responses]
        body = health(app).json()
        assert body["degraded"] is True and body["status"] == "ok"


def test_a_batching_backend_with_the_adaptive_limit_raises_its_slots_and_shows_them() -> None:
    """A sim GPU that batches, marked ``batching``: from its floor of 2 the limit rises under load, never
    above the declared 16, and /health, /metrics and the sim agree on it."""
    batching = ["--batching", "--step-ms", "5", "--per-seq-ms", "0.2", "--knee-seqs", "12"]
    with sim_ollama(parallel=16, extra=batching) as sim:
        backends = [
            {"name": "vllm", "kind": "ollama", "url": sim.url, "model": "sim-model", "slots": 16, "batching": True}
        ]
        env = {
            "FI_LLM_BACKENDS": json.dumps(backends),
            "FI_LLM_ADAPTIVE_LIMIT": "true",
            "FI_LLM_ACQUIRE_TIMEOUT_MS": "500",
            "FI_HEALTH_CACHE_S": "0",
        }
        with app_server(env) as app:
            first = health(app).json()["backends"][0]
            assert first["adaptiveLimit"] is True and first["slots"] == 2

            def risen() -> bool:
                answers = asyncio.run(interprets(app, 6))
                assert {r.status_code for r in answers} <= {200, 503}
                return health(app).json()["backends"][0]["slots"] > 2

            wait_for_sync(risen, 60, "the adaptive limit rises under load")
            row = health(app).json()["backends"][0]
            assert 2 < row["slots"] <= 16 and "ms/token" in row["limitReason"]
            metrics = httpx.get(app.url + "/metrics", timeout=10).text
            assert f'fi_backend_slots{{backend="vllm"}} {float(row["slots"])}' in metrics
            assert stats(sim)["maxConcurrency"] <= 16
