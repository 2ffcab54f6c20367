"""Background yields to a waiting clerk (docs/adr/0017): which call is preempted, how often, and that
nothing is leaked. The same suite runs over the in-process pool and, under the ``redis`` marker, over
the Redis pool; cross-replica preemption and the pool of several backends have their own tests.
Every step waits on an event or on observable state, never on a sleep.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from feedback_intelligence.gate.gate import LlmGate
from feedback_intelligence.gate.local import LocalSlotPool
from feedback_intelligence.gate.pooled import PooledSlotPool
from feedback_intelligence.gate.redis_pool import RedisSlotPool
from feedback_intelligence.gate.slots import Grant, Priority, SlotPool
from feedback_intelligence.llm.errors import LlmBusy, LlmPreempted
from tests.support.calls import call
from tests.support.kinds import POOL_KINDS

REDIS = "redis://127.0.0.1:6379/0"
MakeGate = Callable[..., LlmGate]


@pytest.fixture(params=POOL_KINDS)
async def make_gate(request: pytest.FixtureRequest) -> AsyncIterator[MakeGate]:
    pools: list[SlotPool[Any]] = []

    def make(slots: int = 2, reserve: int = 1, acquire_ms: int = 2000, preempt_max: int = 2) -> LlmGate:
        pool: SlotPool[Any]
        if request.param == "local":
            pool = LocalSlotPool(slots, reserve)
        else:
            pool = RedisSlotPool(REDIS, slots=slots, background_reserve=reserve, name=f"preempt-{uuid.uuid4().hex[:8]}")
        pools.append(pool)
        single = PooledSlotPool.single(pool)
        return LlmGate(single, acquire_timeout_s=acquire_ms / 1000, call_timeout_s=10, preempt_max=preempt_max)

    yield make
    for pool in pools:
        await pool.aclose()


class Call:
    """A call that holds its slot until told to let go; tells when it holds it and when it was cancelled."""

    def __init__(
        self, gate: LlmGate, priority: Priority, *, route: str = "report", preempted: int = 0, name: str = ""
    ) -> None:
        self.name = name
        self.holding = asyncio.Event()
        self.let_go = asyncio.Event()
        self.cancelled = asyncio.Event()
        self.backend: str | None = None
        self.task = asyncio.create_task(gate.run(self._work, call(gate, priority, route, preempted=preempted)))

    async def _work(self, grant: Grant) -> str:
        self.backend = grant.backend
        self.holding.set()
        try:
            await self.let_go.wait()
        except asyncio.CancelledError:
            self.cancelled.set()
            raise
        return self.name or "done"

    async def finish(self) -> Any:
        self.let_go.set()
        return await self.task


def background(gate: LlmGate, **kwargs: Any) -> Call:
    return Call(gate, Priority.BACKGROUND, **kwargs)


def clerk(gate: LlmGate, **kwargs: Any) -> Call:
    return Call(gate, Priority.INTERACTIVE, route="interpret", **kwargs)


async def in_use(gate: LlmGate) -> int:
    return (await gate.occupancy()).in_use


def preemptions(gate: LlmGate, route: str) -> float:
    return gate.metrics.registry.get_sample_value("fi_gate_preemptions_total", {"route": route}) or 0.0


async def test_a_waiting_clerk_preempts_the_background_call_and_takes_its_slot(make_gate: MakeGate) -> None:
    gate = make_gate(slots=2, reserve=1)
    report = background(gate)
    await report.holding.wait()
    first = clerk(gate, name="first")
    await first.holding.wait()  # every slot held: one clerk, one background call

    second = clerk(gate, name="second")
    await report.cancelled.wait()  # the background work was cancelled where it stood
    with pytest.raises(LlmPreempted) as raised:
        await report.task
    assert isinstance(raised.value, LlmBusy) and raised.value.reason == "preempted"  # requeue, not a failure
    await second.holding.wait()  # its slot went to the waiting clerk
    assert await second.finish() == "second" and await first.finish() == "first"
    assert preemptions(gate, "report") == 1
    assert await in_use(gate) == 0


async def test_the_most_recently_started_background_call_is_preempted_first(make_gate: MakeGate) -> None:
    gate = make_gate(slots=3, reserve=0)
    older = background(gate, route="structure-later")
    await older.holding.wait()
    newer = background(gate, route="report")
    await newer.holding.wait()
    held = clerk(gate, name="held")
    await held.holding.wait()

    waiting = clerk(gate, name="waiting")
    with pytest.raises(LlmPreempted):
        await newer.task
    await waiting.holding.wait()
    # One waiting clerk costs one preemption: the older call runs on.
    assert not older.cancelled.is_set() and not older.task.done()
    assert preemptions(gate, "report") == 1 and preemptions(gate, "structure-later") == 0

    another = clerk(gate, name="another")
    with pytest.raises(LlmPreempted):
        await older.task
    await another.holding.wait()
    assert [await c.finish() for c in (held, waiting, another)] == ["held", "waiting", "another"]
    assert await in_use(gate) == 0


async def test_a_call_preempted_as_often_as_the_bound_runs_to_its_end_and_the_clerk_is_shed(
    make_gate: MakeGate,
) -> None:
    gate = make_gate(slots=2, reserve=1, acquire_ms=150, preempt_max=2)
    aged = background(gate, preempted=2)  # its work item yielded twice already: not offered again
    await aged.holding.wait()
    first = clerk(gate)
    await first.holding.wait()

    shed = clerk(gate)
    with pytest.raises(LlmBusy) as raised:
        await shed.task
    assert raised.value.reason == "acquire_timeout"
    assert not aged.cancelled.is_set()
    assert await aged.finish() == "done"
    await first.finish()
    assert preemptions(gate, "report") == 0
    assert await in_use(gate) == 0


async def test_a_call_below_the_bound_is_still_preempted(make_gate: MakeGate) -> None:
    gate = make_gate(slots=1, reserve=0, preempt_max=2)
    once = background(gate, preempted=1)
    await once.holding.wait()
    waiting = clerk(gate)
    with pytest.raises(LlmPreempted):
        await once.task
    await waiting.finish()
    assert await in_use(gate) == 0


async def test_preemption_off_leaves_background_calls_alone(make_gate: MakeGate) -> None:
    gate = make_gate(slots=1, reserve=0, acquire_ms=150, preempt_max=0)
    report = background(gate)
    await report.holding.wait()
    with pytest.raises(LlmBusy):
        await clerk(gate).task
    assert await report.finish() == "done"


async def test_clerks_are_never_preempted(make_gate: MakeGate) -> None:
    gate = make_gate(slots=1, reserve=0, acquire_ms=150)
    first = clerk(gate, name="first")
    await first.holding.wait()
    with pytest.raises(LlmBusy) as raised:
        await clerk(gate).task
    assert raised.value.reason == "acquire_timeout" and not first.cancelled.is_set()
    assert await first.finish() == "first"


async def test_a_background_call_that_ended_before_a_clerk_came_is_not_preempted_later(make_gate: MakeGate) -> None:
    gate = make_gate(slots=2, reserve=1)
    report = background(gate)
    await report.holding.wait()
    assert await report.finish() == "done"
    first, second = clerk(gate, name="a"), clerk(gate, name="b")
    await asyncio.gather(first.holding.wait(), second.holding.wait())
    assert not await gate.pool.preempt()  # nothing offered is left behind by the finished call
    assert [await first.finish(), await second.finish()] == ["a", "b"]
    assert await in_use(gate) == 0


async def test_cancelling_a_background_call_from_outside_stays_a_cancellation(make_gate: MakeGate) -> None:
    gate = make_gate(slots=2, reserve=1)
    report = background(gate)
    await report.holding.wait()
    report.task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await report.task
    assert await in_use(gate) == 0
    assert not await gate.pool.preempt()  # its offer went with its slot
    assert preemptions(gate, "report") == 0


async def test_a_preempted_caller_can_go_on_and_call_again(make_gate: MakeGate) -> None:
    """The preemption is withdrawn from the caller's task: the same task may await and call again."""
    gate = make_gate(slots=1, reserve=0)
    first_try, second_try, let_go = asyncio.Event(), asyncio.Event(), asyncio.Event()
    outcomes: list[str] = []

    async def hold(started: asyncio.Event) -> str:
        started.set()
        await let_go.wait()
        return "second try"

    async def caller() -> str:
        try:
            await gate.run(lambda _grant: hold(first_try), call(gate, Priority.BACKGROUND, "report"))
        except LlmPreempted:
            outcomes.append("preempted")
        await asyncio.sleep(0)  # a cancellation left pending on the task would land here
        outcomes.append("still running")
        return await gate.run(lambda _grant: hold(second_try), call(gate, Priority.BACKGROUND, "report", preempted=1))

    task = asyncio.create_task(caller())
    await first_try.wait()
    waiting = clerk(gate)
    await waiting.holding.wait()
    assert not second_try.is_set()  # the clerk holds the only slot; the caller waits behind it
    await waiting.finish()
    await second_try.wait()  # admitted again once the clerk was done
    let_go.set()
    assert await task == "second try"
    assert outcomes == ["preempted", "still running"]
    assert await in_use(gate) == 0


