"""Where finished report prose waits to be served, and the lock that lets one generation run per key.

In-process by default. With ``FI_REDIS_URL`` the layer and the lock live in Redis, so several API
replicas behind one edge generate a window's prose once between them and every replica serves it.
The lock is redis-py's ``Lock`` (a token under ``SET NX PX``, released only by its holder), kept
alive while the generation runs; a replica that dies mid-generation lets it lapse and the next
request for that window starts over.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from collections.abc import AsyncIterator
from typing import Protocol

from redis.asyncio import from_url
from redis.asyncio.lock import Lock

from feedback_intelligence.instants.clock import SYSTEM_CLOCK, Clock
from feedback_intelligence.report.prose.layer import ProseLayer

log = logging.getLogger(__name__)

MEMORY_ENTRIES = 64


class ProseStore(Protocol):
    async def get(self, key: str) -> ProseLayer | None: ...

    async def put(self, key: str, layer: ProseLayer, ttl_s: float) -> None: ...

    def generation(self, key: str) -> contextlib.AbstractAsyncContextManager[bool]:
        """Enter to try the key's lock: yields ``True`` when this caller holds it until exit."""
        ...

    async def clear(self) -> int:
        """Drop every layer (an erasure: layers quote texts); returns how many went."""
        ...

    async def aclose(self) -> None: ...


class MemoryProseStore:
    """One process: a small LRU of layers (each kept its TTL on ``clock``) and a set of keys being generated."""

    async def clear(self) -> int:
        dropped = len(self._layers)
        self._layers.clear()
        return dropped

    def __init__(self, entries: int = MEMORY_ENTRIES, *, clock: Clock = SYSTEM_CLOCK) -> None:
        self._entries = entries
        self._clock = clock
        self._layers: OrderedDict[str, tuple[float, ProseLayer]] = OrderedDict()
        self._running: set[str] = set()

    async def get(self, key: str) -> ProseLayer | None:
        found = self._layers.get(key)
        if found is None or found[0] <= self._clock.monotonic():
            return None
        self._layers.move_to_end(key)
        return found[1]

    async def put(self, key: str, layer: ProseLayer, ttl_s: float) -> None:
        self._layers[key] = (self._clock.monotonic() + ttl_s, layer)
        self._layers.move_to_end(key)
        while len(self._layers) > self._entries:
            self._layers.popitem(last=False)

    @contextlib.asynccontextmanager
    async def generation(self, key: str) -> AsyncIterator[bool]:
        if key in self._running:
            yield False
            return
        self._running.add(key)
        try:
            yield True
        finally:
            self._running.discard(key)

    async def aclose(self) -> None:
        return None


class RedisProseStore:
    """Layers as JSON strings with a TTL, and one redis-py lock per key being generated."""

    def __init__(self, url: str, namespace: str, lock_s: float = 30.0) -> None:
        self._redis = from_url(url)
        self._prefix = f"fi:{namespace}:report-prose"
        self._lock_s = lock_s

    async def get(self, key: str) -> ProseLayer | None:
        try:
            raw = await self._redis.get(f"{self._prefix}:layer:{key}")
        except Exception as exc:  # a Redis outage makes prose pending, never a failed report
            log.warning("report prose store unreachable: %s", exc)
            return None
        return None if raw is None else ProseLayer.model_validate_json(raw)

    async def clear(self) -> int:
        """Every layer of this gate's namespace (raises when Redis is away: the erasure says so)."""
        keys = [key async for key in self._redis.scan_iter(match=f"{self._prefix}:layer:*", count=500)]
        if keys:
            await self._redis.delete(*keys)
        return len(keys)

    async def put(self, key: str, layer: ProseLayer, ttl_s: float) -> None:
        try:
            await self._redis.set(f"{self._prefix}:layer:{key}", layer.model_dump_json(), px=max(1, int(ttl_s * 1000)))
        except Exception as exc:
            log.warning("report prose not stored (Redis): %s", exc)

    @contextlib.asynccontextmanager
    async def generation(self, key: str) -> AsyncIterator[bool]:
        lock = self._redis.lock(f"{self._prefix}:lock:{key}", timeout=self._lock_s, blocking=False)
        try:
            held = await lock.acquire()
        except Exception as exc:
            log.warning("report prose lock unreachable: %s", exc)
            held = False
        if not held:
            yield False
            return
        keeper = asyncio.create_task(self._keep_alive(lock))
        try:
            yield True
        finally:
            keeper.cancel()
            with contextlib.suppress(Exception):
                await lock.release()

    async def _keep_alive(self, lock: Lock) -> None:
        while True:
            await asyncio.sleep(self._lock_s / 3)
            try:
                await lock.reacquire()
            except Exception as exc:
                log.warning("report prose lock lost: %s", exc)
                return

    async def aclose(self) -> None:
        await self._redis.aclose()
