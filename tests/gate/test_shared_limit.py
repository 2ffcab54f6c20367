"""A limit the replicas share (real Redis at 127.0.0.1:6379): three pools of one backend, as three replicas
hold them, admit against one Gradient2 limit kept in Redis and fed by each replica's completed calls."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from feedback_intelligence.config import load_settings
from feedback_intelligence.gate.factory import build_pool
from feedback_intelligence.gate.gate import LlmGate
from feedback_intelligence.gate.limit import Gradient2Limit, Gradient2Settings
from feedback_intelligence.gate.pooled import PooledSlotPool
from feedback_intelligence.gate.redis_pool import RedisLease, RedisSlotPool
from feedback_intelligence.gate.shared_limit import parse
from feedback_intelligence.gate.slots import Priority
from tests.support.waiting import wait_for

pytestmark = pytest.mark.redis
REDIS = "redis://127.0.0.1:6379/0"
SLOTS = 12  # the declared slots: the shared limit's ceiling
SETTINGS = Gradient2Settings(floor=2, ceiling=SLOTS)
TOKENS = 100
FAST_S = 0.02 * TOKENS  # 20 ms a token
VISITOR = Priority.INTERACTIVE


@pytest.fixture
async def replicas() -> AsyncIterator[list[RedisSlotPool]]:
    """One backend's pool on three replicas, under a gate name of its own."""
    name = f"shared-limit-{uuid.uuid4().hex[:8]}"
    made = [
        RedisSlotPool(REDIS, slots=SLOTS, background_reserve=0, name=name, lease_s=1.0, adaptive=SETTINGS)
        for _ in range(3)
    ]
    yield made
    for pool in made:
        await pool.aclose()


@pytest.fixture
async def redis_client() -> AsyncIterator[aioredis.Redis]:
    client = aioredis.from_url(REDIS, decode_responses=True)
    yield client
    await client.aclose()


def limit_key(pool: RedisSlotPool) -> str:
    assert pool.limit is not None
    return pool.limit.key


async def fill(*pools: RedisSlotPool) -> list[tuple[RedisSlotPool, RedisLease]]:
    """Take slots on ``pools`` in turn until every one of them refuses: whatever the shared limit lets in."""
    taken: list[tuple[RedisSlotPool, RedisLease]] = []
    progress = True
    while progress:
        progress = False
        for pool in pools:
            lease = await pool.try_acquire(VISITOR)
            if lease is not None:
                taken.append((pool, lease))
                progress = True
    return taken


async def release(taken: list[tuple[RedisSlotPool, RedisLease]]) -> None:
    for pool, lease in taken:
        await pool.release(lease)
    taken.clear()


async def raise_limit(
    feeder: RedisSlotPool, others: list[RedisSlotPool], at_least: int
) -> list[tuple[RedisSlotPool, RedisLease]]:
    """Feed fast calls through ``feeder`` while ``others`` hold every slot the limit allows (so the
    limit may grow: its calls are in flight) until it reaches ``at_least``; the leases held."""
    held = await fill(*others)
    for _ in range(300):
        if len(held) >= at_least:
            return held
        await feeder.observe(FAST_S, TOKENS)
        held += await fill(*others)
    raise AssertionError(f"the shared limit did not reach {at_least}: {len(held)} held")


async def test_samples_through_one_replica_move_the_limit_the_others_admit_against(
    replicas: list[RedisSlotPool],
) -> None:
    a, b, c = replicas
    held = await fill(b, c)
    assert len(held) == SETTINGS.floor, "before any sample the replicas admit the floor between them"
    moves = 0
    for _ in range(300):
        if len(held) >= 8:
            break
        change = await a.observe(FAST_S, TOKENS)
        moves += change is not None
        held += await fill(b, c)
        # b and c admitted exactly up to the limit a's samples set: no more, no fewer.
        assert len(held) == a.slots
    assert len(held) >= 8 and moves >= 2
    for pool in (b, c):
        occupancy = await pool.occupancy()
        assert occupancy.adaptive and occupancy.slots == a.slots == pool.slots
        assert occupancy.in_use == len(held)
        assert f"-> {a.slots}: " in occupancy.limit_reason and "ms/token" in occupancy.limit_reason
    await release(held)