@pytest.mark.redis
async def test_a_clerk_on_one_replica_preempts_a_background_call_on_another() -> None:
    name = f"replicas-{uuid.uuid4().hex[:8]}"
    x, y = (RedisSlotPool(REDIS, slots=2, background_reserve=1, name=name, lease_s=2.0) for _ in range(2))
    try:
        gate_x = LlmGate(PooledSlotPool.single(x), acquire_timeout_s=2.0, call_timeout_s=60)
        gate_y = LlmGate(PooledSlotPool.single(y), acquire_timeout_s=2.0, call_timeout_s=60)
        report = background(gate_x)  # replica X writes report prose
        await report.holding.wait()
        first = clerk(gate_y, name="first")  # replica Y serves the desk
        await first.holding.wait()

        second = clerk(gate_y, name="second")
        with pytest.raises(LlmPreempted):
            await report.task
        assert report.cancelled.is_set()
        await second.holding.wait()
        assert preemptions(gate_x, "report") == 1  # counted where the preempted call ran
        assert [await first.finish(), await second.finish()] == ["first", "second"]
        assert (await x.occupancy()).in_use == 0 and (await y.occupancy()).in_use == 0
    finally:
        await x.aclose()
        await y.aclose()


async def test_a_pool_of_backends_preempts_the_newest_background_call_of_any_backend() -> None:
    pool = PooledSlotPool({"gpu0": LocalSlotPool(1, 0), "gpu1": LocalSlotPool(1, 0)})
    gate = LlmGate(pool, acquire_timeout_s=2.0, call_timeout_s=60)
    older = background(gate, route="structure-later")
    await older.holding.wait()
    newer = background(gate, route="report")
    await newer.holding.wait()
    assert {older.backend, newer.backend} == {"gpu0", "gpu1"}

    waiting = clerk(gate, name="clerk")
    with pytest.raises(LlmPreempted):
        await newer.task
    await waiting.holding.wait()
    assert waiting.backend == newer.backend  # the freed slot is the preempted call's backend's
    assert not older.cancelled.is_set()
    assert await waiting.finish() == "clerk" and await older.finish() == "done"
    assert (await pool.occupancy()).in_use == 0
