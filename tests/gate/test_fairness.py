"""Fair shares: waiters of one priority are served least attained service of their visitor first.

The order rules run over both pools: in-process (a ledger on a clock the test moves) and Redis (two
pools on one gate name = two replicas; Redis's own clock, which the test waits out). Every test ends
with no slot held and nobody waiting.
"""

from __future__ import annotations

import asyncio
import math
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
import redis.asyncio as aioredis

from feedback_intelligence.gate.context import CallContext
from feedback_intelligence.gate.fairness import (
    FORGET_HALF_LIVES,
    RECENT_S,
    GateOrder,
    ServiceLedger,
    score_of,
    service_of,
)
from feedback_intelligence.gate.gate import LlmGate
from feedback_intelligence.gate.local import LocalSlotPool
from feedback_intelligence.gate.pooled import PooledSlotPool
from feedback_intelligence.gate.redis_pool import RedisSlotPool
from feedback_intelligence.gate.slots import Priority
from feedback_intelligence.instants.clock import ManualClock
from feedback_intelligence.redis_leases import lua_script
from tests.support.kinds import POOL_KINDS
from tests.support.waiting import wait_for

REDIS = "redis://127.0.0.1:6379/0"
LIVE = Priority.INTERACTIVE


@dataclass
class Rig:
    """Two views of one gate (two replicas on Redis; the same pool twice in-process) and its clock."""

    kind: str
    pools: list[Any]
    clock: ManualClock = field(default_factory=ManualClock)
    redis: aioredis.Redis | None = None

    async def advance(self, seconds: float) -> None:
        """Let ``seconds`` pass on the gate's clock: move the test clock, or wait for Redis's."""
        if self.redis is None:
            self.clock.advance(seconds)
            return
        start = await self._redis_now()

        async def moved() -> bool:
            return await self._redis_now() >= start + seconds

        await wait_for(moved, what=f"Redis's clock to move {seconds} s")

    async def _redis_now(self) -> float:
        assert self.redis is not None
        sec, usec = await self.redis.time()
        return sec + usec / 1e6

    async def idle(self) -> None:
        for pool in self.pools:
            occupancy = await pool.occupancy()
            assert occupancy.in_use == 0 and occupancy.waiting == 0


async def make_rig(kind: str, slots: int, order: GateOrder, half_life_s: float) -> Rig:
    if kind == "local":
        clock = ManualClock()
        pool = LocalSlotPool(slots, 0, ServiceLedger(half_life_s, order, clock=clock))
        return Rig(kind, [pool, pool], clock)
    name = f"fair-{uuid.uuid4().hex[:8]}"
    pools = [
        RedisSlotPool(REDIS, slots=slots, background_reserve=0, name=name, half_life_s=half_life_s, order=order)
        for _ in range(2)
    ]
    return Rig(kind, pools, redis=aioredis.from_url(REDIS))