async def test_the_shared_state_follows_the_in_process_arithmetic_sample_for_sample(
    replicas: list[RedisSlotPool], redis_client: aioredis.Redis
) -> None:
    """One arithmetic (gate/limit.py): samples fed in turn through three replicas leave in Redis exactly
    the state one in-process limit reaches on the same sequence, to the last bit of the average."""
    held = await raise_limit(replicas[0], replicas[1:], at_least=6)
    in_flight = len(held)
    local = Gradient2Limit("gpu", SETTINGS)
    stored = await redis_client.hgetall(limit_key(replicas[0]))
    local.state = parse([part for pair in stored.items() for part in pair], SETTINGS)[1]
    latencies = [FAST_S, FAST_S * 4, FAST_S * 1.1, FAST_S * 6, FAST_S, FAST_S * 0.5, FAST_S * 3] * 12
    prompts = [300, 2000, 0, 500, 4000]  # the prompt's length is part of the state too (ADR 0080)
    for i, latency in enumerate(latencies):
        pool = replicas[i % 3]
        shared = await pool.observe(latency, TOKENS, prompts[i % 5])
        mine = local.sample(latency, TOKENS, in_flight, prompts[i % 5])
        assert (shared is None) == (mine is None), f"sample {i}: one moved, the other did not"
        if shared is not None and mine is not None:
            assert (shared.before, shared.after, shared.reason) == (mine.before, mine.after, mine.reason)
        assert pool.slots == local.current
    stored = await redis_client.hgetall(limit_key(replicas[0]))
    assert float(stored["estimate"]) == local.state.estimate and float(stored["long"]) == local.state.long
    assert int(stored["samples"]) == local.state.samples and int(stored["limit"]) == local.current
    assert parse([part for pair in stored.items() for part in pair], SETTINGS)[1] == local.state, "every field"
    assert int(stored["updated_ms"]) > 0
    await release(held)


async def test_samples_racing_from_three_replicas_are_each_counted_once(
    replicas: list[RedisSlotPool], redis_client: aioredis.Redis
) -> None:
    await asyncio.gather(*(pool.observe(FAST_S, TOKENS) for pool in replicas for _ in range(20)))
    stored = await redis_client.hgetall(limit_key(replicas[0]))
    waiting = sum(len(pool.limit._pending) for pool in replicas if pool.limit is not None)
    assert int(stored["samples"]) + waiting == 60, "a write that lost the race is applied again, never twice"
    assert int(stored["version"]) >= 3


async def test_with_the_limit_at_n_concurrent_acquires_across_three_replicas_never_hold_more(
    replicas: list[RedisSlotPool],
) -> None:
    warmup = await raise_limit(replicas[0], replicas[1:], at_least=5)
    await release(warmup)
    limit = (await replicas[2].occupancy()).slots
    assert SETTINGS.floor < limit < SLOTS, "the limit, not the declared slots, is what admits"
    held = peak = 0
    full, let_go = asyncio.Event(), asyncio.Event()

    async def call(pool: RedisSlotPool) -> bool:
        nonlocal held, peak
        lease = await pool.acquire(VISITOR, timeout_s=0.5)
        if lease is None:
            return False
        held += 1
        peak = max(peak, held)
        if held == limit:
            full.set()
        await let_go.wait()
        held -= 1
        await pool.release(lease)
        return True

    calls = [asyncio.ensure_future(call(pool)) for pool in replicas for _ in range(limit + 2)]
    await asyncio.wait_for(full.wait(), 5)
    assert (await replicas[1].occupancy()).in_use == limit
    # Everyone else gives up at the end of the bounded wait: no slot came free for them.
    await wait_for(lambda: sum(task.done() for task in calls) == len(calls) - limit, 5, "the others to be shed")
    assert peak == limit and (await replicas[0].occupancy()).in_use == limit
    let_go.set()
    admitted = await asyncio.gather(*calls)
    assert sum(admitted) == limit and peak == limit
    assert (await replicas[2].occupancy()).in_use == 0


async def test_a_replica_that_dies_leaves_the_limit_and_the_held_count_right(
    replicas: list[RedisSlotPool], redis_client: aioredis.Redis
) -> None:
    dead, b, c = replicas
    warmup = await raise_limit(b, [c], at_least=5)
    await release(warmup)
    limit = (await b.occupancy()).slots
    assert SETTINGS.floor < limit < SLOTS
    before = await redis_client.hgetall(limit_key(b))
    # The replica fills the limit, then its process dies: no release, no renewal, and a sample it
    # had read the state for never written.
    orphans = await fill(dead)
    assert len(orphans) == limit
    dead.keeper.stop()
    assert dead.limit is not None
    await dead.limit._read(keys=[dead.limit.key, dead.limit.gate_keys[0]])
    assert await b.try_acquire(VISITOR) is None
    # Its leases lapse a lease time later; a waiter on another replica gets a slot then.
    first = await c.acquire(VISITOR, timeout_s=5.0)
    assert first is not None
    await wait_for(lambda: _in_use(c, 1), 5, "every lease of the dead replica to lapse")
    held = [(c, first), *await fill(b, c)]
    assert len(held) == limit, "the survivors hold exactly the limit: no slot leaked, none gained"
    assert (await b.occupancy()).in_use == limit
    assert await redis_client.hgetall(limit_key(b)) == before, "the state is as the last whole write left it"
    await release(held)


async def _in_use(pool: RedisSlotPool, count: int) -> bool:
    return (await pool.occupancy()).in_use == count


