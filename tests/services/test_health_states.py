"""Health (ADR 0012): a stalled backend, single-flight probes, Ollama tags and failed probes."""

from __future__ import annotations

import asyncio
import json
import time

import httpx
import pytest

from feedback_intelligence.gate.fairness import ServiceLedger
from feedback_intelligence.gate.gate import LlmGate
from feedback_intelligence.gate.local import LocalSlotPool
from feedback_intelligence.gate.pooled import PooledSlotPool
from feedback_intelligence.gate.router import BackendRouter
from feedback_intelligence.gate.slots import Grant, Priority
from feedback_intelligence.instants.clock import ManualClock
from feedback_intelligence.llm.backend import CompletionRequest, Readiness
from feedback_intelligence.llm.errors import LlmFailure
from feedback_intelligence.llm.ollama import OllamaBackend, canonical_model_name
from feedback_intelligence.llm.testing import FakeBackend
from feedback_intelligence.metrics import Metrics
from feedback_intelligence.services.health import HealthService
from tests.support.calls import call
from tests.support.redis import REDIS_URL
from tests.support.waiting import wait_for

REQUEST = CompletionRequest([], max_tokens=1)


def stack(
    *, floor_s: float, call_timeout_s: float = 120.0, clock: ManualClock | None = None
) -> tuple[LlmGate, FakeBackend, HealthService]:
    """A two-slot gate, a fake backend and the health service over them, all on ``clock`` (a manual one:
    the stall verdicts move only when the test moves time)."""
    clock = clock or ManualClock()
    metrics = Metrics()
    router = BackendRouter(["llm"], call_timeout_s=call_timeout_s, stall_floor_s=floor_s, clock=clock)
    gate = LlmGate(
        PooledSlotPool({"llm": LocalSlotPool(2, 0, ServiceLedger(clock=clock))}, router),
        acquire_timeout_s=0.05,
        call_timeout_s=call_timeout_s,
        metrics=metrics,
    )
    backend = FakeBackend(reply="ok")
    return gate, backend, HealthService(gate, backend, timeout_s=5, metrics=metrics, clock=clock)  # type: ignore[arg-type]


def sample(metrics: Metrics, name: str, **labels: str) -> float | None:
    return metrics.registry.get_sample_value(name, labels)


async def test_every_slot_held_by_a_frozen_backend_turns_health_stalled_after_the_threshold() -> None:
    clock = ManualClock()
    gate, backend, health = stack(floor_s=1.0, clock=clock)
    for _ in range(3):  # calls that finish: the gate learns a (short) mean hold time
        await gate.run(lambda _grant: backend.complete(REQUEST), call(gate, route="interpret"))
    assert gate.stall_threshold_s() == pytest.approx(1.0)  # 3 x a tiny mean is under the floor
    backend.freeze()
    stuck = [
        asyncio.create_task(gate.run(lambda _grant: backend.complete(REQUEST), call(gate, route="interpret")))
        for _ in range(2)
    ]
    await wait_for(lambda: _in_use(gate, 2), what="both slots held by the frozen backend")

    early = await health.check()
    assert (early.status, early.probe, early.http_status) == ("ok", "skipped_gate_saturated", 200)

    clock.advance(1.5)  # the newest holder is past the threshold, and no call has finished since
    report = await health.check()
    assert report.http_status == 503 and report.to_json()["status"] == "stalled"
    assert sample(health.metrics, "fi_gate_stalled") == 1
    assert sample(health.metrics, "fi_health_status", status="stalled") == 1
    assert sample(health.metrics, "fi_health_status", status="ok") == 0

    backend.thaw()  # the backend resumes: calls finish, slots free, health is ok again
    await asyncio.gather(*stuck)
    assert (await health.check()).status == "ok"
    assert sample(health.metrics, "fi_gate_stalled") == 0


async def _in_use(gate: LlmGate, n: int) -> bool:
    return (await gate.occupancy()).in_use == n


async def test_without_any_observed_call_the_threshold_is_the_call_deadline() -> None:
    clock = ManualClock()
    gate, backend, health = stack(floor_s=0.01, call_timeout_s=60, clock=clock)
    assert gate.stall_threshold_s() == 60
    backend.freeze()
    stuck = [asyncio.create_task(gate.run(lambda _grant: backend.complete(REQUEST), call(gate))) for _ in range(2)]
    await wait_for(lambda: _in_use(gate, 2), what="both slots held")
    clock.advance(0.05)  # well past the floor, far below the deadline
    assert (await health.check()).status == "ok"
    backend.thaw()
    await asyncio.gather(*stuck)


async def test_a_busy_gate_that_keeps_finishing_calls_is_not_stalled() -> None:
    clock = ManualClock()
    gate, backend, health = stack(floor_s=1.0, clock=clock)
    await gate.run(lambda _grant: backend.complete(REQUEST), call(gate))
    backend.freeze()
    first = asyncio.create_task(gate.run(lambda _grant: backend.complete(REQUEST), call(gate)))
    await wait_for(lambda: _in_use(gate, 1), what="one slot held")
    clock.advance(1.2)  # the first holder is past the threshold
    second = asyncio.create_task(gate.run(lambda _grant: backend.complete(REQUEST), call(gate)))
    await wait_for(lambda: _in_use(gate, 2), what="both slots held")
    # the newest holder was admitted just now: the gate made room recently, it is busy, not stalled
    assert (await health.check()).status == "ok"
    backend.thaw()
    await asyncio.gather(first, second)


