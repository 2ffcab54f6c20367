"""A slot pool shared by several API replicas through Redis.

Slots are leases in a sorted set scored by their expiry: a replica killed mid-call cannot
leak its slot, because the lease simply runs out (``lease_s``) unless the holder renews it.
Acquire, renew and release are single Lua scripts, so admission is atomic across replicas; renewal
is the shared lease primitive (:mod:`feedback_intelligence.redis_leases`), and the admission rules are
the same as in-process (:mod:`gate.policy`, mirrored in ``lua/policy.lua``).

Who goes first among waiters is the same as in-process too: least attained service per visitor
(``lua/fair.lua``, the twin of :mod:`gate.fairness`). Each visitor's decayed slot-seconds live in a
hash shared by every replica (and by every backend of one gate: ``ledger``), waiters in a sorted set by
that score; release charges the held time and re-scores the visitor's waiters, in the same script.

Waiting is not busy-polling, and a release wakes one waiter, not all: the release script finds the head
of the queue the freed slot goes to (``policy.served_next``) and publishes that waiter's member on the
gate's channel; each replica's one listener wakes only the waiter named. Every step is O(log W) with
W waiters (``lua/queues.lua``: no script reads a whole queue). A fallback re-check, slower the further
back a waiter is (``_recheck_after_s``), covers what no message announces (a lease expiring, a
message lost in a reconnect).
If Redis cannot be reached the pool raises :class:`PoolUnavailable` and the gate sheds:
busy, never unbounded.

Preemption (docs/adr/0017-background-yields-to-a-waiting-clerk.md): a holder offers its background
lease (``lua/offer.lua``); a visitor that must wait, on any replica, marks the most recently offered
one (``lua/preempt.lua``); the holder's replica polls for marks every ``preempt_poll_s`` while it
holds offers (``lua/preempted.lua``) and cancels that work, which releases the slot.

The slots are fixed (``slots``), or with ``adaptive`` settings a Gradient2 limit every replica shares
(:mod:`.shared_limit`, docs/adr/0068-a-limit-shared-by-replicas.md): each admission script reads it from
the pool's ``:limit`` hash (``lua/limit.lua``), so the backend never admits more than the one limit
across replicas, and ``slots`` is what this replica last saw of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from redis.exceptions import RedisError

from feedback_intelligence.gate.fairness import ANONYMOUS, FORGET_HALF_LIVES, RECENT_S, GateOrder
from feedback_intelligence.gate.limit import Gradient2Settings, LimitChange
from feedback_intelligence.gate.shared_limit import SharedGradient2
from feedback_intelligence.gate.slots import Occupancy, PoolUnavailable, Priority
from feedback_intelligence.redis_leases import GiveBacks, LeaseKeeper, connect, lua_script

log = logging.getLogger(__name__)
T = TypeVar("T")

# The admission rules (lua/policy.lua, the Lua twins of ``gate.policy``) and the scripts that use them.
_QUEUED = ("policy.lua", "fair.lua", "queues.lua", "limit.lua")
_ACQUIRE = lua_script("feedback_intelligence.gate", *_QUEUED, "acquire.lua")
_REGISTER_WAITER = lua_script("feedback_intelligence.gate", *_QUEUED, "register_waiter.lua")
_LEAVE = lua_script("feedback_intelligence.gate", *_QUEUED, "leave.lua")
_RELEASE = lua_script("feedback_intelligence.gate", *_QUEUED, "release.lua")
_ATTAINED = lua_script("feedback_intelligence.gate", "fair.lua", "attained.lua")
_OCCUPANCY = lua_script("feedback_intelligence.gate", "limit.lua", "occupancy.lua")
_OFFER = lua_script("feedback_intelligence.gate", "offer.lua")
_PREEMPT = lua_script("feedback_intelligence.gate", "preempt.lua")
_PREEMPTED = lua_script("feedback_intelligence.gate", "preempted.lua")


@dataclass(eq=False)
class RedisLease:
    id: str
    priority: Priority
    visitor: str = ANONYMOUS
    released: bool = False


def _text(reply: object) -> str:
    return reply.decode() if isinstance(reply, bytes) else str(reply)


async def _wait_until_set(event: asyncio.Event, timeout_s: float) -> None:
    """Wait for ``event`` at most ``timeout_s``, leaving the task's cancellation count alone
    (``asyncio.wait`` never cancels or uncancels the caller, unlike a nested ``asyncio.timeout``)."""
    waiting = asyncio.ensure_future(event.wait())
    try:
        await asyncio.wait({waiting}, timeout=timeout_s)
    finally:
        waiting.cancel()


async def _finish_despite_cancel(call: Awaitable[T], undo: Callable[[T], Awaitable[object]]) -> T:
    """Await a script whose effect must not be lost with its reply.

    A caller cancelled while the reply is on its way would leave what the script did in Redis (a
    queue place, a granted lease) held by nobody until it lapses. So the script finishes regardless,
    and on cancellation ``undo`` gives back what it took before the cancellation goes on."""
    running = asyncio.ensure_future(call)
    try:
        return await asyncio.shield(running)
    except asyncio.CancelledError:
        with contextlib.suppress(Exception):
            await undo(await running)
        raise


class RedisSlotPool:
    """The slots of a gate shared by every replica that uses the same Redis and gate ``name``.

    Same contract as :class:`~feedback_intelligence.gate.local.LocalSlotPool`, across processes: no lease
    is admitted while ``slots`` unexpired leases exist (the declared slots, or the limit the replicas
    share), admitted by the Lua twin of ``admits``; a held lease
    is renewed by ``keeper`` and lapses ``lease_s`` after its holder stops renewing (a dead replica).
    Waiting visitors are announced in Redis, so background work on any replica defers to them. Every
    Redis failure while acquiring or reading occupancy raises
    :class:`~feedback_intelligence.gate.slots.PoolUnavailable` (the gate sheds); a failed release or
    leave is sent again until Redis takes it or the lease or announcement lapses.
    """

    def __init__(
        self,
        url: str,
        *,
        slots: int,
        background_reserve: int = 1,
        name: str = "llm",
        lease_s: float = 10.0,
        recheck_s: float = 0.1,  # the head's fallback re-check, not every waiter's
        ledger: str | None = None,
        half_life_s: float = 60.0,
        order: GateOrder = GateOrder.FAIR,
        preempt_poll_s: float = 0.05,
        adaptive: Gradient2Settings | None = None,
        backend: str | None = None,  # the backend's name in logs and views (default: ``name``)
    ) -> None:
        self.declared = slots  # the most it admits; with ``adaptive``, the shared limit's ceiling
        self.background_reserve = background_reserve
        self.lease_ms = int(lease_s * 1000)
        self.recheck_s = recheck_s
        self.order = order
        self.half_life_ms = max(1, int(half_life_s * 1000))
        prefix = f"fi:gate:{name}"
        self._leases = f"{prefix}:leases"
        # One ledger per gate, whichever backend's pool a slot came from (default: this pool's own).
        fair_prefix = f"fi:gate:{ledger or name}:fair"
        self._scores = f"{fair_prefix}:service"
        self._seen = f"{fair_prefix}:seen"
        self._channel = f"{prefix}:wake"
        # The key layout every queue script takes (lua/queues.lua).
        self._gate_keys = [
            self._leases,
            f"{prefix}:waiting:interactive",
            f"{prefix}:waiting:background",
            f"{prefix}:queue:interactive",
            f"{prefix}:queue:background",
            f"{prefix}:members:interactive",
            f"{prefix}:members:background",
            self._scores,
            self._seen,
            self._channel,
            f"{fair_prefix}:active",
            f"{prefix}:limit",
        ]
        self._redis = connect(url, 1.0)  # a dead pooled connection is retried on a fresh one (ADR 0023)
        self.limit = (
            None
            if adaptive is None
            else SharedGradient2(self._redis, backend or name, self._gate_keys, adaptive, background_reserve)
        )
        # lua/limit.lua's switch: 0 admits against the declared slots, a floor against the shared limit
        self._floor = 0 if adaptive is None else adaptive.floor
        self._acquire = self._redis.register_script(_ACQUIRE)
        self._release = self._redis.register_script(_RELEASE)
        self._leave = self._redis.register_script(_LEAVE)
        self.keeper = LeaseKeeper(self._redis, self.lease_ms, what="gate lease")
        self._give_backs = GiveBacks("gate")
        self._register = self._redis.register_script(_REGISTER_WAITER)
        self._occupancy = self._redis.register_script(_OCCUPANCY)
        self._attained = self._redis.register_script(_ATTAINED)
        self._wakers: dict[str, asyncio.Event] = {}  # this replica's waiters, by queue member
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

    @property
    def slots(self) -> int:
        """The declared slots, or the shared limit as this replica last read or wrote it."""
        return self.declared if self.limit is None else self.limit.current

    @property
    def _fair(self) -> str:
        return "1" if self.order is GateOrder.FAIR else "0"

    async def _try(self, priority: Priority, visitor: str, member: str = "") -> RedisLease | int:
        """A lease, or the number of waiters that come before this call (its rank)."""
        call = self._acquire(
            keys=self._gate_keys,
            args=[
                uuid.uuid4().hex,
                self.lease_ms,
                priority.value,
                self.declared,
                self.background_reserve,
                member,
                visitor,
                self.half_life_ms,
                int(RECENT_S * 1000),
                FORGET_HALF_LIVES * self.half_life_ms,
                self._fair,
                self._floor,
            ],
        )

        async def give_back(granted: object) -> None:
            if not isinstance(granted, int):
                await self.release(RedisLease(_text(granted), priority, visitor))

        try:
            granted = await _finish_despite_cancel(call, give_back)
        except RedisError as exc:
            raise PoolUnavailable(f"Redis unreachable: {exc}") from exc
        if isinstance(granted, int):
            return -1 - granted
        lease_id = _text(granted)  # "<admitted ms>:<id>"
        self.keeper.hold(self._leases, lease_id)
        return RedisLease(lease_id, priority, visitor)

    async def try_acquire(self, priority: Priority, visitor: str = ANONYMOUS) -> RedisLease | None:
        lease = await self._try(priority, visitor)
        return lease if isinstance(lease, RedisLease) else None

    async def acquire(self, priority: Priority, timeout_s: float, visitor: str = ANONYMOUS) -> RedisLease | None:
        self._ensure_listener()
        lease = await self._try(priority, visitor)
        if isinstance(lease, RedisLease) or timeout_s <= 0:
            return lease if isinstance(lease, RedisLease) else None
        deadline = time.monotonic() + timeout_s
        member = ""
        woken = asyncio.Event()
        try:
            # Announce the wait (it expires by itself) so background work on any replica defers to
            # visitors, and take a place in the queue by the visitor's attained service.
            register = self._register(
                keys=self._gate_keys,
                args=[
                    priority.value,
                    uuid.uuid4().hex[:16],
                    int(timeout_s * 1000) + 1000,
                    visitor,
                    self.half_life_ms,
                    self._fair,
                ],
            )

            async def leave(found: object) -> None:
                await self._leave_queue(priority, _text(found), lapses_in_s=timeout_s + 1)

            member = _text(await _finish_despite_cancel(register, leave))
            self._wakers[member] = woken
            woken.set()  # try once right after queueing: a slot freed meanwhile woke nobody
            rank = 0
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                await _wait_until_set(woken, min(remaining, self._recheck_after_s(rank)))
                woken.clear()
                lease = await self._try(priority, visitor, member)
                if isinstance(lease, RedisLease):
                    member = ""  # granted: the script took it out of the queue
                    return lease
                rank = lease
        except RedisError as exc:
            raise PoolUnavailable(f"Redis unreachable: {exc}") from exc
        finally:
            self._wakers.pop(member, None)
            if member:
                await self._leave_queue(priority, member, lapses_in_s=timeout_s + 1)

    async def _leave_queue(self, priority: Priority, member: str, lapses_in_s: float) -> None:
        """Leave the queue; if Redis is away, keep trying until the announcement lapses by itself (a
        Redis that kept the queue across a restart would otherwise have a ghost waiter at its head)."""

        def leave() -> Awaitable[object]:
            return self._leave(
                keys=self._gate_keys, args=[priority.value, member, self.declared, self.background_reserve, self._floor]
            )

        try:
            await leave()
        except RedisError:
            self._give_backs.retry(leave, lapses_in_s)
        except asyncio.CancelledError:
            self._give_backs.retry(leave, lapses_in_s)
            raise

    def _recheck_after_s(self, rank: int) -> float:
        """How long a waiter of ``rank`` waits for its wake-up before it looks again by itself.

        A release wakes one waiter by a message, but some frees announce nothing (a lease lapsing) and
        some messages are lost (published while this replica's listener reconnects: a Redis restart),
        and a rank read once goes stale. So every waiter re-checks, the further back the slower: the head
        every ``recheck_s``, rank r every (r + 1) · ``recheck_s``; W waiters together cost about
        ln(W) / ``recheck_s`` checks a second, not W / ``recheck_s``."""
        return self.recheck_s * (rank + 1)

    async def release(self, lease: RedisLease) -> None:
        if lease.released:
            return
        lease.released = True
        self.keeper.drop(self._leases, lease.id)
        self._offered.pop(lease.id, None)  # its offer in Redis is dropped as stale by the next preempt

        def give_back() -> Awaitable[object]:
            return self._release(
                keys=self._gate_keys,
                args=[
                    lease.id,
                    lease.visitor,
                    self.half_life_ms,
                    FORGET_HALF_LIVES * self.half_life_ms,
                    self._fair,
                    self.declared,
                    self.background_reserve,
                    self._floor,
                ],
            )

        try:
            await give_back()
        except RedisError as exc:
            # Sent again until Redis takes it (a Redis that kept its data across a restart still counts
            # the slot as taken) or the lease has lapsed by itself, lease_s from now.
            log.warning("could not release gate lease %s (retrying until it lapses): %s", lease.id[:8], exc)
            self._give_backs.retry(give_back, self.lease_ms / 1000)

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
                        data = message.get("data")
                        woken = self._wakers.get(data.decode() if isinstance(data, bytes) else str(data))
                        if woken is not None:
                            woken.set()
            except asyncio.CancelledError:
                raise
            except RedisError:
                if not self._closed:
                    await asyncio.sleep(0.5)  # waiters fall back to their periodic re-check meanwhile

    async def observe(self, latency_s: float, tokens: int, prompt_tokens: int = 0) -> LimitChange | None:
        """A call on this backend completed: with an adaptive limit, its sample goes into the limit the
        replicas share (a raised limit wakes a waiter on any replica, lua/limit_write.lua)."""
        return None if self.limit is None else await self.limit.sample(latency_s, tokens, prompt_tokens)

    async def occupancy(self) -> Occupancy:
        try:
            in_use, interactive, background, newest_ms, limit, reason, yielding = await self._occupancy(
                keys=self._gate_keys, args=[self.declared, self._floor]
            )
        except RedisError as exc:
            raise PoolUnavailable(f"Redis unreachable: {exc}") from exc
        newest = int(newest_ms) / 1000 if int(newest_ms) >= 0 else None
        if self.limit is not None:
            self.limit.seen(int(limit), _text(reason))
        return Occupancy(
            int(limit),
            int(in_use),
            int(interactive),
            int(background),
            newest_hold_s=newest,
            adaptive=self.limit is not None,
            limit_reason=_text(reason),
            yielding=int(yielding) == 1,
        )

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
        await self._give_backs.aclose()
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
