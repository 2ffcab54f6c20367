"""The gate's contract: shed not queue, release on every path, two priorities.

One suite for every slot pool, the way ``limits`` runs its strategy tests over every storage: each test
takes the ``make_gate`` fixture, which builds the gate over the in-process pool and, under the ``redis``
marker, over the Redis pool (real Redis at 127.0.0.1:6379, a fresh gate name per test).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Callable

import pytest

from feedback_intelligence.gate.gate import LlmGate
from feedback_intelligence.gate.local import LocalSlotPool
from feedback_intelligence.gate.pooled import PooledSlotPool
from feedback_intelligence.gate.redis_pool import RedisSlotPool
from feedback_intelligence.gate.slots import Grant, Priority, SlotPool
from feedback_intelligence.llm.errors import LlmBusy, LlmDeadlineExceeded
from tests.support.calls import call
from tests.support.kinds import POOL_KINDS
from tests.support.waiting import wait_for

REDIS = "redis://127.0.0.1:6379/0"
MakeGate = Callable[..., LlmGate]


@pytest.fixture(params=POOL_KINDS)
async def make_gate(request: pytest.FixtureRequest) -> AsyncIterator[MakeGate]:
    pools: list[SlotPool] = []

    def make(
        slots: int = 2, acquire_ms: int = 500, call_timeout_s: float = 120, reserve: int = 1, preempt_max: int = 2
    ) -> LlmGate:
        pool: SlotPool
        if request.param == "local":
            pool = LocalSlotPool(slots, reserve)
        else:
            name = f"contract-{uuid.uuid4().hex[:8]}"
            pool = RedisSlotPool(REDIS, slots=slots, background_reserve=reserve, name=name)
        pools.append(pool)
        return LlmGate(
            PooledSlotPool.single(pool),
            acquire_timeout_s=acquire_ms / 1000,
            call_timeout_s=call_timeout_s,
            preempt_max=preempt_max,
        )

    yield make
    for pool in pools:
        await pool.aclose()


class Holder:
    """Holds a slot until told to let go; tells when it has the slot."""

    def __init__(self, gate: LlmGate, priority: Priority = Priority.INTERACTIVE) -> None:
        self.holding = asyncio.Event()
        self.let_go = asyncio.Event()
        self.task = asyncio.create_task(gate.run(self._work, call(gate, priority)))

    async def _work(self, _grant: Grant) -> str:
        self.holding.set()
        await self.let_go.wait()
        return "done"


async def test_try_run_runs_when_a_slot_is_free(make_gate: MakeGate) -> None:
    gate = make_gate()
    ran = []

    async def probe(_grant: Grant) -> str:
        ran.append(True)
        return "pong"

    assert await gate.try_run(probe, call(gate, route="health")) == (True, "pong")
    assert ran == [True]


async def test_try_run_returns_false_at_once_without_running_when_all_slots_are_held(make_gate: MakeGate) -> None:
    gate = make_gate(slots=2, acquire_ms=10_000)
    holders = [Holder(gate), Holder(gate)]
    await asyncio.gather(*(h.holding.wait() for h in holders))
    ran = []

    async def probe(_grant: Grant) -> None:
        ran.append(True)

    started = time.perf_counter()
    admitted, _ = await gate.try_run(probe, call(gate, route="health"))
    assert admitted is False
    assert time.perf_counter() - started < 1.0
    assert ran == []
    for h in holders:
        h.let_go.set()
    await asyncio.gather(*(h.task for h in holders))
    assert (await gate.try_run(probe, call(gate, route="health")))[0] is True
    assert ran == [True]


async def test_try_run_releases_its_slot_when_the_work_raises(make_gate: MakeGate) -> None:
    gate = make_gate(slots=1, acquire_ms=50)

    async def boom(_grant: Grant) -> None:
        raise RuntimeError("model exploded")

    with pytest.raises(RuntimeError):
        await gate.try_run(boom, call(gate, route="health"))

    async def ok(_grant: Grant) -> str:
        return "ok"

    assert await gate.run(ok, call(gate)) == "ok"
    assert (await gate.occupancy()).in_use == 0


async def test_run_sheds_within_the_acquire_timeout_while_the_slot_is_held(make_gate: MakeGate) -> None:
    gate = make_gate(slots=1, acquire_ms=50)
    holder = Holder(gate)
    await holder.holding.wait()

    async def never(_grant: Grant) -> None:
        raise AssertionError("must not run")

    started = time.perf_counter()
    with pytest.raises(LlmBusy) as shed:
        await gate.run(never, call(gate))
    elapsed = time.perf_counter() - started
    # The holder never lets go, so returning at all is the shed; the upper bound is a margin a loaded
    # 2-core machine keeps (40 acquire timeouts), not a speed target.
    assert 0.04 <= elapsed < 2.0
    assert shed.value.reason == "acquire_timeout"
    assert shed.value.retry_after_s >= 1
    holder.let_go.set()
    await holder.task


async def test_a_waiter_gets_the_slot_when_it_is_released_in_time(make_gate: MakeGate) -> None:
    gate = make_gate(slots=1, acquire_ms=2000)
    holder = Holder(gate)
    await holder.holding.wait()

    async def work(_grant: Grant) -> str:
        return "second"

    waiter = asyncio.create_task(gate.run(work, call(gate)))
    await wait_for(lambda: _occupied("waiting_interactive", gate))
    holder.let_go.set()
    assert await waiter == "second"
    assert (await gate.occupancy()).in_use == 0


async def test_deadline_releases_the_slot_and_reads_as_an_llm_failure(make_gate: MakeGate) -> None:
    gate = make_gate(slots=1, call_timeout_s=0.05)

    async def hang(_grant: Grant) -> None:
        await asyncio.Event().wait()

    with pytest.raises(LlmDeadlineExceeded):
        await gate.run(hang, call(gate))
    assert (await gate.occupancy()).in_use == 0
    assert not issubclass(LlmDeadlineExceeded, asyncio.CancelledError)


async def test_cancellation_releases_the_slot_and_cancels_the_work(make_gate: MakeGate) -> None:
    gate = make_gate(slots=1)
    started = asyncio.Event()
    work_cancelled = asyncio.Event()

    async def long_call(_grant: Grant) -> None:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            work_cancelled.set()
            raise

    task = asyncio.create_task(gate.run(long_call, call(gate)))
    await started.wait()
    assert (await gate.occupancy()).in_use == 1
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert work_cancelled.is_set()
    assert (await gate.occupancy()).in_use == 0


async def test_a_cancelled_waiter_leaves_the_queue_and_takes_no_slot(make_gate: MakeGate) -> None:
    gate = make_gate(slots=1, acquire_ms=5000)
    holder = Holder(gate)
    await holder.holding.wait()

    async def work(_grant: Grant) -> None:
        raise AssertionError("must not run")

    waiter = asyncio.create_task(gate.run(work, call(gate)))
    await wait_for(lambda: _occupied("waiting", gate))
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    assert (await gate.occupancy()).waiting == 0
    holder.let_go.set()
    await holder.task
    assert (await gate.occupancy()).in_use == 0


async def test_background_work_never_takes_the_last_free_slot(make_gate: MakeGate) -> None:
    gate = make_gate(slots=2, acquire_ms=50)
    clerk = Holder(gate, Priority.INTERACTIVE)
    await clerk.holding.wait()

    async def batch(_grant: Grant) -> None:
        raise AssertionError("background must not run while only one slot is free")

    with pytest.raises(LlmBusy):
        await gate.run(batch, call(gate, Priority.BACKGROUND))
    assert (await gate.try_run(batch, call(gate, Priority.BACKGROUND, "health")))[0] is False
    # ...while a second clerk still gets the free slot at once.
    second = Holder(gate, Priority.INTERACTIVE)
    await second.holding.wait()
    for h in (clerk, second):
        h.let_go.set()
        await h.task


async def test_background_runs_on_an_idle_gate_and_a_waiting_clerk_goes_first(make_gate: MakeGate) -> None:
    # Preemption off: this is the order of waiters alone (tests/gate/test_preemption.py has the rest).
    gate = make_gate(slots=2, acquire_ms=2000, preempt_max=0)
    report = Holder(gate, Priority.BACKGROUND)
    await report.holding.wait()
    clerk = Holder(gate, Priority.INTERACTIVE)
    await clerk.holding.wait()  # the clerk takes the slot the background work left free
    order: list[str] = []

    async def record(name: str) -> None:
        order.append(name)

    background = asyncio.create_task(gate.run(lambda _grant: record("background"), call(gate, Priority.BACKGROUND)))
    await wait_for(lambda: _occupied("waiting_background", gate))
    interactive = asyncio.create_task(gate.run(lambda _grant: record("interactive"), call(gate, Priority.INTERACTIVE)))
    await wait_for(lambda: _occupied("waiting_interactive", gate))
    report.let_go.set()
    await report.task
    await interactive
    clerk.let_go.set()
    await clerk.task
    await background
    assert order == ["interactive", "background"]


async def test_retry_after_follows_observed_hold_times(make_gate: MakeGate) -> None:
    gate = make_gate(slots=1)
    for _ in range(30):
        gate.hold_time.observe(4.0)
    assert gate.retry_after_s() == 4
    gate.hold_time.observe(1000)
    assert gate.retry_after_s() == 30  # capped


async def test_metrics_count_sheds_by_route_priority_and_reason(make_gate: MakeGate) -> None:
    gate = make_gate(slots=1, acquire_ms=10)
    holder = Holder(gate)
    await holder.holding.wait()

    async def work(_grant: Grant) -> None:
        return None

    with pytest.raises(LlmBusy):
        await gate.run(work, call(gate, route="interpret"))
    value = gate.metrics.registry.get_sample_value(
        "fi_gate_sheds_total", {"route": "interpret", "priority": "interactive", "reason": "acquire_timeout"}
    )
    assert value == 1
    holder.let_go.set()
    await holder.task


async def test_retry_after_grows_with_the_queue_ahead(make_gate: MakeGate) -> None:
    patient = make_gate(slots=1, acquire_ms=10_000)
    impatient = LlmGate(patient.pool, acquire_timeout_s=0.05, call_timeout_s=120)
    for _ in range(30):
        impatient.hold_time.observe(2.0)
    holder = Holder(patient)
    await holder.holding.wait()

    async def never(_grant: Grant) -> None:
        raise AssertionError("must not run")

    with pytest.raises(LlmBusy) as alone:
        await impatient.run(never, call(impatient))
    waiters = [asyncio.create_task(patient.run(lambda _grant: asyncio.sleep(0), call(patient))) for _ in range(2)]
    await wait_for(lambda: _waiting_at_least(2, patient))
    with pytest.raises(LlmBusy) as behind_two:
        await impatient.run(never, call(impatient))

    assert alone.value.retry_after_s == 2
    assert behind_two.value.retry_after_s == 6  # two waiting per slot: three hold times away
    holder.let_go.set()
    await asyncio.gather(holder.task, *waiters)


async def test_recent_sheds_are_counted_and_age_out(make_gate: MakeGate) -> None:
    gate = make_gate(slots=1, acquire_ms=10)
    holder = Holder(gate)
    await holder.holding.wait()

    async def never(_grant: Grant) -> None:
        raise AssertionError("must not run")

    for _ in range(3):
        with pytest.raises(LlmBusy):
            await gate.run(never, call(gate, route="interpret"))
    assert (await gate.try_run(never, call(gate, route="health")))[
        0
    ] is False  # not admitted is not a shed: health probes skip

    assert gate.sheds_in_last(60) == 3
    assert gate.sheds_in_last(0) == 0
    holder.let_go.set()
    await holder.task


async def _waiting_at_least(count: int, gate: LlmGate) -> bool:
    return (await gate.occupancy()).waiting >= count


async def _occupied(field: str, gate: LlmGate) -> bool:
    return getattr(await gate.occupancy(), field) > 0
