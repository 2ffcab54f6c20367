"""A slot pool shared by several API replicas through Redis.

Slots are leases in a sorted set scored by their expiry: a replica killed mid-call cannot
leak its slot, because the lease simply runs out (``lease_s``) unless the holder renews it.
Acquire, renew and release are single Lua scripts, so admission is atomic across replicas;
the admission rule itself is the same as in-process (:func:`gate.slots.admits`).

Waiting is not busy-polling: a release publishes on a channel, and each replica's waiters
wake on it. A slow fallback re-check covers what no message announces (a lease expiring).
If Redis cannot be reached the pool raises :class:`PoolUnavailable` and the gate sheds:
busy, never unbounded.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from dataclasses import dataclass, field

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from feedback_intelligence.gate.slots import Occupancy, PoolUnavailable, Priority
from feedback_intelligence.redis_time import LUA_NOW_MS

log = logging.getLogger(__name__)

# KEYS: leases, interactive waiters, background waiters.  ARGV: lease id, priority, slots, reserve,
# lease ms, own waiter id (or "").  Returns the lease's member ("<admitted ms>:<lease id>", so the
# admission time travels with the lease on Redis' clock) when granted, 0 otherwise.
_ACQUIRE = LUA_NOW_MS + """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
local in_use = redis.call('ZCARD', KEYS[1])
local slots = tonumber(ARGV[3])
local free = slots - in_use
local ok = false
if ARGV[2] == 'interactive' then
  ok = free > 0
else
  local visitors = redis.call('ZCARD', KEYS[2])
  ok = free > tonumber(ARGV[4]) and visitors == 0
end
if ok then
  local member = now .. ':' .. ARGV[1]
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[5]), member)
  if ARGV[6] ~= '' then
    redis.call('ZREM', KEYS[2], ARGV[6])
    redis.call('ZREM', KEYS[3], ARGV[6])
  end
  return member
end
return 0
"""

# KEYS: leases. ARGV: lease id, lease ms. Extends a lease that still exists; 0 if it was lost.
_RENEW = LUA_NOW_MS + """
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), ARGV[1])
  return 1
end
return 0
"""

# KEYS: leases, channel. ARGV: lease id.
_RELEASE = """
local removed = redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('PUBLISH', KEYS[2], ARGV[1])
return removed
"""

# KEYS: waiters set. ARGV: waiter id, expiry ms from now.
_REGISTER_WAITER = LUA_NOW_MS + """
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
return 1
"""

# KEYS: leases, interactive waiters, background waiters. Counts only what has not expired; the
# fourth value is the age in ms of the newest live lease (-1 when none is held).
_OCCUPANCY = LUA_NOW_MS + """
local newest = -1
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf')) do
  local admitted = tonumber(string.match(member, '^(%d+):'))
  if admitted and (newest < 0 or now - admitted < newest) then
    newest = now - admitted
  end
