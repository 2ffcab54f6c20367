"""The Redis slot pool as it was before the O(log W) acquire (ADR 0020), kept only so that
``bench.gate_redis`` can measure today's pool side by side with it in one run. Not product code.

The original docstring follows.

A slot pool shared by several API replicas through Redis.

Slots are leases in a sorted set scored by their expiry: a replica killed mid-call cannot
leak its slot, because the lease simply runs out (``lease_s``) unless the holder renews it.
Acquire, renew and release are single Lua scripts, so admission is atomic across replicas; renewal
is the shared lease primitive (:mod:`feedback_intelligence.redis_leases`), and the admission rule is
the same as in-process (:func:`gate.slots.admits`, mirrored in ``lua/admits.lua``).

Who goes first among waiters is the same as in-process too: least attained service per visitor
(``lua/fair.lua``, the twin of :mod:`gate.fairness`). Each visitor's decayed slot-seconds live in a
hash shared by every replica (and by every backend of one gate: ``ledger``), waiters in a sorted set by
that score; release charges the held time and re-scores the visitor's waiters, in the same script.

Waiting is not busy-polling: a release publishes on a channel, and each replica's waiters
wake on it. A slow fallback re-check covers what no message announces (a lease expiring).
If Redis cannot be reached the pool raises :class:`PoolUnavailable` and the gate sheds:
busy, never unbounded.

Preemption (docs/adr/0017-background-yields-to-a-waiting-clerk.md): a holder offers its background
lease (``lua/offer.lua``); a visitor that must wait, on any replica, marks the most recently offered
one (``lua/preempt.lua``); the holder's replica polls for marks every ``preempt_poll_s`` while it
holds offers (``lua/preempted.lua``) and cancels that work, which releases the slot.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from feedback_intelligence.gate.fairness import ANONYMOUS, FORGET_HALF_LIVES, RECENT_S, GateOrder
from feedback_intelligence.gate.slots import Occupancy, PoolUnavailable, Priority
from feedback_intelligence.redis_leases import LeaseKeeper, lua_script

log = logging.getLogger(__name__)

# The admission rule (lua/admits.lua, the Lua twin of ``slots.admits``) and the scripts that use it.
_ACQUIRE = lua_script("bench.legacy_gate", "admits.lua", "fair.lua", "acquire.lua")
_REGISTER_WAITER = lua_script("bench.legacy_gate", "fair.lua", "register_waiter.lua")
_RELEASE = lua_script("bench.legacy_gate", "fair.lua", "release.lua")
_ATTAINED = lua_script("bench.legacy_gate", "fair.lua", "attained.lua")
_OCCUPANCY = lua_script("bench.legacy_gate", "occupancy.lua")
_OFFER = lua_script("bench.legacy_gate", "offer.lua")
_PREEMPT = lua_script("bench.legacy_gate", "preempt.lua")
_PREEMPTED = lua_script("bench.legacy_gate", "preempted.lua")


@dataclass(eq=False)
class RedisLease:
    id: str
    priority: Priority
    visitor: str = ANONYMOUS
    released: bool = False


class LegacyRedisSlotPool:
    """The slots of a gate shared by every replica that uses the same Redis and gate ``name``.

    Same contract as :class:`~feedback_intelligence.gate.local.LocalSlotPool`, across processes: at most
    ``slots`` unexpired leases exist at any moment, admitted by the Lua twin of ``admits``; a held lease
    is renewed by ``keeper`` and lapses ``lease_s`` after its holder stops renewing (a dead replica).
    Waiting visitors are announced in Redis, so background work on any replica defers to them. Every
    Redis failure while acquiring or reading occupancy raises
    :class:`~feedback_intelligence.gate.slots.PoolUnavailable` (the gate sheds); a failed release is
    logged and left to the lease's expiry.
    """

    def __init__(
        self,
        url: str,
        *,
        slots: int,
        background_reserve: int = 1,
        name: str = "llm",
        lease_s: float = 10.0,
        recheck_s: float = 0.1,
        ledger: str | None = None,
        half_life_s: float = 60.0,
        order: GateOrder = GateOrder.FAIR,
        preempt_poll_s: float = 0.05,
    ) -> None:
        self.slots = slots
        self.background_reserve = background_reserve
        self.lease_ms = int(lease_s * 1000)
        self.recheck_s = recheck_s
        self.order = order
        self.half_life_ms = max(1, int(half_life_s * 1000))
        prefix = f"fi:gate:{name}"
        self._leases = f"{prefix}:leases"
        self._waiting = {
            Priority.INTERACTIVE: f"{prefix}:waiting:interactive",
            Priority.BACKGROUND: f"{prefix}:waiting:background",
        }
        self._queue = {p: f"{prefix}:queue:{p.value}" for p in Priority}
        # One ledger per gate, whichever backend's pool a slot came from (default: this pool's own).
        fair_prefix = f"fi:gate:{ledger or name}:fair"
        self._scores = f"{fair_prefix}:service"
        self._seen = f"{fair_prefix}:seen"
        self._channel = f"{prefix}:released"
        self._redis = aioredis.from_url(url, socket_timeout=1.0, socket_connect_timeout=1.0)
        self._acquire = self._redis.register_script(_ACQUIRE)
        self._release = self._redis.register_script(_RELEASE)
        self.keeper = LeaseKeeper(self._redis, self.lease_ms, what="gate lease")
        self._register = self._redis.register_script(_REGISTER_WAITER)
        self._occupancy = self._redis.register_script(_OCCUPANCY)
        self._attained = self._redis.register_script(_ATTAINED)
        self._released = asyncio.Event()
        self._listener: asyncio.Task[None] | None = None
        self._closed = False
        # preemption (holder side): this replica's offered leases and whom to tell when one is preempted
        self.preempt_poll_s = preempt_poll_s
        self._offers = f"{prefix}:offers"
        self._preempted = f"{prefix}:preempted"
        self._offer = self._redis.register_script(_OFFER)
        self._preempt = self._redis.register_script(_PREEMPT)
        self._poll_preempted = self._redis.register_script(_PREEMPTED)
        self._offered: dict[str, Callable[[], None]] = {}
        self._watcher: asyncio.Task[None] | None = None

    def _keys(self) -> list[str]:
        return [self._leases, self._waiting[Priority.INTERACTIVE], self._waiting[Priority.BACKGROUND]]

    @property
    def _fair(self) -> str:
        return "1" if self.order is GateOrder.FAIR else "0"

    async def _try(self, priority: Priority, visitor: str, waiter_id: str = "") -> RedisLease | None:
        try:
            granted = await self._acquire(
                keys=[*self._keys(), self._queue[priority], self._scores, self._seen],
                args=[
                    uuid.uuid4().hex,
                    self.lease_ms,
                    priority.value,
                    self.slots,
                    self.background_reserve,
                    waiter_id,
                    visitor,
                    self.half_life_ms,
                    int(RECENT_S * 1000),
                    FORGET_HALF_LIVES * self.half_life_ms,
                    self._fair,
                ],
            )
        except RedisError as exc:
            raise PoolUnavailable(f"Redis unreachable: {exc}") from exc
        if not granted:
            return None
        lease_id = granted.decode() if isinstance(granted, bytes) else str(granted)  # "<admitted ms>:<id>"
        self.keeper.hold(self._leases, lease_id)
        return RedisLease(lease_id, priority, visitor)

    async def try_acquire(self, priority: Priority, visitor: str = ANONYMOUS) -> RedisLease | None:
        return await self._try(priority, visitor)

    async def acquire(self, priority: Priority, timeout_s: float, visitor: str = ANONYMOUS) -> RedisLease | None:
        self._ensure_listener()
        lease = await self._try(priority, visitor)
        if lease is not None or timeout_s <= 0:
            return lease
        deadline = time.monotonic() + timeout_s
        waiter_id = uuid.uuid4().hex
        waiters = self._waiting[priority]
        queue = self._queue[priority]
        try:
            # Announce the wait (it expires by itself) so background work on any replica defers to
            # visitors, and take a place in the queue by the visitor's attained service.
            await self._register(
                keys=[waiters, queue, self._scores],
                args=[waiter_id, int(timeout_s * 1000) + 1000, visitor, self.half_life_ms, self._fair],
            )
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self._released.clear()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(min(remaining, self.recheck_s)):
                        await self._released.wait()
                lease = await self._try(priority, visitor, waiter_id)
                if lease is not None:
                    return lease
        except RedisError as exc:
            raise PoolUnavailable(f"Redis unreachable: {exc}") from exc
        finally:
            with contextlib.suppress(RedisError, asyncio.CancelledError):
                async with self._redis.pipeline(transaction=True) as pipe:
                    pipe.zrem(waiters, waiter_id)
                    pipe.zrem(queue, f"{waiter_id}:{visitor}")
                    await pipe.execute()

    async def release(self, lease: RedisLease) -> None:
        if lease.released:
            return
        lease.released = True
        self.keeper.drop(self._leases, lease.id)
        self._offered.pop(lease.id, None)  # its offer in Redis is dropped as stale by the next preempt
        try:
            await self._release(
                keys=[
                    self._leases,
                    self._channel,
                    self._scores,
                    self._seen,
                    self._queue[Priority.INTERACTIVE],
                    self._queue[Priority.BACKGROUND],
                ],
                args=[lease.id, lease.visitor, self.half_life_ms, FORGET_HALF_LIVES * self.half_life_ms, self._fair],
            )
        except RedisError as exc:
            # The lease expires on its own within lease_s; nothing is leaked for longer.
            log.warning("could not release gate lease %s (it will expire): %s", lease.id[:8], exc)

    # -- preemption ---------------------------------------------------------------------------------

    async def offer(self, lease: RedisLease, on_preempt: Callable[[], None]) -> None:
        if lease.released:
            return
        try:
            offered = await self._offer(keys=[self._leases, self._offers], args=[lease.id, self.lease_ms])
        except RedisError as exc:
            log.warning("could not offer gate lease %s for preemption (it runs to its end): %s", lease.id[:8], exc)
            return
        if not offered or lease.released:
            return
        self._offered[lease.id] = on_preempt
        if self._watcher is None or self._watcher.done():
            self._watcher = asyncio.create_task(self._watch_preemptions(), name="gate-preemption-watcher")

    async def _find_offer(self, mark: bool) -> float | None:
        try:
            found = await self._preempt(
                keys=[self._leases, self._offers, self._preempted], args=[self.lease_ms, "1" if mark else "0"]
            )
        except RedisError as exc:
            raise PoolUnavailable(f"Redis unreachable: {exc}") from exc
        return None if found is None else float(found)

    async def newest_offer(self) -> float | None:
        return await self._find_offer(mark=False)

    async def preempt(self) -> bool:
        return await self._find_offer(mark=True) is not None

    async def _watch_preemptions(self) -> None:
        """While this replica holds offered leases, ask Redis every ``preempt_poll_s`` which were marked."""
        while self._offered and not self._closed:
            await asyncio.sleep(self.preempt_poll_s)
            held = list(self._offered)
            if not held:
                break
            try:
                marked = await self._poll_preempted(keys=[self._offers, self._preempted], args=[self.lease_ms, *held])
            except RedisError as exc:
                log.debug("preemption poll failed (retrying): %s", exc)
                continue
            for member in marked:
                on_preempt = self._offered.pop(member.decode() if isinstance(member, bytes) else str(member), None)
                if on_preempt is not None:
                    on_preempt()

    def _ensure_listener(self) -> None:
        if self._listener is None or self._listener.done():
            self._listener = asyncio.create_task(self._listen(), name="gate-release-listener")

    async def _listen(self) -> None:
        while not self._closed:
            try:
                pubsub = self._redis.pubsub()
                await pubsub.subscribe(self._channel)
                async for message in pubsub.listen():
                    if message.get("type") == "message":
                        self._released.set()
            except asyncio.CancelledError:
                raise
            except RedisError:
                if not self._closed:
                    await asyncio.sleep(0.5)  # waiters fall back to their periodic re-check meanwhile

    async def occupancy(self) -> Occupancy:
        try:
            in_use, interactive, background, newest_ms = await self._occupancy(keys=self._keys())
        except RedisError as exc:
            raise PoolUnavailable(f"Redis unreachable: {exc}") from exc
        newest = int(newest_ms) / 1000 if int(newest_ms) >= 0 else None
        return Occupancy(self.slots, int(in_use), int(interactive), int(background), newest_hold_s=newest)

    async def attained(self) -> dict[str, float]:
        """Each remembered visitor's decayed attained service in slot-seconds, shared by every replica."""
        try:
            flat = await self._attained(keys=[self._scores], args=[self.half_life_ms])
        except RedisError as exc:
            raise PoolUnavailable(f"Redis unreachable: {exc}") from exc
        names = [v.decode() if isinstance(v, bytes) else str(v) for v in flat[::2]]
        return {name: float(value) for name, value in zip(names, flat[1::2], strict=True)}

    async def aclose(self) -> None:
        self._closed = True
        self._offered.clear()
        if self._watcher is not None:
            self._watcher.cancel()
            await asyncio.wait({self._watcher}, timeout=1.0)
        await self.keeper.aclose()
        listener = self._listener
        if listener is not None:
            listener.cancel()
            # redis-py can turn a cancellation inside its pub/sub read into a reconnect and read on;
            # closing the client's connections below ends that read, and the closed flag ends the loop.
            await asyncio.wait({listener}, timeout=1.0)
        await self._redis.aclose()
        if listener is not None:
            await asyncio.wait({listener}, timeout=1.0)
            if not listener.done():
                log.warning("the gate's release listener did not stop")
            elif not listener.cancelled() and listener.exception() is not None:
                log.debug("release listener ended with %r", listener.exception())
