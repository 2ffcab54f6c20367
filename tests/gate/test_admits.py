"""The one admission rule, as a table: the Python ``admits`` and its Lua twin run by Redis give the same answers."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from feedback_intelligence.gate.slots import Priority, admits
from feedback_intelligence.redis_leases import lua_script

REDIS = "redis://127.0.0.1:6379/0"
VISITOR, BATCH = Priority.INTERACTIVE, Priority.BACKGROUND

# priority, slots, in use, reserve, visitors waiting -> admitted
CASES = [
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
IDS = [f"{p.value}-{s}slots-{u}used-r{r}-w{w}" for p, s, u, r, w, _ in CASES]


@pytest.mark.parametrize(("priority", "slots", "in_use", "reserve", "waiting", "expected"), CASES, ids=IDS)
def test_admits(priority: Priority, slots: int, in_use: int, reserve: int, waiting: int, expected: bool) -> None:
    assert admits(priority, slots=slots, in_use=in_use, reserve=reserve, interactive_waiting=waiting) is expected


@pytest.fixture
async def redis_client() -> AsyncIterator[aioredis.Redis]:
    client = aioredis.from_url(REDIS)
    yield client
    await client.aclose()


@pytest.mark.redis
@pytest.mark.parametrize(("priority", "slots", "in_use", "reserve", "waiting", "expected"), CASES, ids=IDS)
async def test_the_lua_admission_agrees(
    redis_client: aioredis.Redis,
    priority: Priority,
    slots: int,
    in_use: int,
    reserve: int,
    waiting: int,
    expected: bool,
) -> None:
    script = lua_script("feedback_intelligence.gate", "admits.lua") + (
        "\nreturn admits(ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]))"
        " and 1 or 0"
    )
    answer = await redis_client.eval(script, 0, priority.value, slots, in_use, reserve, waiting)
    assert bool(answer) is expected
