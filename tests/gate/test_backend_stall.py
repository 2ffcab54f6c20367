"""A stalled backend is judged on its own: every slot of *it* held, none freed for longer than the
threshold. It shows as ``stalled`` in its own state, metrics and the health body, and admission
prefers the backends that still finish calls."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from feedback_intelligence.gate.fairness import ServiceLedger
from feedback_intelligence.gate.gate import LlmGate
from feedback_intelligence.gate.local import LocalSlotPool
from feedback_intelligence.gate.pooled import PooledSlotPool
from feedback_intelligence.gate.redis_pool import RedisSlotPool
from feedback_intelligence.gate.router import BackendRouter
from feedback_intelligence.gate.slots import Grant, Occupancy, Priority
from feedback_intelligence.instants.clock import ManualClock
from feedback_intelligence.llm.backend import Completion, CompletionRequest
from feedback_intelligence.llm.testing import FakeBackend
from feedback_intelligence.metrics import Metrics
from feedback_intelligence.services.health import HealthService
from tests.support.calls import call
from tests.support.waiting import wait_for

REQUEST = CompletionRequest([], max_tokens=1)
REDIS = "redis://127.0.0.1:6379/0"


def two_of_one_slot(clock: ManualClock | None = None) -> PooledSlotPool:
    """Two backends of one slot each, their leases and stall verdicts on ``clock`` (a manual one)."""
    clock = clock or ManualClock()
    ledger = ServiceLedger(clock=clock)
    return PooledSlotPool(
        {"gpu1": LocalSlotPool(1, 0, ledger), "gpu2": LocalSlotPool(1, 0, ledger)},
        BackendRouter(["gpu1", "gpu2"], stall_floor_s=0.2, clock=clock),
    )


def held(age_s: float) -> Occupancy:
    return Occupancy(slots=1, in_use=1, waiting_interactive=0, waiting_background=0, newest_hold_s=age_s)


async def test_a_frozen_backend_is_stalled_in_its_own_state_while_the_other_serves() -> None:
    metrics = Metrics()
    clock = ManualClock()
    gate = LlmGate(two_of_one_slot(clock), acquire_timeout_s=0.05, call_timeout_s=120, metrics=metrics)
    backends = {"gpu1": FakeBackend(reply="ok"), "gpu2": FakeBackend(reply="ok")}
    health = HealthService(gate, backends["gpu1"], timeout_s=5, metrics=metrics, backends=backends)  # type: ignore[arg-type]

    async def complete(grant: Grant) -> Completion:
        return await backends[grant.backend].complete(REQUEST)

    await gate.run(complete, call(gate))  # a call that finishes: the gate learns a (tiny) mean hold time
    assert gate.stall_threshold_s() == 0.2  # 3 x a tiny mean is under the floor
    backends["gpu2"].freeze()
    # gpu1 is busy with a call that will finish, so the next call lands on gpu2 and freezes there
    backends["gpu1"].freeze()
    on_gpu1 = asyncio.create_task(gate.run(complete, call(gate)))
    await wait_for(lambda: _in_use(gate, "gpu1", 1), what="gpu1 busy")
    stuck = asyncio.create_task(gate.run(complete, call(gate)))
    await wait_for(lambda: _in_use(gate, "gpu2", 1), what="gpu2 holding a frozen call")
    backends["gpu1"].thaw()
    await on_gpu1

    async def gpu2_stalled() -> bool:
        return {row["name"]: row["state"] for row in await gate.backends()} == {"gpu1": "ok", "gpu2": "stalled"}

    assert not await gpu2_stalled()  # held only just now
    clock.advance(0.3)  # gpu2's call has held its one slot past the threshold
    await wait_for(gpu2_stalled, what="gpu2 judged stalled")
    assert metrics.registry.get_sample_value("fi_backend_stalled", {"backend": "gpu2"}) == 1
    assert metrics.registry.get_sample_value("fi_backend_stalled", {"backend": "gpu1"}) == 0
    # the pool as a whole still makes room (gpu1 is free): not the gate-wide stall
    assert not gate.stalled(await gate.occupancy())

    report = await health.check()
    body = report.to_json()
    assert (report.status, report.http_status) == ("ok", 200)
    assert body["degraded"] is True
    assert {row["name"]: row["state"] for row in body["backends"]} == {"gpu1": "ok", "gpu2": "stalled"}
    assert [(await gate.run(complete, call(gate))).text for _ in range(3)] == ["ok"] * 3  # served by gpu1 meanwhile

    backends["gpu2"].thaw()  # the backend resumes: its call finishes and it is ok again
    await stuck
    assert {row["name"]: row["state"] for row in await gate.backends()} == {"gpu1": "ok", "gpu2": "ok"}
    assert metrics.registry.get_sample_value("fi_backend_stalled", {"backend": "gpu2"}) == 0


async def _in_use(gate: LlmGate, name: str, n: int) -> bool:
    assert isinstance(gate.pool, PooledSlotPool)
    return (await gate.pool.member_occupancy())[name].in_use == n


async def test_a_waiting_call_does_not_wait_on_a_stalled_backend() -> None:
    slots = two_of_one_slot()
    first, second = await slots.try_acquire(Priority.INTERACTIVE), await slots.try_acquire(Priority.INTERACTIVE)
    assert first is not None and second is not None and (first.backend, second.backend) == ("gpu1", "gpu2")
    slots.router.judge_stalls({"gpu1": held(0.5), "gpu2": held(60.0)}, threshold_s=30.0)
    assert [state.state for state in slots.router.states.values()] == ["ok", "stalled"]

    waiter = asyncio.create_task(slots.acquire(Priority.INTERACTIVE, 30.0))

    async def waiting_on(name: str) -> bool:
        return (await slots.members[name].occupancy()).waiting_interactive == 1

    await wait_for(lambda: waiting_on("gpu1"), what="the call waiting on gpu1")
    assert not await waiting_on("gpu2")  # nobody queues for the stalled backend
    await slots.release(second)  # the stalled backend's call ran into its deadline: that slot is not taken
    await slots.release(first)
    lease = await waiter
    assert lease is not None and lease.backend == "gpu1"
    await slots.release(lease)


async def test_a_stalled_backend_is_offered_last_and_still_used_when_every_backend_is_stalled() -> None:
    slots = two_of_one_slot()
    slots.router.judge_stalls({"gpu1": held(60.0), "gpu2": held(0.5)}, threshold_s=30.0)
    lease = await slots.try_acquire(Priority.INTERACTIVE)
    assert lease is not None and lease.backend == "gpu2"  # least loaded would be gpu1; it is stalled
    await slots.release(lease)
    slots.router.judge_stalls({"gpu1": held(60.0), "gpu2": held(60.0)}, threshold_s=30.0)
    leases = [await slots.try_acquire(Priority.INTERACTIVE) for _ in range(2)]
    assert sorted(lease.backend for lease in leases if lease is not None) == ["gpu1", "gpu2"]


def test_a_backend_below_its_slots_or_recently_admitted_is_not_stalled() -> None:
    slots = PooledSlotPool({"gpu1": LocalSlotPool(2, 0)})
    busy_but_finishing = Occupancy(slots=2, in_use=2, waiting_interactive=3, waiting_background=0, newest_hold_s=1.0)
    one_free = Occupancy(slots=2, in_use=1, waiting_interactive=0, waiting_background=0, newest_hold_s=90.0)
    for occupancy in (busy_but_finishing, one_free):
        slots.router.judge_stalls({"gpu1": occupancy}, threshold_s=30.0)
        assert slots.router.states["gpu1"].state == "ok"


@pytest.mark.redis
async def test_on_redis_every_replica_judges_a_backend_by_the_shared_leases() -> None:
    """Replica A holds gpu1's only slot and never frees it; replica B holds nothing itself, yet reads
    gpu1 stalled from the shared lease set (and gpu2, held by nobody, ok): the replicas agree."""
    gate = f"stall-{uuid.uuid4().hex[:8]}"

    def replica() -> PooledSlotPool:
        return PooledSlotPool(
            {
                name: RedisSlotPool(REDIS, slots=1, background_reserve=0, name=f"{gate}:{name}", ledger=gate)
                for name in ("gpu1", "gpu2")
            }
        )

    a, b = replica(), replica()
    try:
        lease = await a.members["gpu1"].try_acquire(Priority.INTERACTIVE)
        assert lease is not None

        async def b_reads_gpu1_stalled() -> bool:
            b.router.judge_stalls(await b.member_occupancy(), threshold_s=0.2)
            return b.router.states["gpu1"].stalled

        await wait_for(b_reads_gpu1_stalled, what="replica B to read gpu1 stalled from Redis")
        assert not b.router.states["gpu2"].stalled
        granted = await b.try_acquire(Priority.INTERACTIVE)  # B admits to the backend that still serves
        assert granted is not None and granted.backend == "gpu2"
        await b.release(granted)
        await a.members["gpu1"].release(lease)
        b.router.judge_stalls(await b.member_occupancy(), threshold_s=0.2)
        assert not b.router.states["gpu1"].stalled  # the slot came back: it finishes calls again
    finally:
        await a.aclose()
        await b.aclose()
