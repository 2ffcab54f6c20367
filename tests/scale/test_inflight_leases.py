"""The shared per-client in-flight limit holds its places as leases (real Redis at 127.0.0.1:6379)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest

from feedback_intelligence.edge.inflight import RedisInflight
from tests.support.redis import REDIS_URL

pytestmark = pytest.mark.redis
REDIS = REDIS_URL


@pytest.fixture
async def replicas() -> AsyncIterator[list[RedisInflight]]:
    prefix = f"fi-test-inflight-lease-{uuid.uuid4().hex[:8]}:"
    made = [RedisInflight(REDIS, limit=1, expiry_s=1.0, prefix=prefix) for _ in range(2)]
    yield made
    for limiter in made:
        await limiter.aclose()


async def test_a_place_held_by_a_running_request_outlives_its_lease(replicas: list[RedisInflight]) -> None:
    a, b = replicas
    assert await a.acquire("visitor:x")
    await asyncio.sleep(1.6)  # longer than the 1 s lease: only renewal keeps it
    assert not await b.acquire("visitor:x")
    await a.release("visitor:x")
    assert await b.acquire("visitor:x")
    await b.release("visitor:x")


async def test_the_place_of_a_replica_that_stopped_renewing_lapses(replicas: list[RedisInflight]) -> None:
    a, b = replicas
    assert await a.acquire("visitor:y")
    a.keeper.stop()  # the replica "dies": no renewal, no release
    assert not await b.acquire("visitor:y")
    await asyncio.sleep(1.2)
    assert await b.acquire("visitor:y")
    await b.release("visitor:y")
    assert await b._redis.exists(b.prefix + "visitor:y") == 0  # nothing left behind


async def test_a_release_frees_only_one_place() -> None:
    prefix = f"fi-test-inflight-two-{uuid.uuid4().hex[:8]}:"
    two = RedisInflight(REDIS, limit=2, expiry_s=1.0, prefix=prefix)
    try:
        assert await two.acquire("k") and await two.acquire("k") and not await two.acquire("k")
        await two.release("k")
        assert await two.acquire("k") and not await two.acquire("k")
    finally:
        await two.aclose()
