"""The report cache: epoch compare-and-set, single flight, TTL, and a shared epoch source."""

from __future__ import annotations

import asyncio

from feedback_intelligence.instants.clock import ManualClock
from feedback_intelligence.report.cache import MemoryEpochSource, ReportCache
from feedback_intelligence.report.prose.layer import ProseLayer
from feedback_intelligence.report.prose.store import MemoryProseStore


def counting_factory():
    calls = []

    async def factory():
        calls.append(1)
        return {"n": len(calls), "llm": {"shed": 0}}

    return factory, calls


async def test_set_with_the_current_epoch_caches():
    cache = ReportCache(900)
    epoch = await cache.epoch()
    assert await cache.set("k", {"r": 1}, epoch)
    assert await cache.get("k") == {"r": 1}
    assert await cache.get("other") is None


async def test_invalidate_during_generation_prevents_the_stale_set():
    cache = ReportCache(900)
    started, finish = asyncio.Event(), asyncio.Event()

    async def slow_factory():
        started.set()
        await finish.wait()
        return {"stale": True}

    task = asyncio.create_task(cache.get_or_create("k", slow_factory))
    await started.wait()
    assert await cache.invalidate() == 1
    finish.set()
    assert await task == {"stale": True}  # the caller still gets its report
    assert await cache.get("k") is None  # but it is not cached


async def test_invalidate_clears_and_reuse_holds_until_then():
    cache = ReportCache(900)
    factory, calls = counting_factory()
    first = await cache.get_or_create("k", factory)
    assert await cache.get_or_create("k", factory) is first
    await cache.invalidate()
    assert await cache.get("k") is None
    await cache.get_or_create("k", factory)
    assert len(calls) == 2


async def test_entries_expire_and_zero_ttl_disables_caching():
    clock = ManualClock()
    cache = ReportCache(60, clock=clock)
    factory, calls = counting_factory()
    await cache.get_or_create("k", factory)
    clock.advance(59.9)
    await cache.get_or_create("k", factory)
    clock.advance(0.2)
    await cache.get_or_create("k", factory)
    assert len(calls) == 2

    off = ReportCache(0)
    factory, calls = counting_factory()
    await off.get_or_create("k", factory)
    await off.get_or_create("k", factory)
    assert len(calls) == 2


async def test_a_few_windows_stay_cached_and_the_least_recently_used_goes_first():
    cache = ReportCache(900, entries=2)
    await cache.set("a", {"r": "a"}, 0)
    await cache.set("b", {"r": "b"}, 0)
    assert await cache.get("a") == {"r": "a"}
    await cache.set("c", {"r": "c"}, 0)  # "b" was used least recently
    assert await cache.get("b") is None
    assert (await cache.get("a"), await cache.get("c")) == ({"r": "a"}, {"r": "c"})


async def test_single_flight_generates_once_for_concurrent_callers():
    cache = ReportCache(900)
    gate = asyncio.Event()
    calls = []

    async def factory():
        calls.append(1)
        await gate.wait()
        return {"r": 1}

    tasks = [asyncio.create_task(cache.get_or_create("k", factory)) for _ in range(5)]
    await asyncio.sleep(0)
    gate.set()
    results = await asyncio.gather(*tasks)
    assert len(calls) == 1
    assert all(r is results[0] for r in results)


async def test_a_report_declared_uncacheable_is_not_kept():
    cache = ReportCache(900)
    factory, calls = counting_factory()
    await cache.get_or_create("k", factory, cacheable=lambda _r: False)
    await cache.get_or_create("k", factory, cacheable=lambda _r: False)
    assert len(calls) == 2


async def test_a_bump_through_a_shared_epoch_source_invalidates_every_replica():
    shared = MemoryEpochSource()
    replica_a, replica_b = ReportCache(900, shared), ReportCache(900, shared)
    await replica_a.set("k", {"r": "a"}, await shared.current())
    await replica_b.invalidate()  # an ingest handled by the other replica
    assert await replica_a.get("k") is None
    assert await replica_a.epoch() == 1


async def test_a_prose_layer_is_kept_its_ttl_on_the_stores_clock():
    clock = ManualClock()
    store = MemoryProseStore(clock=clock)
    layer = ProseLayer(themes={}, alerts=[], ledger={}, fallbacks=0, dropped_claims=0, action_dropped=0)
    await store.put("k", layer, 60)
    clock.advance(59.9)
    assert await store.get("k") == layer
    clock.advance(0.2)
    assert await store.get("k") is None