@pytest.fixture(params=POOL_KINDS)
async def rigs(request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    made: list[Rig] = []

    async def make(slots: int = 1, order: GateOrder = GateOrder.FAIR, half_life_s: float = 60.0) -> Rig:
        rig = await make_rig(request.param, slots, order, half_life_s)
        made.append(rig)
        return rig

    yield make
    for rig in made:
        for pool in {id(p): p for p in rig.pools}.values():
            await pool.aclose()
        if rig.redis is not None:
            await rig.redis.aclose()


async def served(rig: Rig, visitor: str, hold_s: float = 0.0, pool: int = 0) -> None:
    """One call of ``visitor`` that holds its slot for ``hold_s`` on the gate's clock."""
    lease = await rig.pools[pool].acquire(LIVE, 5.0, visitor)
    assert lease is not None
    if hold_s:
        await rig.advance(hold_s)
    await rig.pools[pool].release(lease)


async def waiting(rig: Rig, count: int) -> None:
    async def queued() -> bool:
        return (await rig.pools[0].occupancy()).waiting_interactive == count

    await wait_for(queued, what=f"{count} waiters")


async def first_of(tasks: dict[str, asyncio.Task[Any]]) -> str:
    done, _ = await asyncio.wait(tasks.values(), timeout=5, return_when=asyncio.FIRST_COMPLETED)
    assert done, "nobody was served"
    return next(name for name, task in tasks.items() if task in done)


@pytest.mark.parametrize(("order", "first"), [(GateOrder.FAIR, "quiet"), (GateOrder.FIFO, "greedy")])
async def test_the_visitor_with_less_attained_service_is_served_first(rigs: Any, order: GateOrder, first: str) -> None:
    rig = await rigs(order=order)
    await served(rig, "quiet")  # a call that is over at once: next to no service
    await served(rig, "greedy", hold_s=0.05, pool=1)  # a long one, through the other replica
    holder = await rig.pools[0].acquire(LIVE, 5.0, "holder")
    assert holder is not None
    # greedy asks first; quiet asks later, on the other replica
    tasks = {"greedy": asyncio.create_task(rig.pools[1].acquire(LIVE, 5.0, "greedy"))}
    await waiting(rig, 1)
    tasks["quiet"] = asyncio.create_task(rig.pools[0].acquire(LIVE, 5.0, "quiet"))
    await waiting(rig, 2)

    await rig.pools[0].release(holder)
    winner = await first_of(tasks)
    assert winner == first  # least attained service first; first come only when told so
    other = "greedy" if winner == "quiet" else "quiet"
    assert not tasks[other].done()
    await rig.pools[0].release(tasks[winner].result())
    lease = await asyncio.wait_for(tasks[other], 5)
    await rig.pools[1].release(lease)
    await rig.idle()


async def test_a_new_visitor_starts_at_the_least_served_active_visitor_not_at_zero(rigs: Any) -> None:
    rig = await rigs(slots=2)
    # a and b are active at once (b arrives while a is new too: both start at zero)
    a = await rig.pools[0].acquire(LIVE, 5.0, "a")
    b = await rig.pools[1].acquire(LIVE, 5.0, "b")
    await rig.advance(0.05)
    await rig.pools[1].release(b)  # b: ~0.05 slot-seconds
    await rig.advance(0.05)
    await rig.pools[0].release(a)  # a: ~0.10 slot-seconds
    c = await rig.pools[0].acquire(LIVE, 5.0, "c")  # new now: level with b, the least served active visitor
    assert c is not None
    attained = await rig.pools[1].attained()  # read while c holds its slot, before it is charged anything
    await rig.pools[0].release(c)
    assert attained["b"] > 0.04
    assert attained["c"] == pytest.approx(attained["b"], rel=1e-9)
    assert attained["c"] < attained["a"]
    await rig.idle()


async def test_time_away_banks_no_credit_but_a_heavy_user_keeps_its_debt() -> None:
    clock = ManualClock()
    ledger = ServiceLedger(60.0, clock=clock)
    shares = {"steady": 10.0, "light": 2.0, "heavy": 30.0}
    for visitor in shares:  # all at once: nobody is lifted, all start at zero
        ledger.arrive(visitor)
    for visitor, held in shares.items():
        ledger.charge(visitor, held)
        ledger.leave(visitor)
    clock.advance(RECENT_S + 1)  # everyone away
    ledger.arrive("steady")  # back: nobody else active, keeps its own (decayed) service
    ledger.charge("steady", 1.0)
    ledger.arrive("light")  # back while steady is active: lifted to steady, not left below it
    assert ledger.service("light") == pytest.approx(ledger.service("steady"))
    ledger.arrive("heavy")  # back: its own service is higher than the minimum and stays
    assert ledger.service("heavy") > ledger.service("steady")
    for visitor in ("steady", "light", "heavy"):
        ledger.leave(visitor)


def test_attained_service_decays_by_half_each_half_life() -> None:
    clock = ManualClock()
    ledger = ServiceLedger(60.0, clock=clock)
    ledger.arrive("v")
    ledger.charge("v", 8.0)
    ledger.leave("v")
    assert ledger.service("v") == pytest.approx(8.0, abs=2e-3)
    clock.advance(60)
    assert ledger.service("v") == pytest.approx(4.0, abs=2e-3)
    clock.advance(120)
    assert ledger.service("v") == pytest.approx(1.0, abs=2e-3)
    # an old heavy user and a recent light one: the decayed service decides, not the total
    ledger.arrive("recent")
    ledger.charge("recent", 2.0)
    assert ledger.key("v") < ledger.key("recent")


def test_fifo_order_ignores_service() -> None:
    ledger = ServiceLedger(60.0, GateOrder.FIFO)
    ledger.arrive("v")
    ledger.charge("v", 100.0)
    assert ledger.key("v") == ledger.key("never-seen")


def test_idle_visitors_are_forgotten() -> None:
    clock = ManualClock()
    ledger = ServiceLedger(1.0, clock=clock)
    for n in range(1000):
        ledger.arrive(f"v{n}")
        ledger.charge(f"v{n}", 1.0)
        ledger.leave(f"v{n}")
    assert len(ledger) == 1000
    clock.advance(FORGET_HALF_LIVES + 1)
    ledger.arrive("x")
    ledger.charge("x", 1.0)
    assert len(ledger) == 1


@pytest.mark.redis
async def test_idle_visitors_are_forgotten_on_redis_too() -> None:
    pool = RedisSlotPool(REDIS, slots=1, name=f"fair-{uuid.uuid4().hex[:8]}", half_life_s=0.02)
    try:
        for n in range(20):
            lease = await pool.acquire(LIVE, 1.0, f"v{n}")
            assert lease is not None
            await pool.release(lease)
        assert len(await pool.attained()) == 20

        async def forgotten() -> bool:
            lease = await pool.acquire(LIVE, 1.0, "x")
            assert lease is not None
            await pool.release(lease)
            return set(await pool.attained()) == {"x"}

        await wait_for(forgotten, what="idle visitors to be forgotten")
    finally:
        await pool.aclose()


@pytest.mark.redis
@pytest.mark.parametrize(
    ("service", "t_ms", "half_ms"), [(0.0, 1.7e12, 60_000), (3.5, 1.7e12, 60_000), (120, 5e11, 250)]
)
async def test_the_lua_scores_agree(service: float, t_ms: float, half_ms: int) -> None:
    script = lua_script("feedback_intelligence.gate", "fair.lua") + (
        "\nlocal s = fair_score_of(tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]))"
        "\nreturn {fair_fmt(s), fair_fmt(fair_service_of(s, tonumber(ARGV[2]) + tonumber(ARGV[3]), tonumber(ARGV[3])))}"
    )
    client = aioredis.from_url(REDIS)
    try:
        score, later = await client.eval(script, 0, service, t_ms, half_ms)
    finally:
        await client.aclose()
    expected = score_of(service, t_ms / 1000, half_ms / 1000)
    assert float(score) == pytest.approx(expected, rel=1e-12)
    assert float(later) == pytest.approx(service_of(expected, (t_ms + half_ms) / 1000, half_ms / 1000), abs=1e-6)
    assert float(later) == pytest.approx(service / 2, abs=1e-3)


async def test_a_waiter_passed_over_still_sheds_at_its_timeout_and_leaves_no_trace(rigs: Any) -> None:
    rig = await rigs()
    await served(rig, "quiet")
    await served(rig, "greedy", hold_s=0.05)
    holder = await rig.pools[0].acquire(LIVE, 5.0, "holder")
    assert holder is not None
    greedy = asyncio.create_task(rig.pools[1].acquire(LIVE, 0.3, "greedy"))
    await waiting(rig, 1)
    quiet = asyncio.create_task(rig.pools[0].acquire(LIVE, 5.0, "quiet"))
    await waiting(rig, 2)
    await rig.pools[0].release(holder)
    lease = await asyncio.wait_for(quiet, 5)
    assert lease is not None
    assert await asyncio.wait_for(greedy, 5) is None  # shed at its acquire timeout, not queued behind
    await rig.pools[0].release(lease)
    await rig.idle()
    if rig.redis is not None:  # and the queues (announcements, order, members by visitor) kept nothing of it
        assert await rig.redis.exists(*rig.pools[0]._gate_keys[1:7]) == 0


async def test_priorities_keep_their_meaning_over_attained_service(rigs: Any) -> None:
    rig = await rigs(slots=2)
    for pool in rig.pools:
        pool.background_reserve = 1
    holder = await rig.pools[0].acquire(LIVE, 5.0, "heavy")
    assert holder is not None
    background = asyncio.create_task(rig.pools[0].acquire(Priority.BACKGROUND, 5.0, "background:report"))
    other = await rig.pools[1].acquire(LIVE, 5.0, "heavy")  # the last slot: interactive takes it
    assert other is not None
    await rig.advance(0.05)
    await rig.pools[1].release(other)
    assert not background.done()  # the reserve stays free for visitors
    await rig.pools[0].release(holder)  # now two free: background gets one
    lease = await asyncio.wait_for(background, 5)
    assert lease is not None
    await rig.pools[0].release(lease)
    await rig.idle()


@pytest.fixture(params=POOL_KINDS)
async def backends(request: pytest.FixtureRequest) -> AsyncIterator[tuple[PooledSlotPool, Rig]]:
    """A gate over two one-slot backends whose pools share one ledger (in-process, or the gate's on Redis)."""
    if request.param == "local":
        rig = Rig("local", [])
        ledger = ServiceLedger(60.0, clock=rig.clock)
        members: dict[str, Any] = {name: LocalSlotPool(1, 0, ledger) for name in ("gpu-a", "gpu-b")}
    else:
        rig = Rig("redis", [], redis=aioredis.from_url(REDIS))
        gate = f"fair-{uuid.uuid4().hex[:8]}"
        members = {
            name: RedisSlotPool(REDIS, slots=1, background_reserve=0, name=f"{gate}:{name}", ledger=gate)
            for name in ("gpu-a", "gpu-b")
        }
    pool = PooledSlotPool(members)
    yield pool, rig
    await pool.aclose()
    if rig.redis is not None:
        await rig.redis.aclose()


async def test_over_several_backends_the_order_is_the_pools(backends: tuple[PooledSlotPool, Rig]) -> None:
    pool, rig = backends
    for visitor, held in (("quiet", 0.0), ("greedy", 0.05)):
        lease = await pool.acquire(LIVE, 1.0, visitor)
        assert lease is not None
        if held:
            await rig.advance(held)
        await pool.release(lease)
    holders = [await pool.acquire(LIVE, 1.0, "holder") for _ in range(2)]
    assert all(holders) and {h.backend for h in holders if h} == {"gpu-a", "gpu-b"}
    tasks = {"greedy": asyncio.create_task(pool.acquire(LIVE, 5.0, "greedy"))}

    def queued(count: int) -> Callable[[], Awaitable[bool]]:
        async def check() -> bool:
            return sum(o.waiting_interactive for o in (await pool.member_occupancy()).values()) == count

        return check

    await wait_for(queued(2), what="greedy waiting on both backends")
    tasks["quiet"] = asyncio.create_task(pool.acquire(LIVE, 5.0, "quiet"))
    await wait_for(queued(4), what="quiet waiting on both backends")
    # the charge of greedy was taken on one backend; the other backend's slot still goes to quiet
    await pool.release(holders[1])  # type: ignore[arg-type]
    assert await first_of(tasks) == "quiet"
    await pool.release(tasks["quiet"].result())
    await pool.release(await asyncio.wait_for(tasks["greedy"], 5))
    await pool.release(holders[0])  # type: ignore[arg-type]
    assert (await pool.occupancy()).in_use == 0


def test_every_call_names_whose_share_it_counts_against() -> None:
    assert CallContext.background("report").visitor == "background:report"
    # background work started by a request is not charged to its visitor
    assert CallContext.background("restructure").visitor == "background:restructure"
    assert CallContext.interactive("client:198.51.100.7", "interpret").visitor == "client:198.51.100.7"
    with pytest.raises(ValueError):
        CallContext("", LIVE, "interpret")  # no call reaches the gate without a visitor: no silent "anonymous"
    with pytest.raises(ValueError):
        CallContext("client:198.51.100.7", LIVE, "interpret", preemptible=True)  # only background yields
    assert math.isfinite(score_of(0.0, 0.0, 60.0))


async def test_the_operator_sees_the_largest_shares_of_a_pool_of_backends_largest_first(
    backends: tuple[PooledSlotPool, Rig],
) -> None:
    pool, rig = backends
    for visitor, held in (("light", 0.02), ("heavy", 0.2), ("medium", 0.08)):
        lease = await pool.acquire(LIVE, 1.0, visitor)
        assert lease is not None
        await rig.advance(held)
        await pool.release(lease)
    gate = LlmGate(pool, acquire_timeout_s=0.5, call_timeout_s=5)
    shares = await gate.largest_shares(count=2)
    assert [visitor for visitor, _ in shares] == ["heavy", "medium"]
    heavy = shares[0][1]
    assert 0.2 <= heavy < 0.5  # slot-seconds: what it held (plus the Redis round trips while held)