async def test_concurrent_checks_share_one_probe_and_its_report_is_cached() -> None:
    gate, backend, _ = stack(floor_s=1)
    health = HealthService(gate, backend, timeout_s=5, cache_s=60)  # type: ignore[arg-type]
    backend.freeze()
    checks = [asyncio.create_task(health.check()) for _ in range(4)]
    await wait_for(lambda: _calls(backend, 1), what="the probe to start")
    backend.thaw()
    reports = await asyncio.gather(*checks)
    assert {r.probe for r in reports} == {"completed"}
    assert backend.calls == 1
    assert (await health.check()).probe == "completed" and backend.calls == 1  # cached
    free = await gate.occupancy()
    assert free.in_use == 0  # and the probe never held more than its one slot meanwhile


async def _calls(backend: FakeBackend, n: int) -> bool:
    return backend.calls >= n


async def test_a_probe_that_reaches_the_backend_and_fails_is_llm_unavailable_even_while_not_loaded() -> None:
    not_loaded = FakeBackend(
        reply=LlmFailure("Ollama answered 404: model 'x' not found", public="the backend answered HTTP 404"),
        readiness=Readiness.WARMING,
    )
    gate = LlmGate(PooledSlotPool.single(LocalSlotPool(1, 0)), acquire_timeout_s=0.05, call_timeout_s=5)
    report = await HealthService(gate, not_loaded, timeout_s=1).check()  # type: ignore[arg-type]
    assert (report.status, report.probe, report.detail) == (
        "llm_unavailable",
        "failed",
        "the backend answered HTTP 404",
    )


# ── Ollama: a model named without a tag is the ":latest" that /api/ps lists ─────────────────────


@pytest.mark.parametrize(
    ("name", "canonical"),
    [
        ("llama3", "llama3:latest"),
        ("llama3.2:1b", "llama3.2:1b"),
        ("registry:5000/team/llama3", "registry:5000/team/llama3:latest"),
        ("registry:5000/team/llama3:8b", "registry:5000/team/llama3:8b"),
    ],
)
def test_canonical_model_names(name: str, canonical: str) -> None:
    assert canonical_model_name(name) == canonical


async def test_ollama_readiness_matches_an_untagged_model_to_its_latest_tag() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/tags":
            return httpx.Response(200, json={"models": [{"name": "sim-model:latest"}]})
        return httpx.Response(
            200, content=json.dumps({"models": [{"name": "sim-model:latest", "model": "sim-model:latest"}]})
        )

    backend = OllamaBackend("http://ollama.invalid", "sim-model")
    backend._client = httpx.AsyncClient(base_url="http://ollama.invalid", transport=httpx.MockTransport(answer))
    assert await backend.readiness() is Readiness.READY
    await backend.aclose()


async def test_gate_records_admission_age_of_the_newest_holder() -> None:
    gate = LlmGate(PooledSlotPool.single(LocalSlotPool(2, 0)), acquire_timeout_s=0.05, call_timeout_s=5)
    assert (await gate.occupancy()).newest_hold_s is None
    held = asyncio.Event()
    done = asyncio.Event()

    async def work(_grant: Grant) -> None:
        held.set()
        await done.wait()

    task = asyncio.create_task(gate.run(work, call(gate, Priority.INTERACTIVE)))
    await held.wait()
    age = (await gate.occupancy()).newest_hold_s
    assert age is not None and age >= 0
    done.set()
    await task


@pytest.mark.redis
async def test_the_shared_gate_judges_stalls_by_the_newest_lease_on_redis_clock() -> None:
    import uuid

    from feedback_intelligence.gate.redis_pool import RedisSlotPool

    name = f"stall-{uuid.uuid4().hex[:8]}"
    replicas = [RedisSlotPool(REDIS_URL, slots=2, name=name, lease_s=5) for _ in range(2)]
    try:
        assert (await replicas[1].occupancy()).newest_hold_s is None
        first = await replicas[0].try_acquire(Priority.INTERACTIVE)
        await asyncio.sleep(0.3)
        before_second = time.monotonic()
        second = await replicas[0].try_acquire(Priority.INTERACTIVE)
        seen = await replicas[1].occupancy()  # another replica sees the shared gate's stall clock
        assert seen.in_use == 2 and seen.newest_hold_s is not None
        assert seen.newest_hold_s <= time.monotonic() - before_second + 0.05  # the second lease, not the first
        pool = PooledSlotPool({"llm": replicas[1]}, BackendRouter(["llm"], call_timeout_s=60, stall_floor_s=2.0))
        gate = LlmGate(pool, acquire_timeout_s=0.05, call_timeout_s=60)
        gate.hold_time.observe(0.01)

        async def stalled() -> bool:
            return gate.stalled(await replicas[1].occupancy())

        assert not gate.stalled(seen) or time.monotonic() - before_second > 2.0
        await wait_for(stalled, timeout_s=10, what="the shared gate to count as stalled")
        for lease in (first, second):
            assert lease is not None
            await replicas[0].release(lease)
        assert (await replicas[1].occupancy()).newest_hold_s is None
    finally:
        for pool in replicas:
            await pool.aclose()
