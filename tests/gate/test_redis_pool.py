"""The Redis-backed pool keeps the gate's contract across replicas (real Redis at 127.0.0.1:6379)."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import time
import uuid
from collections.abc import AsyncIterator, Iterator

import pytest

from feedback_intelligence.devtools.processes import free_port
from feedback_intelligence.gate.gate import LlmGate
from feedback_intelligence.gate.pooled import PooledSlotPool
from feedback_intelligence.gate.redis_pool import RedisSlotPool
from feedback_intelligence.gate.slots import Grant, PoolUnavailable, Priority
from feedback_intelligence.llm.errors import LlmBusy
from tests.prerequisites import require
from tests.support.calls import call
from tests.support.waiting import wait_for_sync

pytestmark = pytest.mark.redis
REDIS = "redis://127.0.0.1:6379/0"


@pytest.fixture
async def pools() -> AsyncIterator[list[RedisSlotPool]]:
    """Three pools on one gate name: three replicas sharing 2 slots."""
    name = f"test-{uuid.uuid4().hex[:8]}"
    made = [RedisSlotPool(REDIS, slots=2, name=name, lease_s=1.0) for _ in range(3)]
    yield made
    for pool in made:
        await pool.aclose()


def gate_over(pool: RedisSlotPool, acquire_s: float = 0.3) -> LlmGate:
    return LlmGate(PooledSlotPool.single(pool), acquire_timeout_s=acquire_s, call_timeout_s=30)


async def test_replicas_never_admit_more_than_the_shared_slots(pools: list[RedisSlotPool]) -> None:
    running = 0
    peak = 0
    release = asyncio.Event()

    async def work(_grant: Grant) -> None:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await release.wait()
        running -= 1

    gates = [gate_over(p, acquire_s=0.2) for p in pools]
    tasks = [asyncio.create_task(g.run(work, call(g))) for g in gates for _ in range(2)]
    done, pending = await asyncio.wait(tasks, timeout=1.0)
    shed = [t for t in done if isinstance(t.exception(), LlmBusy)]
    assert len(pending) == 2 and len(shed) == 4
    assert peak == 2
    release.set()
    await asyncio.gather(*pending)
    assert (await pools[0].occupancy()).in_use == 0


async def test_a_release_on_one_replica_wakes_a_waiter_on_another(pools: list[RedisSlotPool]) -> None:
    holding = [asyncio.Event(), asyncio.Event()]
    let_go = asyncio.Event()

    async def hold(i: int) -> None:
        holding[i].set()
        await let_go.wait()

    a, b = gate_over(pools[0], 2.0), gate_over(pools[1], 2.0)
    holders = [asyncio.create_task(a.run(lambda _grant, i=i: hold(i), call(a))) for i in range(2)]
    await asyncio.gather(*(h.wait() for h in holding))
    waiter = asyncio.create_task(b.run(lambda _grant: asyncio.sleep(0, "got it"), call(b)))
    await asyncio.sleep(0.05)
    assert not waiter.done()
    started = time.perf_counter()
    let_go.set()
    assert await waiter == "got it"
    # Woken by the release, well inside its 2 s acquire timeout (a margin a loaded machine keeps).
    assert time.perf_counter() - started < 1.5
    await asyncio.gather(*holders)


async def test_background_keeps_one_slot_free_for_visitors_across_replicas(pools: list[RedisSlotPool]) -> None:
    lease = await pools[0].try_acquire(Priority.INTERACTIVE)
    assert lease is not None
    assert await pools[1].try_acquire(Priority.BACKGROUND) is None
    second = await pools[2].try_acquire(Priority.INTERACTIVE)
    assert second is not None
    await pools[0].release(lease)
    await pools[2].release(second)
    idle = await pools[1].try_acquire(Priority.BACKGROUND)
    assert idle is not None
    await pools[1].release(idle)


async def test_a_lease_of_a_dead_replica_expires(pools: list[RedisSlotPool]) -> None:
    orphan = await pools[0].try_acquire(Priority.INTERACTIVE)
    other = await pools[0].try_acquire(Priority.INTERACTIVE)
    assert orphan is not None and other is not None
    # The replica "dies": its renewals stop, nobody releases.
    pools[0].keeper.stop()
    assert await pools[1].try_acquire(Priority.INTERACTIVE) is None
    started = time.perf_counter()
    lease = await pools[1].acquire(Priority.INTERACTIVE, timeout_s=3.0)
    assert lease is not None
    assert time.perf_counter() - started <= 2.5  # about the 1 s lease, not the 3 s acquire timeout
    await pools[1].release(lease)


async def test_a_held_lease_is_renewed_beyond_its_ttl(pools: list[RedisSlotPool]) -> None:
    lease = await pools[0].try_acquire(Priority.INTERACTIVE)
    assert lease is not None
    await asyncio.sleep(1.6)  # longer than the 1 s lease: only renewal keeps it
    assert (await pools[1].occupancy()).in_use == 1
    await pools[0].release(lease)
    assert (await pools[1].occupancy()).in_use == 0


@pytest.fixture
def private_redis() -> Iterator[tuple[str, int]]:
    require("redis-server")
    require("redis-cli")
    binary = shutil.which("redis-server")
    assert binary is not None
    port = free_port()
    yield binary, port
    subprocess.run(["redis-cli", "-p", str(port), "shutdown", "nosave"], capture_output=True, check=False)


def start_redis(binary: str, port: int) -> None:
    subprocess.run(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "yes"],
        check=True,
        capture_output=True,
    )
    wait_for_sync(
        lambda: subprocess.run(["redis-cli", "-p", str(port), "ping"], capture_output=True).stdout.strip() == b"PONG",
        5,
        "the private redis to start",
        poll_s=0.05,
    )


@pytest.mark.process
async def test_redis_down_fails_safe_as_busy_and_recovers(private_redis: tuple[str, int]) -> None:
    binary, port = private_redis
    start_redis(binary, port)
    pool = RedisSlotPool(f"redis://127.0.0.1:{port}/0", slots=2, name="down-test", lease_s=1.0)
    gate = gate_over(pool)
    try:
        assert await gate.run(lambda _grant: asyncio.sleep(0, "up"), call(gate)) == "up"
        subprocess.run(["redis-cli", "-p", str(port), "shutdown", "nosave"], capture_output=True, check=False)
        with pytest.raises(LlmBusy) as shed:
            await gate.run(lambda _grant: asyncio.sleep(0, "never"), call(gate))
        assert shed.value.reason == "gate_unavailable"
        with pytest.raises(PoolUnavailable):
            await gate.try_run(lambda _grant: asyncio.sleep(0), call(gate, route="health"))
        start_redis(binary, port)
        assert await gate.run(lambda _grant: asyncio.sleep(0, "again"), call(gate)) == "again"
    finally:
        await pool.aclose()
