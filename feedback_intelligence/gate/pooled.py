"""The gate's slots over several backends: one slot pool per backend, one gate above them all.

Admission picks a backend with a free slot in the :class:`~.router.BackendRouter`'s order (least
loaded first, ready before warming, failing and stalled last); a backend taken out by its breaker is
not offered while others serve. A call that must wait waits on every offered backend at once and takes
the first slot that frees, so a slow backend frees slots less often and gets proportionally fewer
calls. Each backend keeps its own pool (in-process, or its own leases on Redis), so no backend is ever
sent more than its slots, whatever the replicas do. The background reserve is the pool's: spread over
the backends so that together they keep ``reserve`` slots free for visitors
(docs/adr/0016-several-gpus-one-gate.md).

A stalled backend (every slot held, none freed for longer than the router's threshold) is not waited
on while another backend can still free a slot; a call that must wait refreshes the verdicts at most
once a second, from each backend's own occupancy (its leases, across replicas).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from feedback_intelligence.gate import policy
from feedback_intelligence.gate.fairness import ANONYMOUS
from feedback_intelligence.gate.limit import LimitChange
from feedback_intelligence.gate.router import BackendRouter
from feedback_intelligence.gate.slots import Grant, Occupancy, PoolUnavailable, Priority, SlotPool

STALL_RECHECK_S = 1.0  # how stale a stall verdict may be before a waiting call judges again


def spread_reserve(slots: Sequence[int], reserve: int) -> list[int]:
    """Share the pool's background reserve among backends, one slot at a time, largest first, so the
    shares add up to ``reserve`` (capped at the total): background work can then hold at most
    ``total - reserve`` slots, as with one backend."""
    shares = [0] * len(slots)
    order = sorted(range(len(slots)), key=lambda i: -slots[i])
    left = min(reserve, sum(slots))
    while left > 0:
        for i in order:
            if left and shares[i] < slots[i]:
                shares[i] += 1
                left -= 1
    return shares


class PooledSlotPool:
    """The pool the gate talks to: one member :class:`~feedback_intelligence.gate.slots.SlotPool` per
    backend, chosen by ``router``; every slot comes as a :class:`~.slots.Grant` naming its backend.

    ``members`` maps backend names to their pools (each with its own slots and share of the reserve).
    With one member every call goes straight to it: the one-backend gate.
    """

    def __init__(self, members: Mapping[str, SlotPool[Any]], router: BackendRouter | None = None) -> None:
        if not members:
            raise ValueError("a gate needs at least one backend")
        self.members = dict(members)
        self.router = router or BackendRouter(list(self.members))
        if set(self.router.names) != set(self.members):
            raise ValueError("the router and the pool name different backends")
        self._in_use = dict.fromkeys(self.members, 0)  # this process's holders, for least-loaded ordering

    @property
    def slots(self) -> int:
        """Every backend's slots now (an adaptive backend's move with its limit)."""
        return sum(pool.slots for pool in self.members.values())

    @classmethod
    def single(cls, pool: SlotPool[Any], name: str = "llm") -> PooledSlotPool:
        """One backend's pool as the gate's pool."""
        return cls({name: pool})

    # -- stalls ----------------------------------------------------------------------------------

    async def refresh_stalls(self, *, max_age_s: float = STALL_RECHECK_S) -> None:
        """Judge the stalls again if the last verdict is older than ``max_age_s``."""
        now = self.router.clock.monotonic()
        if now - self.router.stalls_judged_at < max_age_s:
            return
        self.router.stalls_judged_at = now  # one judgement at a time, even if it fails
        try:
            occupancy = await self.member_occupancy()
        except PoolUnavailable:
            return  # the acquire that follows meets the same store and fails safe there
        self.router.judge_stalls(occupancy)

    # -- admission -------------------------------------------------------------------------------

    def _offered(self, exclude: Collection[str] = ()) -> list[str]:
        names = [name for name in self.router.serving() if name not in exclude]
        return self.router.order(names, {name: self._in_use[name] / self.members[name].slots for name in names})

    def _granted(self, name: str, inner: Any) -> Grant:
        self._in_use[name] += 1
        return Grant(name, inner)

    async def try_acquire(
        self, priority: Priority, visitor: str = ANONYMOUS, *, exclude: Collection[str] = ()
    ) -> Grant | None:
        """A slot free right now on an offered backend (not one in ``exclude``), in the router's order."""
        for name in self._offered(exclude):
            inner = await self.members[name].try_acquire(priority, visitor)
            if inner is not None:
                return self._granted(name, inner)
        return None

    async def acquire(
        self, priority: Priority, timeout_s: float, visitor: str = ANONYMOUS, *, exclude: Collection[str] = ()
    ) -> Grant | None:
        """Wait at most ``timeout_s`` for a slot on an offered backend (not one in ``exclude``)."""
        names = self._offered(exclude)
        if not names:
            return None
        if len(names) == 1:
            inner = await self.members[names[0]].acquire(priority, timeout_s, visitor)
            return None if inner is None else self._granted(names[0], inner)
        lease = await self.try_acquire(priority, visitor, exclude=exclude)
        if lease is not None or timeout_s <= 0:
            return lease
        # Wait on every offered backend at once, except stalled ones while another can free a slot
        # (a slot a stalled backend frees is one whose call ran into its deadline); the first slot
        # that frees wins, the rest give up. The members share one ledger of attained service, so each orders
        # its waiters as the pool would.
        # The members' waits are the event loop's own timeouts, so the judging they lose is measured on it.
        judging = time.monotonic()
        await self.refresh_stalls()
        names = self.router.unstalled(names)
        timeout_s = max(0.0, timeout_s - (time.monotonic() - judging))  # judging counts towards the wait
        tasks: dict[asyncio.Future[Any], str] = {
            asyncio.ensure_future(self.members[name].acquire(priority, timeout_s, visitor)): name for name in names
        }
        winner: Grant | None = None
        try:
            pending = set(tasks)
            while pending and winner is None:
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    inner = None if task.cancelled() or task.exception() else task.result()
                    if inner is None:
                        if not task.cancelled() and task.exception() is not None and not pending and winner is None:
                            raise task.exception()  # type: ignore[misc]
                        continue
                    if winner is None:
                        winner = self._granted(tasks[task], inner)
                    else:
                        await self.members[tasks[task]].release(inner)
            return winner
        finally:
            await self._abandon(tasks, winner)

    async def _abandon(self, tasks: dict[asyncio.Future[Any], str], winner: Grant | None) -> None:
        """Stop the other waits; a slot one of them got meanwhile goes straight back."""
        for task in tasks:
            task.cancel()
        for task, name in tasks.items():
            with contextlib.suppress(BaseException):
                inner = await task
                if inner is not None and (winner is None or inner is not winner.lease):
                    await self.members[name].release(inner)

    async def observe(self, grant: Grant, latency_s: float, tokens: int, prompt_tokens: int = 0) -> LimitChange | None:
        """A call on ``grant``'s backend completed: feed that backend's limit."""
        return await self.members[grant.backend].observe(latency_s, tokens, prompt_tokens)

    async def release(self, grant: Grant) -> None:
        if grant.released:
            return
        grant.released = True
        self._in_use[grant.backend] -= 1
        await self.members[grant.backend].release(grant.lease)

    # -- preemption: on the pool as a whole (docs/adr/0017) ------------------------------------------

    async def offer(self, grant: Grant, on_preempt: Callable[[], None]) -> None:
        await self.members[grant.backend].offer(grant.lease, on_preempt)

    async def newest_offer(self) -> float | None:
        found = [o for o in await asyncio.gather(*(m.newest_offer() for m in self.members.values())) if o is not None]
        return max(found, default=None)

    async def preempt(self) -> bool:
        """The most recently offered lease among the backends a waiting call is offered to (a visitor
        waits on every serving backend at once, so any of their slots serves it)."""
        names = self.router.serving()
        if len(names) == 1:
            return await self.members[names[0]].preempt()
        found = await asyncio.gather(*(self.members[name].newest_offer() for name in names))
        offers = {name: offered for name, offered in zip(names, found, strict=True) if offered is not None}
        while (name := policy.preemption_victim(offers)) is not None:
            if await self.members[name].preempt():  # False: that offer went meanwhile; try the next newest
                return True
            del offers[name]
        return False

    # -- reading -----------------------------------------------------------------------------------

    async def member_occupancy(self) -> dict[str, Occupancy]:
        names = list(self.members)
        found = await asyncio.gather(*(self.members[name].occupancy() for name in names))
        return dict(zip(names, found, strict=True))

    async def occupancy(self) -> Occupancy:
        members = list((await self.member_occupancy()).values())
        holds = [o.newest_hold_s for o in members if o.newest_hold_s is not None]
        return Occupancy(
            slots=self.slots,
            in_use=sum(o.in_use for o in members),
            waiting_interactive=max(o.waiting_interactive for o in members),
            waiting_background=max(o.waiting_background for o in members),
            healthy=all(o.healthy for o in members),
            newest_hold_s=min(holds) if holds else None,
        )

    async def backend_rows(self) -> list[dict[str, Any]]:
        """Per backend, by name, its state and slots (the router's rows), stalls judged as read."""
        occupancy = await self.member_occupancy()
        self.router.judge_stalls(occupancy)
        return self.router.rows(occupancy)

    async def attained(self) -> dict[str, float]:
        """The gate's ledger of attained service: one per gate, so any member's answer is the gate's."""
        return await next(iter(self.members.values())).attained()

    async def aclose(self) -> None:
        await self.router.aclose()
        for pool in self.members.values():
            await pool.aclose()
