"""A Redis waiter cancelled while a script's reply is on its way leaves nothing behind.

The scripts run in Redis whatever happens to the caller: a cancellation that arrives after the script
ran and before its reply was read used to leave a queue place (the waiter announced for its whole
acquire timeout, so background work deferred to nobody) or a granted lease (a slot taken by nobody
until the lease lapsed). Each test holds the reply back until the caller has been cancelled.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from feedback_intelligence.gate.redis_pool import RedisSlotPool
from feedback_intelligence.gate.slots import Priority

pytestmark = pytest.mark.redis

REDIS = "redis://127.0.0.1:6379/0"


@pytest.fixture
async def pool() -> AsyncIterator[RedisSlotPool]:
    pool = RedisSlotPool(REDIS, slots=1, background_reserve=0, name=f"cancel-{uuid.uuid4().hex[:8]}", lease_s=30)
    try:
        yield pool
    finally:
        await pool.aclose()


class HeldReply:
    """Wraps a pool's script: the script runs, then its reply waits until the test lets it through."""

    def __init__(self, script: Callable[..., Awaitable[Any]]) -> None:
        self.script = script
        self.ran = asyncio.Event()
        self.let_through = asyncio.Event()
        self.armed = True

    async def __call__(self, **kwargs: Any) -> Any:
        reply = await self.script(**kwargs)
        if self.armed:
            self.armed = False
            self.ran.set()
            await self.let_through.wait()
        return reply


async def cancel_after_script(waiter: asyncio.Task[Any], held: HeldReply) -> None:
    await held.ran.wait()
    waiter.cancel()
    await asyncio.sleep(0)  # the cancellation reaches the waiter before the reply does
    held.let_through.set()
    with pytest.raises(asyncio.CancelledError):
        await waiter


async def test_a_waiter_cancelled_before_its_queue_place_was_confirmed_leaves_the_queue(pool: RedisSlotPool) -> None:
    holder = await pool.acquire(Priority.INTERACTIVE, timeout_s=0)
    assert holder is not None
    held = HeldReply(pool._register)
    pool._register = held  # type: ignore[assignment]
    waiter = asyncio.create_task(pool.acquire(Priority.INTERACTIVE, timeout_s=20))
    await cancel_after_script(waiter, held)
    assert (await pool.occupancy()).waiting_interactive == 0
    await pool.release(holder)


async def test_a_caller_cancelled_before_its_granted_slot_was_read_gives_the_slot_back(pool: RedisSlotPool) -> None:
    held = HeldReply(pool._acquire)
    pool._acquire = held  # type: ignore[assignment]
    caller = asyncio.create_task(pool.acquire(Priority.INTERACTIVE, timeout_s=5))
    await cancel_after_script(caller, held)
    assert (await pool.occupancy()).in_use == 0
