"""The gate's slots over several backends: one slot pool per backend, one gate above them all.

Admission picks a backend with a free slot, least loaded first (in-use share of its slots), ready
ones before warming ones; a backend taken out by its breaker is not offered while others serve. A
call that must wait waits on every offered backend at once and takes the first slot that frees, so
a slow backend frees slots less often and gets proportionally fewer calls. Each backend keeps its
own pool (in-process, or its own leases on Redis), so no backend is ever sent more than its slots,
whatever the replicas do. The background reserve is the pool's: spread over the backends so that
together they keep ``reserve`` slots free for visitors (docs/adr/0016-several-gpus-one-gate.md).

A backend whose every slot has been held with no call finishing for longer than the gate's stall
threshold is *stalled* (frozen, wedged): it is offered last and a waiting call does not wait on it
while another backend can still free a slot. The verdict is judged from each backend's own
occupancy (its leases, across replicas), by the gate and, at most once a second, by a call that
must wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from feedback_intelligence.gate.fairness import ANONYMOUS
from feedback_intelligence.gate.slots import Occupancy, PoolUnavailable, Priority, SlotPool
from feedback_intelligence.llm.backend import Readiness

log = logging.getLogger(__name__)

# The backend whose slot the current call holds. Set by the gate around the admitted work (the work
# runs in the gate's task, so it sees it); read by whoever sends the call (the prompt runner, health).
granted_backend: ContextVar[str | None] = ContextVar("granted_backend", default=None)

STATES = ("ok", "warming", "stalled", "down")
STALL_RECHECK_S = 1.0  # how stale a stall verdict may be before a waiting call judges again


@dataclass(eq=False, slots=True)
class PooledLease:
    backend: str
    inner: Any
    released: bool = False


@dataclass(slots=True)
class BackendState:
    """The breaker of one backend: closed (serving) or open until ``open_until`` and probed back in."""

    name: str
    readiness: Readiness = Readiness.READY
    open_until: float | None = None  # monotonic; None while the breaker is closed
    failures: int = 0
    detail: str = ""
    probe: asyncio.Task[None] | None = field(default=None, repr=False)
    stalled: bool = False  # every slot held, none freed for longer than the stall threshold
    newest_hold_s: float | None = None  # as last judged: age of the newest call still holding a slot

    @property
    def serving(self) -> bool:
        return self.open_until is None

    @property
    def state(self) -> str:
        if not self.serving:
            return "down"
        if self.stalled:
            return "stalled"
        return "warming" if self.readiness is Readiness.WARMING else "ok"


def stalled(occupancy: Occupancy, threshold_s: float) -> bool:
    """Every slot held, and the newest holder admitted longer than ``threshold_s`` ago: the backend
    has stopped finishing calls although every slot looks busy."""
    return (
        occupancy.healthy
        and occupancy.in_use >= occupancy.slots
        and occupancy.newest_hold_s is not None
        and occupancy.newest_hold_s > threshold_s
    )


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
    """A :class:`~feedback_intelligence.gate.slots.SlotPool` over one member pool per backend.

    ``members`` maps backend names to their pools (each with its own slots and share of the reserve);
    ``readiness`` maps them to a cheap readiness check used to probe a tripped backend back in after
    ``cooldown_s``. With one member every call goes straight to it: the one-backend gate of before.
    """

    def __init__(
        self,
        members: Mapping[str, SlotPool[Any]],
        *,
        background_reserve: int = 1,
        cooldown_s: float = 5.0,
        readiness: Mapping[str, Callable[[], Awaitable[Readiness]]] | None = None,
    ) -> None:
        if not members:
            raise ValueError("a gate needs at least one backend")
        self.members = dict(members)
        self.slots = sum(pool.slots for pool in self.members.values())
        self.background_reserve = background_reserve
        self.cooldown_s = cooldown_s
        self._readiness = dict(readiness or {})
        self.states = {name: BackendState(name) for name in self.members}
        self._in_use = dict.fromkeys(self.members, 0)  # this process's holders, for least-loaded ordering
        # Set by the gate that owns the pool (its threshold follows the observed hold times); without
        # one, no backend is ever judged stalled.
        self.stall_threshold_s: Callable[[], float] | None = None
        self._stalls_judged = -STALL_RECHECK_S  # monotonic time of the last verdict

    # -- breaker ---------------------------------------------------------------------------------

    def serving(self) -> list[str]:
        """The backends offered to new calls: those serving, or every one when none serves (then a
        call fails as an LLM failure, as with one backend, instead of being shed as busy)."""
        names = [name for name, state in self.states.items() if state.serving]
        return names or list(self.members)

    def trip(self, name: str, detail: str = "") -> None:
        """Take ``name`` out for a cool-down: its transport failed. It is probed back in afterwards."""
        state = self.states.get(name)
        if state is None or len(self.members) == 1:
            return  # one backend: nothing to move calls to; behave as before
        state.failures += 1
        state.detail = detail
        if state.serving:
            log.warning("backend %s taken out for %.0f s: %s", name, self.cooldown_s, detail)
        state.open_until = time.monotonic() + self.cooldown_s
        if state.probe is None or state.probe.done():
            with contextlib.suppress(RuntimeError):  # no running loop: the next trip starts it
                state.probe = asyncio.get_running_loop().create_task(self._probe_back(state))

    async def _probe_back(self, state: BackendState) -> None:
        check = self._readiness.get(state.name)
        while state.open_until is not None:
            await asyncio.sleep(max(0.0, state.open_until - time.monotonic()))
            readiness = Readiness.READY
            if check is not None:
                try:
                    readiness = await check()
                except Exception as exc:  # a probe that raises is a backend still down
                    log.debug("probe of %s failed: %s", state.name, exc)
                    readiness = Readiness.DOWN
            if readiness is Readiness.DOWN:
                state.open_until = time.monotonic() + self.cooldown_s
                continue
            state.readiness = readiness
            state.open_until = None
            log.warning("backend %s is back in the pool (%s)", state.name, readiness.value)

    def note_readiness(self, name: str, readiness: Readiness) -> None:
        if name in self.states and self.states[name].serving and readiness is not Readiness.DOWN:
            self.states[name].readiness = readiness

    # -- stalls ----------------------------------------------------------------------------------

    def judge_stalls(self, occupancy: Mapping[str, Occupancy], threshold_s: float) -> None:
        """Record each backend's stall verdict from its own occupancy (logged when it changes)."""
        self._stalls_judged = time.monotonic()
        for name, found in occupancy.items():
            state = self.states[name]
            verdict = stalled(found, threshold_s)
            if verdict != state.stalled:
                log.warning(
                    "backend %s %s: every slot held, newest call admitted %.0f s ago (threshold %.0f s)",
                    name,
                    "stalled" if verdict else "finishes calls again",
                    found.newest_hold_s or 0.0,
                    threshold_s,
                )
            state.stalled = verdict
            state.newest_hold_s = found.newest_hold_s

    async def refresh_stalls(self, *, max_age_s: float = STALL_RECHECK_S) -> None:
        """Judge the stalls again if the last verdict is older than ``max_age_s``."""
        if self.stall_threshold_s is None or time.monotonic() - self._stalls_judged < max_age_s:
            return
        self._stalls_judged = time.monotonic()  # one judgement at a time, even if it fails
        try:
            occupancy = await self.member_occupancy()
        except PoolUnavailable:
            return  # the acquire that follows meets the same store and fails safe there
        self.judge_stalls(occupancy, self.stall_threshold_s())

    def _unstalled(self, names: list[str]) -> list[str]:
        """The names of backends not stalled, or all of them when every one is."""
        return [name for name in names if not self.states[name].stalled] or names

    # -- admission -------------------------------------------------------------------------------

    def _order(self, names: list[str]) -> list[str]:
        """Least loaded first, ready before warming, stalled last; ties keep the configured order."""

        def load(name: str) -> tuple[int, int, float]:
            state = self.states[name]
            warming = state.readiness is Readiness.WARMING
            return (1 if state.stalled else 0, 1 if warming else 0, self._in_use[name] / self.members[name].slots)

        return sorted(names, key=load)

    def _granted(self, name: str, inner: Any) -> PooledLease:
        self._in_use[name] += 1
        return PooledLease(name, inner)

    async def try_acquire(self, priority: Priority, visitor: str = ANONYMOUS) -> PooledLease | None:
        for name in self._order(self.serving()):
            inner = await self.members[name].try_acquire(priority, visitor)
            if inner is not None:
                return self._granted(name, inner)
        return None

    async def acquire(self, priority: Priority, timeout_s: float, visitor: str = ANONYMOUS) -> PooledLease | None:
        names = self._order(self.serving())
        if len(names) == 1:
            inner = await self.members[names[0]].acquire(priority, timeout_s, visitor)
            return None if inner is None else self._granted(names[0], inner)
        lease = await self.try_acquire(priority, visitor)
        if lease is not None or timeout_s <= 0:
            return lease
        # Wait on every offered backend at once, except stalled ones while another can free a slot
        # (a slot a stalled backend frees is one whose call ran into its deadline); the first slot
        # that frees wins, the rest give up. The members share one ledger of attained service, so each orders
        # its waiters as the pool would.
        judging = time.monotonic()
        await self.refresh_stalls()
        names = self._unstalled(names)
        timeout_s = max(0.0, timeout_s - (time.monotonic() - judging))  # judging counts towards the wait
        tasks: dict[asyncio.Future[Any], str] = {
            asyncio.ensure_future(self.members[name].acquire(priority, timeout_s, visitor)): name for name in names
        }
        winner: PooledLease | None = None
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

    async def _abandon(self, tasks: dict[asyncio.Future[Any], str], winner: PooledLease | None) -> None:
        """Stop the other waits; a slot one of them got meanwhile goes straight back."""
        for task in tasks:
            task.cancel()
        for task, name in tasks.items():
            with contextlib.suppress(BaseException):
                inner = await task
                if inner is not None and (winner is None or inner is not winner.inner):
                    await self.members[name].release(inner)

    async def release(self, lease: PooledLease) -> None:
        if lease.released:
            return
        lease.released = True
        self._in_use[lease.backend] -= 1
        await self.members[lease.backend].release(lease.inner)

    # -- preemption: on the pool as a whole (docs/adr/0017) ------------------------------------------

    async def offer(self, lease: PooledLease, on_preempt: Callable[[], None]) -> None:
        await self.members[lease.backend].offer(lease.inner, on_preempt)

    async def newest_offer(self) -> float | None:
        found = [o for o in await asyncio.gather(*(m.newest_offer() for m in self.members.values())) if o is not None]
        return max(found, default=None)

    async def preempt(self) -> bool:
        """The most recently offered lease among the backends a waiting call is offered to (a visitor
        waits on every serving backend at once, so any of their slots serves it)."""
        names = self.serving()
        if len(names) == 1:
            return await self.members[names[0]].preempt()
        found = await asyncio.gather(*(self.members[name].newest_offer() for name in names))
        for _, name in sorted(((o, n) for o, n in zip(found, names, strict=True) if o is not None), reverse=True):
            if await self.members[name].preempt():  # False: that offer went meanwhile; try the next newest
                return True
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

    def degraded(self) -> bool:
        """A backend is out of the pool (its breaker is open)."""
        return any(not state.serving for state in self.states.values())

    async def aclose(self) -> None:
        for state in self.states.values():
            if state.probe is not None:
                state.probe.cancel()
        for pool in self.members.values():
            await pool.aclose()