end
return {
  redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf'),
  redis.call('ZCOUNT', KEYS[2], '(' .. now, '+inf'),
  redis.call('ZCOUNT', KEYS[3], '(' .. now, '+inf'),
  newest,
}
"""


@dataclass(eq=False)
class RedisLease:
    id: str
    priority: Priority
    renewer: asyncio.Task[None] | None = field(default=None, repr=False)
    released: bool = False


class RedisSlotPool:
    def __init__(
        self,
        url: str,
        *,
        slots: int,
        background_reserve: int = 1,
        name: str = "llm",
        lease_s: float = 10.0,
        recheck_s: float = 0.1,
    ) -> None:
        self.slots = slots
        self.background_reserve = background_reserve
        self.lease_ms = int(lease_s * 1000)
        self.recheck_s = recheck_s
        prefix = f"fi:gate:{name}"
        self._leases = f"{prefix}:leases"
        self._waiting = {Priority.INTERACTIVE: f"{prefix}:waiting:interactive",
                         Priority.BACKGROUND: f"{prefix}:waiting:background"}
        self._channel = f"{prefix}:released"
        self._redis = aioredis.from_url(url, socket_timeout=1.0, socket_connect_timeout=1.0)
        self._acquire = self._redis.register_script(_ACQUIRE)
        self._renew = self._redis.register_script(_RENEW)
        self._release = self._redis.register_script(_RELEASE)
        self._register = self._redis.register_script(_REGISTER_WAITER)
        self._occupancy = self._redis.register_script(_OCCUPANCY)
        self._released = asyncio.Event()
        self._listener: asyncio.Task[None] | None = None

    def _keys(self) -> list[str]:
        return [self._leases, self._waiting[Priority.INTERACTIVE], self._waiting[Priority.BACKGROUND]]

    async def _try(self, priority: Priority, waiter_id: str = "") -> RedisLease | None:
        try:
            granted = await self._acquire(
                keys=self._keys(),
                args=[uuid.uuid4().hex, priority.value, self.slots, self.background_reserve, self.lease_ms, waiter_id],
            )
        except RedisError as exc:
            raise PoolUnavailable(f"Redis unreachable: {exc}") from exc
        if not granted:
            return None
        lease_id = granted.decode() if isinstance(granted, bytes) else str(granted)
        lease = RedisLease(lease_id, priority)
        lease.renewer = asyncio.create_task(self._keep_alive(lease), name=f"lease-{lease_id[:8]}")
        return lease

    async def try_acquire(self, priority: Priority) -> RedisLease | None:
        return await self._try(priority)

    async def acquire(self, priority: Priority, timeout_s: float) -> RedisLease | None:
        self._ensure_listener()
        lease = await self._try(priority)
        if lease is not None or timeout_s <= 0:
            return lease
        deadline = time.monotonic() + timeout_s
        waiter_id = uuid.uuid4().hex
        waiters = self._waiting[priority]
        try:
            # Announce the wait (it expires by itself) so background work on any replica defers to visitors.
            await self._register(keys=[waiters], args=[waiter_id, int(timeout_s * 1000) + 1000])
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self._released.clear()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(min(remaining, self.recheck_s)):
                        await self._released.wait()
                lease = await self._try(priority, waiter_id)
                if lease is not None:
                    return lease
        except RedisError as exc:
            raise PoolUnavailable(f"Redis unreachable: {exc}") from exc
        finally:
            with contextlib.suppress(RedisError, asyncio.CancelledError):
                await self._redis.zrem(waiters, waiter_id)

    async def _keep_alive(self, lease: RedisLease) -> None:
        """Renew the lease while the call runs; a lost lease is logged, never fatal to the call."""
        interval = self.lease_ms / 3000
        while not lease.released:
            await asyncio.sleep(interval)
            try:
                if not await self._renew(keys=[self._leases], args=[lease.id, self.lease_ms]):
                    log.warning("gate lease %s expired before renewal (Redis lag?)", lease.id[:8])
                    return
            except RedisError as exc:
                log.warning("could not renew gate lease %s: %s", lease.id[:8], exc)

    async def release(self, lease: RedisLease) -> None:  # type: ignore[override]
        if lease.released:
            return
        lease.released = True
        if lease.renewer is not None:
            lease.renewer.cancel()
        try:
            await self._release(keys=[self._leases, self._channel], args=[lease.id])
        except RedisError as exc:
            # The lease expires on its own within lease_s; nothing is leaked for longer.
            log.warning("could not release gate lease %s (it will expire): %s", lease.id[:8], exc)

    def _ensure_listener(self) -> None:
        if self._listener is None or self._listener.done():
            self._listener = asyncio.create_task(self._listen(), name="gate-release-listener")

    async def _listen(self) -> None:
        while True:
            try:
                pubsub = self._redis.pubsub()
                await pubsub.subscribe(self._channel)
                async for message in pubsub.listen():
                    if message.get("type") == "message":
                        self._released.set()
            except asyncio.CancelledError:
                raise
            except RedisError:
                await asyncio.sleep(0.5)  # waiters fall back to their periodic re-check meanwhile

    async def occupancy(self) -> Occupancy:
        try:
            in_use, interactive, background, newest_ms = await self._occupancy(keys=self._keys())
        except RedisError as exc:
            raise PoolUnavailable(f"Redis unreachable: {exc}") from exc
        newest = int(newest_ms) / 1000 if int(newest_ms) >= 0 else None
        return Occupancy(self.slots, int(in_use), int(interactive), int(background), newest_hold_s=newest)

    async def aclose(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, RedisError):
                await self._listener
        await self._redis.aclose()
