"""The in-process slot pool: a counter and a waiter queue per priority, least attained service first.

Release hands the slot straight to the next admissible waiter, synchronously, so no await
sits between "slot freed" and "slot taken" — a cancelled releaser can never strand a waiter.
Every decision is :mod:`~.policy`'s (which queue is served, who heads it, who is preempted); the
waiters' keys (attained service) are the :class:`~.fairness.ServiceLedger`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

from feedback_intelligence.gate import policy
from feedback_intelligence.gate.fairness import ANONYMOUS, ServiceLedger
from feedback_intelligence.gate.limit import FixedLimit, Limit, LimitChange
from feedback_intelligence.gate.slots import Occupancy, Priority


@dataclass(eq=False, slots=True)
class LocalLease:
    priority: Priority
    visitor: str = ANONYMOUS
    released: bool = False
    since: float = 0.0  # on the ledger's clock (monotonic)


@dataclass(eq=False, slots=True)
class _Waiter:
    priority: Priority
    visitor: str
    arrival: int  # ties in attained service go by arrival
    future: asyncio.Future[LocalLease] = field(default_factory=lambda: asyncio.get_running_loop().create_future())


class LocalSlotPool:
    """The slots of one process: a counter and a queue of waiters per priority.

    Admission follows :mod:`~feedback_intelligence.gate.policy`; waiters of one priority are
    served least attained service first (``ledger``; shared by a gate's backends), arrival order among
    equals, visitors before background work. ``acquire`` returns ``None`` when no slot
    came free within the timeout, and a waiter that is cancelled or times out leaves the queue without
    holding anything. Each lease must be released exactly once; a second release is ignored.

    Its slots are its :class:`~.limit.Limit`'s current value: ``slots`` fixed, unless an adaptive
    ``limit`` is given (fed through :meth:`observe`).
    """

    def __init__(
        self,
        slots: int,
        background_reserve: int = 1,
        ledger: ServiceLedger | None = None,
        limit: Limit | None = None,
    ) -> None:
        self.limit: Limit = limit if limit is not None else FixedLimit(slots)
        self._limit_reason = ""
        self.background_reserve = background_reserve
        self.ledger = ledger if ledger is not None else ServiceLedger()
        self._in_use = 0
        self._held: set[LocalLease] = set()
        self._queues: dict[Priority, list[_Waiter]] = {p: [] for p in Priority}
        self._arrivals = itertools.count()
        # Held leases a waiting visitor may preempt: when offered, and whom to tell (docs/adr/0017).
        self._offers: dict[LocalLease, tuple[float, Callable[[], None]]] = {}

    @property
    def slots(self) -> int:
        return self.limit.current

    async def observe(self, latency_s: float, tokens: int, prompt_tokens: int = 0) -> LimitChange | None:
        """A call on this backend completed: let the limit judge it; a raised limit serves waiters now."""
        change = self.limit.sample(latency_s, tokens, self._in_use, prompt_tokens)
        if change is not None:
            self._limit_reason = f"{change.before} -> {change.after}: {change.reason}"
            if change.after > change.before:
                self._dispatch()
        return change

    def _may_take(self, priority: Priority, rank: int) -> bool:
        return policy.may_take(
            priority,
            rank,
            slots=self.slots,
            in_use=self._in_use,
            reserve=self.background_reserve,
            interactive_waiting=len(self._queues[Priority.INTERACTIVE]),
        )

    def _take(self, priority: Priority, visitor: str) -> LocalLease:
        self._in_use += 1
        lease = LocalLease(priority, visitor, since=self.ledger.now())
        self._held.add(lease)
        return lease

    def _take_now(self, priority: Priority, visitor: str) -> LocalLease | None:
        # An arrival comes after every waiter of its priority whose key is not above its own.
        own = self.ledger.key(visitor)
        rank = sum(1 for waiter in self._queues[priority] if self.ledger.key(waiter.visitor) <= own)
        if not self._may_take(priority, rank):
            return None
        return self._take(priority, visitor)

    async def try_acquire(self, priority: Priority, visitor: str = ANONYMOUS) -> LocalLease | None:
        self.ledger.arrive(visitor)
        lease = self._take_now(priority, visitor)
        if lease is None:
            self.ledger.leave(visitor)
        return lease

    async def acquire(self, priority: Priority, timeout_s: float, visitor: str = ANONYMOUS) -> LocalLease | None:
        self.ledger.arrive(visitor)  # present from here until it gives up or its lease is released
        lease = self._take_now(priority, visitor)
        if lease is not None:
            return lease
        if timeout_s <= 0:
            self.ledger.leave(visitor)
            return None
        waiter = _Waiter(priority, visitor, next(self._arrivals))
        self._queues[priority].append(waiter)
        try:
            async with asyncio.timeout(timeout_s):
                return await asyncio.shield(waiter.future)
        except TimeoutError:
            return self._settle_abandoned(waiter)
        except asyncio.CancelledError:
            handed = self._settle_abandoned(waiter)
            if handed is not None:
                self._give_back(handed)
            raise

    def _settle_abandoned(self, waiter: _Waiter) -> LocalLease | None:
        """A waiter gave up; if a release handed it the slot in the meantime, return that lease."""
        if waiter.future.done() and not waiter.future.cancelled():
            return waiter.future.result()
        waiter.future.cancel()
        self.ledger.leave(waiter.visitor)
        with contextlib.suppress(ValueError):
            self._queues[waiter.priority].remove(waiter)
        # Our leaving may unblock background waiters that deferred to us.
        self._dispatch()
        return None

    async def release(self, lease: LocalLease) -> None:
        self._give_back(lease)

    def _give_back(self, lease: LocalLease) -> None:
        if lease.released:
            return
        lease.released = True
        self._in_use -= 1
        self._held.discard(lease)
        self.ledger.charge(lease.visitor, self.ledger.now() - lease.since)
        self.ledger.leave(lease.visitor)
        self._offers.pop(lease, None)
        self._dispatch()

    def _dispatch(self) -> None:
        """Hand free slots to the heads of the queues the policy serves, until it serves none."""
        while True:
            served = policy.served_next(
                slots=self.slots,
                in_use=self._in_use,
                reserve=self.background_reserve,
                interactive_waiting=len(self._queues[Priority.INTERACTIVE]),
                background_waiting=len(self._queues[Priority.BACKGROUND]),
            )
            if served is None:
                return
            queue = self._queues[served]
            waiter = policy.next_waiter((w, self.ledger.key(w.visitor), w.arrival) for w in queue)
            assert waiter is not None  # served_next serves only a queue with waiters
            queue.remove(waiter)
            if not waiter.future.done():
                waiter.future.set_result(self._take(served, waiter.visitor))

    # -- preemption: the holder side (the gate offers background leases; a waiting visitor preempts) --

    async def offer(self, lease: LocalLease, on_preempt: Callable[[], None]) -> None:
        if not lease.released:
            self._offers[lease] = (self.ledger.now(), on_preempt)

    async def newest_offer(self) -> float | None:
        return max((offered for offered, _ in self._offers.values()), default=None)

    async def preempt(self) -> bool:
        newest = policy.preemption_victim({lease: offered for lease, (offered, _) in self._offers.items()})
        if newest is None:
            return False
        _, on_preempt = self._offers.pop(newest)
        on_preempt()  # the holder cancels its work and releases; the slot then goes to a waiter
        return True

    async def occupancy(self) -> Occupancy:
        return Occupancy(
            slots=self.slots,
            in_use=self._in_use,
            waiting_interactive=len(self._queues[Priority.INTERACTIVE]),
            waiting_background=len(self._queues[Priority.BACKGROUND]),
            newest_hold_s=self.ledger.now() - max(lease.since for lease in self._held) if self._held else None,
            adaptive=self.limit.adaptive,
            limit_reason=self._limit_reason,
            yielding=self.limit.yielding,
        )

    async def attained(self) -> dict[str, float]:
        """Each remembered visitor's decayed attained service in slot-seconds (the ledger's, shared by
        the members of one gate)."""
        return self.ledger.attained()

    async def aclose(self) -> None:
        return None
