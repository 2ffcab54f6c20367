"""The gate's policy as tables: each pure function of ``gate/policy.py`` and its Lua twin run by Redis
(``lua/policy.lua``, or the sorted-set step the scripts take) give the same answer on every row."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from feedback_intelligence.gate import policy
from feedback_intelligence.gate.slots import Priority
from feedback_intelligence.redis_leases import lua_script

REDIS = "redis://127.0.0.1:6379/0"
VISITOR, BATCH = Priority.INTERACTIVE, Priority.BACKGROUND


@pytest.fixture
async def redis_client() -> AsyncIterator[aioredis.Redis]:
    client = aioredis.from_url(REDIS)
    yield client
    await client.aclose()


async def lua(client: aioredis.Redis, expression: str, *args: object) -> object:
    script = lua_script("feedback_intelligence.gate", "policy.lua") + f"\nreturn {expression}"
    return await client.eval(script, 0, *args)


# -- admits: may a priority take a slot at all -----------------------------------------------------

# priority, slots, in use, reserve, visitors waiting -> admitted
ADMITS = [
    (VISITOR, 2, 0, 1, 0, True),  # an idle gate
    (VISITOR, 2, 1, 1, 0, True),  # a visitor takes the last free slot
    (VISITOR, 2, 2, 1, 0, False),  # every slot held
    (VISITOR, 2, 1, 1, 3, True),  # waiting visitors do not hold a visitor back (the pool keeps them in order)
    (VISITOR, 1, 0, 1, 0, True),  # the reserve never applies to visitors
    (VISITOR, 2, 3, 1, 0, False),  # over-full (leases of a shrunk gate): nothing more
    (BATCH, 2, 0, 1, 0, True),  # background work on an idle gate
    (BATCH, 2, 1, 1, 0, False),  # ...never takes the last free slot
    (BATCH, 3, 1, 1, 0, True),  # two free, one kept: it may take one
    (BATCH, 2, 0, 1, 1, False),  # never ahead of a waiting visitor
    (BATCH, 2, 0, 0, 0, True),  # no reserve: any free slot
    (BATCH, 2, 2, 0, 0, False),  # no reserve, nothing free
    (BATCH, 2, 0, 2, 0, False),  # a reserve as large as the gate keeps everything for visitors
    (BATCH, 1, 0, 1, 0, False),  # one slot and a reserve of one: background never runs
]
ADMITS_IDS = [f"{p.value}-{s}slots-{u}used-r{r}-w{w}" for p, s, u, r, w, _ in ADMITS]


@pytest.mark.parametrize(("priority", "slots", "in_use", "reserve", "waiting", "expected"), ADMITS, ids=ADMITS_IDS)
def test_admits(priority: Priority, slots: int, in_use: int, reserve: int, waiting: int, expected: bool) -> None:
    assert policy.admits(priority, slots=slots, in_use=in_use, reserve=reserve, interactive_waiting=waiting) is expected


@pytest.mark.redis
@pytest.mark.parametrize(("priority", "slots", "in_use", "reserve", "waiting", "expected"), ADMITS, ids=ADMITS_IDS)
async def test_the_lua_admission_agrees(
    redis_client: aioredis.Redis,
    priority: Priority,
    slots: int,
    in_use: int,
    reserve: int,
    waiting: int,
    expected: bool,
) -> None:
    expression = (
        "admits(ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])) and 1 or 0"
    )
    answer = await lua(redis_client, expression, priority.value, slots, in_use, reserve, waiting)
    assert bool(answer) is expected


# -- may_take: may the waiter of rank r (or an arrival that passes nobody ahead of it) take a slot ---

# priority, rank, slots, in use, reserve, visitors waiting -> takes a slot
MAY_TAKE = [
    (VISITOR, 0, 2, 0, 1, 0, True),  # the head of an idle gate
    (VISITOR, 1, 2, 0, 1, 1, True),  # second in line, two free slots: one each
    (VISITOR, 2, 2, 0, 1, 2, False),  # third in line, two free slots: those ahead take them
    (VISITOR, 1, 2, 1, 1, 2, False),  # one free slot is the head's, not the second's
    (VISITOR, 0, 2, 2, 1, 1, False),  # nothing free, even for the head
    (VISITOR, 0, 1, 0, 1, 0, True),  # the reserve is never counted against visitors
    (BATCH, 0, 3, 0, 1, 0, True),  # background head, room beyond the reserve
    (BATCH, 1, 3, 0, 1, 0, True),  # two slots beyond the reserve: the second background waiter too
    (BATCH, 2, 3, 0, 1, 0, False),  # ...but not a third: the reserve stays free
    (BATCH, 0, 3, 1, 1, 0, True),  # one slot beyond the reserve: the head's
    (BATCH, 1, 3, 1, 1, 0, False),  # ...not the second's
    (BATCH, 0, 3, 0, 1, 1, False),  # a visitor waits: background defers whatever its rank
    (BATCH, 0, 2, 1, 1, 0, False),  # only the reserve is free
]
MAY_TAKE_IDS = [f"{p.value}-rank{k}-{s}slots-{u}used-r{r}-w{w}" for p, k, s, u, r, w, _ in MAY_TAKE]


@pytest.mark.parametrize(
    ("priority", "rank", "slots", "in_use", "reserve", "waiting", "expected"), MAY_TAKE, ids=MAY_TAKE_IDS
)
def test_may_take(
    priority: Priority, rank: int, slots: int, in_use: int, reserve: int, waiting: int, expected: bool
) -> None:
    found = policy.may_take(priority, rank, slots=slots, in_use=in_use, reserve=reserve, interactive_waiting=waiting)
    assert found is expected


@pytest.mark.redis
@pytest.mark.parametrize(
    ("priority", "rank", "slots", "in_use", "reserve", "waiting", "expected"), MAY_TAKE, ids=MAY_TAKE_IDS
)
async def test_the_lua_rank_rule_agrees(
    redis_client: aioredis.Redis,
    priority: Priority,
    rank: int,
    slots: int,
    in_use: int,
    reserve: int,
    waiting: int,
    expected: bool,
) -> None:
    expression = (
        "may_take(ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]),"
        " tonumber(ARGV[6])) and 1 or 0"
    )
    answer = await lua(redis_client, expression, priority.value, rank, slots, in_use, reserve, waiting)
    assert bool(answer) is expected


# -- served_next: which queue a free slot goes to ---------------------------------------------------

# slots, in use, reserve, visitors waiting, background waiting -> served
SERVED = [
    (2, 1, 1, 1, 1, VISITOR),  # a visitor before background work
    (2, 1, 1, 0, 1, None),  # the last free slot is the reserve: background waits
    (3, 1, 1, 0, 1, BATCH),  # room beyond the reserve: background is served
    (2, 2, 1, 1, 1, None),  # nothing free
    (2, 0, 0, 0, 0, None),  # nobody waits
    (2, 1, 0, 0, 2, BATCH),  # no reserve: background takes any free slot
    (1, 0, 1, 1, 0, VISITOR),  # one slot, a reserve of one: still the visitor's
]
SERVED_IDS = [f"{s}slots-{u}used-r{r}-w{w}-b{b}" for s, u, r, w, b, _ in SERVED]


@pytest.mark.parametrize(("slots", "in_use", "reserve", "waiting", "background", "expected"), SERVED, ids=SERVED_IDS)
def test_served_next(
    slots: int, in_use: int, reserve: int, waiting: int, background: int, expected: Priority | None
) -> None:
    found = policy.served_next(
        slots=slots, in_use=in_use, reserve=reserve, interactive_waiting=waiting, background_waiting=background
    )
    assert found is expected


@pytest.mark.redis
@pytest.mark.parametrize(("slots", "in_use", "reserve", "waiting", "background", "expected"), SERVED, ids=SERVED_IDS)
async def test_the_lua_served_queue_agrees(
    redis_client: aioredis.Redis,
    slots: int,
    in_use: int,
    reserve: int,
    waiting: int,
    background: int,
    expected: Priority | None,
) -> None:
    expression = (
        "served_next(tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]))"
    )
    answer = await lua(redis_client, expression, slots, in_use, reserve, waiting, background)
    assert (None if answer is None else Priority(answer.decode())) is expected  # type: ignore[union-attr]


# -- next_waiter: who heads a queue (least key, then arrival) ---------------------------------------
# The Redis queues are sorted sets by score whose members start with the arrival (fixed width), so
# the head is the first member: the twin is ZRANGE 0 0 over the same rows.

# rows of (waiter, key, arrival) -> the head
HEADS = [
    ([("a", 3.0, 1), ("b", 1.0, 2), ("c", 2.0, 3)], "b"),  # least attained service first
    ([("a", 1.0, 2), ("b", 1.0, 1)], "b"),  # equals: the earlier arrival
    ([("a", 0.0, 5), ("b", 0.0, 3), ("c", 0.0, 4)], "b"),  # first come (every key equal)
    ([("a", -2.5, 9), ("b", 7.0, 1)], "a"),  # scores may be negative (log of small service)
    ([], None),
]


@pytest.mark.parametrize(("rows", "expected"), HEADS)
def test_next_waiter(rows: list[tuple[str, float, int]], expected: str | None) -> None:
    assert policy.next_waiter(rows) == expected


@pytest.mark.redis
@pytest.mark.parametrize(("rows", "expected"), HEADS)
async def test_the_redis_queue_head_agrees(
    redis_client: aioredis.Redis, rows: list[tuple[str, float, int]], expected: str | None
) -> None:
    script = (
        "for i = 1, #ARGV, 3 do redis.call('ZADD', KEYS[1], ARGV[i + 1], string.format('%016d', ARGV[i + 2]) .."
        " ':' .. ARGV[i]) end local head = redis.call('ZRANGE', KEYS[1], 0, 0) redis.call('DEL', KEYS[1])"
        " if head[1] then return string.sub(head[1], 18) end return false"
    )
    key = f"test-policy-head-{id(rows)}"
    answer = await redis_client.eval(script, 1, key, *[v for row in rows for v in row])
    assert (None if answer is None else answer.decode()) == expected


# -- preemption_victim: the most recently offered background call -----------------------------------

# offers (lease -> when offered) -> the victim; lua/preempt.lua takes the highest score still held
VICTIMS = [
    ({"old": 1.0, "new": 5.0, "mid": 3.0}, "new"),
    ({"only": 2.0}, "only"),
    ({}, None),
]


@pytest.mark.parametrize(("offers", "expected"), VICTIMS)
def test_preemption_victim(offers: dict[str, float], expected: str | None) -> None:
    assert policy.preemption_victim(offers) == expected


@pytest.mark.redis
@pytest.mark.parametrize(("offers", "expected"), VICTIMS)
async def test_the_lua_victim_agrees(
    redis_client: aioredis.Redis, offers: dict[str, float], expected: str | None
) -> None:
    leases, offered, preempted = (f"test-policy-victim-{id(offers)}-{k}" for k in ("leases", "offers", "preempted"))
    for lease, at in offers.items():
        await redis_client.zadd(leases, {lease: 2**50})  # held far into the future
        await redis_client.zadd(offered, {lease: at})
    script = lua_script("feedback_intelligence.gate", "preempt.lua")
    try:
        found = await redis_client.eval(script, 3, leases, offered, preempted, 10_000, "0")
        if found is None:
            assert expected is None
        else:
            assert offers[expected] == float(found)  # type: ignore[index]
    finally:
        await redis_client.delete(leases, offered, preempted)