async def test_admission_keeps_the_stored_limit_within_the_floor_and_the_declared_slots(
    replicas: list[RedisSlotPool], redis_client: aioredis.Redis
) -> None:
    """A hand-edited or stale hash cannot open the backend beyond its slots nor close it below its floor."""
    a, b, _ = replicas
    await redis_client.hset(limit_key(a), "limit", 1000)
    held = await fill(a, b)
    assert len(held) == SLOTS
    await release(held)
    await redis_client.hset(limit_key(a), "limit", 0)
    held = await fill(a, b)
    assert len(held) == SETTINGS.floor
    await release(held)
    await redis_client.delete(limit_key(a))  # the operator's reset: back to the floor
    assert (await a.occupancy()).slots == SETTINGS.floor


async def test_a_raised_limit_wakes_a_waiter_on_another_replica(replicas: list[RedisSlotPool]) -> None:
    a, b, _ = replicas
    name = a.limit.key.removeprefix("fi:gate:").removesuffix(":limit") if a.limit else ""
    # A replica that only a message can wake in time: its own re-check comes after the wait is over.
    slow = RedisSlotPool(REDIS, slots=SLOTS, background_reserve=0, name=name, recheck_s=30, adaptive=SETTINGS)
    try:
        held = await fill(b)
        waiter = asyncio.ensure_future(slow.acquire(VISITOR, timeout_s=10))
        await wait_for(lambda: _waiting(b, 1), 5, "the waiter to queue")
        change = None
        while change is None:
            change = await a.observe(FAST_S, TOKENS)
        assert change.after > change.before
        lease = await asyncio.wait_for(waiter, 5)
        assert lease is not None, "the raised limit's slot went to the waiter"
        await slow.release(lease)
        await release(held)
    finally:
        await slow.aclose()


async def _waiting(pool: RedisSlotPool, count: int) -> bool:
    return (await pool.occupancy()).waiting_interactive == count


def test_with_redis_an_adaptive_backend_gets_the_shared_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {
        "FI_LLM_BACKEND": "openai",
        "FI_LLM_SLOTS": "16",
        "FI_LLM_ADAPTIVE_LIMIT": "true",
        "FI_REDIS_URL": REDIS,
    }.items():
        monkeypatch.setenv(name, value)
    member = next(iter(build_pool(load_settings()).members.values()))
    assert isinstance(member, RedisSlotPool) and member.limit is not None
    assert (member.declared, member.slots, member.limit.settings.floor) == (16, 2, 2)


async def test_a_replica_that_fed_nothing_shows_the_shared_limit_in_its_views_and_metrics(
    replicas: list[RedisSlotPool],
) -> None:
    a, b, c = replicas
    held = await raise_limit(a, [b], at_least=4)
    gate = LlmGate(PooledSlotPool.single(c, "gpu"), acquire_timeout_s=0.5, call_timeout_s=10)
    assert gate.metrics.registry.get_sample_value("fi_backend_slots", {"backend": "gpu"}) == SETTINGS.floor
    rows = await gate.backends()  # what /health, /admin/status, feedctl status and /metrics read
    assert rows[0]["adaptiveLimit"] is True and rows[0]["slots"] == a.slots == len(held)
    assert f"-> {a.slots}: " in rows[0]["limitReason"]
    assert gate.metrics.registry.get_sample_value("fi_backend_slots", {"backend": "gpu"}) == a.slots
    assert gate.metrics.registry.get_sample_value("fi_gate_slots") == a.slots
    assert rows[0]["limitYields"] is False
    await release(held)


async def test_a_limit_that_yields_to_another_load_shows_it_on_every_replica(
    replicas: list[RedisSlotPool], redis_client: aioredis.Redis
) -> None:
    """Whether the shared limit yields (ADR 0077) lives in its hash and every replica reads it."""
    a, b, _ = replicas
    held = await raise_limit(a, [b], at_least=4)
    await redis_client.hset(limit_key(a), "neighbour", "1")  # as a replica's write leaves it
    gate = LlmGate(PooledSlotPool.single(b, "gpu"), acquire_timeout_s=0.5, call_timeout_s=10)
    assert (await gate.backends())[0]["limitYields"] is True
    assert gate.metrics.registry.get_sample_value("fi_backend_limit_yielding", {"backend": "gpu"}) == 1
    await release(held)


async def test_a_hash_no_replica_could_have_written_never_fails_the_call_that_feeds_it(
    replicas: list[RedisSlotPool], redis_client: aioredis.Redis
) -> None:
    a = replicas[0]
    await redis_client.hset(limit_key(a), mapping={"estimate": "many", "long": "1", "samples": "1", "version": "3"})
    assert await a.observe(FAST_S, TOKENS) is None
    assert a.limit is not None and a.limit._pending, "the sample waits for a state it can read"
    await redis_client.delete(limit_key(a))  # the operator's reset
    await a.observe(FAST_S, TOKENS)
    assert int(await redis_client.hget(limit_key(a), "samples") or 0) == 2 and not a.limit._pending
