"""The LLM gate: every LLM call in the product passes through here.

Shed, not queue: a call waits at most the acquire timeout for a slot, then raises
:class:`LlmBusy`. Holding a slot, the work runs under a deadline; the slot is released on
success, error, deadline and cancellation alike.

Background yields to a waiting visitor (docs/adr/0017-background-yields-to-a-waiting-clerk.md): a
background call that has been preempted fewer than ``preempt_max`` times is offered to the pool while
it runs; a visitor that finds no free slot preempts the most recently offered one, whose work is
cancelled (its backend request with it) and raises :class:`LlmPreempted` to its caller, who requeues.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from feedback_intelligence.gate.fairness import ANONYMOUS, current_visitor
from feedback_intelligence.gate.pooled import PooledLease, PooledSlotPool, granted_backend, stalled
from feedback_intelligence.gate.slots import Occupancy, PoolUnavailable, Priority, SlotPool
from feedback_intelligence.llm.backend import Readiness
from feedback_intelligence.llm.errors import (
    LlmBusy,
    LlmDeadlineExceeded,
    LlmPreempted,
    LlmTransportFailure,
    LlmUnavailable,
)
from feedback_intelligence.metrics import Metrics

T = TypeVar("T")

_RETRY_AFTER_CAP_S = 30


class HoldTimeEstimator:
    """An exponentially weighted mean of slot hold times, for an honest ``Retry-After``."""

    def __init__(self, initial_s: float = 1.0, weight: float = 0.2) -> None:
        self.mean_s = initial_s
        self.observed = 0  # completed calls seen; until the first, mean_s is only a guess
        self._weight = weight

    def observe(self, seconds: float) -> None:
        # the first observation replaces the guess: the mean is of observed hold times only
        self.mean_s = seconds if not self.observed else self.mean_s + self._weight * (seconds - self.mean_s)
        self.observed += 1


class _Preemption:
    """The holder's side of one preemptible call: a preemption cancels the holding task, the way
    ``asyncio.timeout`` does, and the gate turns that cancellation (and only that one) into
    :class:`LlmPreempted`. Once the work has ended a late preemption is ignored."""

    def __init__(self, task: asyncio.Task[Any]) -> None:
        self.task = task
        self.baseline = task.cancelling()
        self.fired = False
        self._open = True

    def fire(self) -> None:
        if self._open and not self.fired:
            self.fired = True
            self.task.cancel("preempted by a waiting visitor")

    def settle(self) -> bool:
        """Close to further preemption; True when ours was the only cancellation of the task (then the
        cancel request is withdrawn and the caller raises :class:`LlmPreempted` instead)."""
        if not self._open:
            return False
        self._open = False
        if not self.fired:
            return False
        return self.task.uncancel() <= self.baseline


class LlmGate:
    """Admits LLM work into the slots of a pool: shed, not queue (docs/invariants.md, invariants 1, 2, 6).

    ``run`` waits at most ``acquire_timeout_s`` for a slot, then raises
    :class:`~feedback_intelligence.llm.errors.LlmBusy` (reason ``acquire_timeout``, or ``gate_unavailable``
    when the pool's store cannot be reached); once admitted, the work runs under a deadline whose expiry
    raises :class:`~feedback_intelligence.llm.errors.LlmDeadlineExceeded`. ``try_run`` never waits. On
    every way out (result, error, deadline, cancellation) the slot is released exactly once. The gate
    records admissions, sheds, waits and hold times in ``metrics`` and estimates ``Retry-After`` from
    the observed hold times and the queue ahead.

    A visitor that finds no free slot first preempts the most recently started background call still
    offered (one preemption per waiting visitor); a background call is offered while its work item
    has been preempted fewer than ``preempt_max`` times (``0`` turns preemption off).
    """

    def __init__(
        self,
        pool: SlotPool[Any],
        *,
        acquire_timeout_s: float,
        call_timeout_s: float,
        metrics: Metrics | None = None,
        stall_floor_s: float = 10.0,
        preempt_max: int = 2,
    ) -> None:
        self.pool = pool
        self.preempt_max = preempt_max
        self.acquire_timeout_s = acquire_timeout_s
        self.call_timeout_s = call_timeout_s
        self.stall_floor_s = stall_floor_s
        self.metrics = metrics or Metrics(call_timeout_s, acquire_timeout_s)
        self.hold_time = HoldTimeEstimator()
        self.metrics.gate_slots.set(pool.slots)
        if isinstance(pool, PooledSlotPool):
            pool.stall_threshold_s = self.stall_threshold_s  # each backend is judged by the gate's threshold
            for name, member in pool.members.items():
                self.metrics.backend_slots.labels(name).set(member.slots)
                self.metrics.backend_up.labels(name).set(1)
        self._recent_sheds: deque[float] = deque(maxlen=100_000)

    @property
    def slots(self) -> int:
        return self.pool.slots

    @staticmethod
    def visitor_of(priority: Priority, route: str, visitor: str | None) -> str:
        """Whose share a call counts against: the one named, else background work by its route (never
        the visitor whose request started it), else the visitor the edge set for this request."""
        if visitor:
            return visitor
        if priority is Priority.BACKGROUND:
            return f"background:{route}"
        return current_visitor.get() or ANONYMOUS

    def retry_after_s(self, occupancy: Occupancy | None = None) -> int:
        """Seconds until a slot is likely free: the mean hold time, scaled by the queue ahead."""
        waiting = occupancy.waiting if occupancy else 0
        estimate = self.hold_time.mean_s * (1 + waiting / max(1, self.pool.slots))
        return max(1, min(_RETRY_AFTER_CAP_S, math.ceil(estimate)))

    def stall_threshold_s(self) -> float:
        """How long every slot may stay held with no room made before the gate counts as stalled:
        three mean hold times, never under the floor (the health budget); the call deadline while
        no call has completed yet, because then there is no mean to judge by."""
        if not self.hold_time.observed:
            return self.call_timeout_s
        return max(3 * self.hold_time.mean_s, self.stall_floor_s)

    def stalled(self, occupancy: Occupancy) -> bool:
        """Every slot held, and the newest holder admitted longer than the threshold ago: the backend
        has stopped finishing calls (frozen, wedged), although every slot looks busy. Recorded in
        ``fi_gate_stalled``."""
        verdict = stalled(occupancy, self.stall_threshold_s())
        self.metrics.gate_stalled.set(1 if verdict else 0)
        return verdict

    async def run(
        self,
        work: Callable[[], Awaitable[T]],
        *,
        priority: Priority = Priority.INTERACTIVE,
        route: str = "other",
        deadline_s: float | None = None,
        visitor: str | None = None,
        preempted: int = 0,
    ) -> T:
        """Wait up to the acquire timeout for a slot, then run ``work`` under the deadline. Waiters are
        served least attained service of their visitor first (``visitor_of``).

        ``preempted``: how often the work item behind a background call was preempted before (aging:
        from ``preempt_max`` on it is not offered for preemption again)."""
        started = time.perf_counter()
        self.metrics.gate_waiting.labels(priority.value).inc()
        try:
            lease = await self._acquire(priority, self.visitor_of(priority, route, visitor))
        except PoolUnavailable as exc:
            # The shared gate cannot be consulted: fail safe, as busy, never unbounded.
            self._shed(route, priority, "gate_unavailable")
            raise LlmBusy("gate_unavailable", self.retry_after_s(), str(exc)) from exc
        finally:
            self.metrics.gate_waiting.labels(priority.value).dec()
            self.metrics.gate_acquire_wait.labels(priority.value).observe(time.perf_counter() - started)
        if lease is None:
            self._shed(route, priority, "acquire_timeout")
            raise LlmBusy("acquire_timeout", self.retry_after_s(await self._safe_occupancy()))
        return await self._hold(lease, work, priority=priority, route=route, deadline_s=deadline_s, preempted=preempted)

    async def _acquire(self, priority: Priority, visitor: str) -> object | None:
        if priority is not Priority.INTERACTIVE or self.preempt_max <= 0:
            return await self.pool.acquire(priority, self.acquire_timeout_s, visitor)
        started = time.monotonic()
        lease: object | None = await self.pool.try_acquire(priority, visitor)
        if lease is not None:
            return lease
        # A visitor must wait: the newest preemptible background call gives its slot back (at most one
        # per waiting visitor). Admission itself stays the pool's (``admits``): the freed slot goes to
        # whichever visitor the pool serves next.
        await self.pool.preempt()
        remaining = self.acquire_timeout_s - (time.monotonic() - started)
        lease = await self.pool.acquire(priority, max(0.0, remaining), visitor)
        return lease

    async def try_run(
        self,
        work: Callable[[], Awaitable[T]],
        *,
        priority: Priority = Priority.INTERACTIVE,
        route: str = "health",
        deadline_s: float | None = None,
        visitor: str | None = None,
    ) -> tuple[bool, T | None]:
        """Run ``work`` only if a slot is free right now; ``(False, None)`` without running otherwise."""
        lease = await self.pool.try_acquire(priority, self.visitor_of(priority, route, visitor))
        if lease is None:
            return False, None
        result = await self._hold(lease, work, priority=priority, route=route, deadline_s=deadline_s)
        return True, result

    async def _hold(
        self,
        lease: object,
        work: Callable[[], Awaitable[T]],
        *,
        priority: Priority,
        route: str,
        deadline_s: float | None,
        preempted: int = 0,
    ) -> T:
        self.metrics.gate_admitted.labels(route, priority.value).inc()
        self.metrics.gate_in_use.inc()
        backend = lease.backend if isinstance(lease, PooledLease) else None
        token = granted_backend.set(backend)  # the work sends its call to the backend whose slot this is
        if backend is not None:
            self.metrics.backend_admitted.labels(backend).inc()
            self.metrics.backend_in_use.labels(backend).inc()
        started = time.perf_counter()
        outcome = "error"
        preemption: _Preemption | None = None
        try:
            if priority is Priority.BACKGROUND and preempted < self.preempt_max:
                task = asyncio.current_task()
                if task is not None:
                    preemption = _Preemption(task)
                    await self.pool.offer(lease, preemption.fire)
            async with asyncio.timeout(deadline_s or self.call_timeout_s) as deadline:
                result = await work()
            outcome = "ok"
            return result
        except (LlmUnavailable, LlmTransportFailure) as exc:
            # The backend's transport failed: the call fails as an LLM failure, and the breaker
            # takes that backend out so the next calls go to the others.
            outcome = "unavailable"
            if backend is not None and isinstance(self.pool, PooledSlotPool):
                self.pool.trip(backend, str(exc))
                self.metrics.backend_up.labels(backend).set(1 if self.pool.states[backend].serving else 0)
            raise
        except TimeoutError as exc:
            if deadline.expired():
                outcome = "deadline"
                raise LlmDeadlineExceeded(
                    f"LLM call exceeded its {deadline_s or self.call_timeout_s:g} s deadline"
                ) from exc
            raise
        except asyncio.CancelledError:
            if preemption is not None and preemption.settle():
                # A waiting visitor took this slot: the work (and its backend request) is cancelled,
                # and the caller requeues it.
                outcome = "preempted"
                self.metrics.gate_preemptions.labels(route).inc()
                raise LlmPreempted(self.retry_after_s()) from None
            outcome = "cancelled"
            raise
        except LlmBusy:
            outcome = "backend_busy"
            self._shed(route, priority, "backend_busy")
            raise
        finally:
            if preemption is not None:
                preemption.settle()  # no late preemption once the work has ended
            granted_backend.reset(token)
            held = time.perf_counter() - started
            self.metrics.gate_in_use.dec()
            if backend is not None:
                self.metrics.backend_in_use.labels(backend).dec()
                if outcome not in ("ok", "cancelled", "backend_busy", "preempted"):
                    self.metrics.backend_failures.labels(backend, outcome).inc()
            self.metrics.llm_call_duration.labels(route, outcome).observe(held)
            self.metrics.gate_busy_seconds.inc(held)
            if outcome == "ok":
                self.hold_time.observe(held)
                if backend is not None and isinstance(self.pool, PooledSlotPool):
                    self.pool.note_readiness(backend, Readiness.READY)  # it answered: warm now
            await self._release(lease)

    async def _release(self, lease: object) -> None:
        # Shielded so a second cancellation during release cannot strand the slot.
        await asyncio.shield(self.pool.release(lease))

    def _shed(self, route: str, priority: Priority, reason: str) -> None:
        self.metrics.gate_sheds.labels(route, priority.value, reason).inc()
        self._recent_sheds.append(time.monotonic())

    def sheds_in_last(self, seconds: float = 60.0) -> int:
        """How many calls this process shed recently (for the operator's status board)."""
        horizon = time.monotonic() - seconds
        while self._recent_sheds and self._recent_sheds[0] < horizon:
            self._recent_sheds.popleft()
        return len(self._recent_sheds)

    async def _safe_occupancy(self) -> Occupancy | None:
        try:
            return await self.pool.occupancy()
        except PoolUnavailable:
            return None

    async def occupancy(self) -> Occupancy:
        return await self.pool.occupancy()

    async def backends(self) -> list[dict[str, Any]]:
        """Per backend, by name: its state (ok, warming, stalled, down), slots, slots held and how long
        ago its newest holder was admitted, for /health and the status board; judges each backend's
        stall as it reads (``fi_backend_stalled``). Empty when the pool is not one of backends."""
        if not isinstance(self.pool, PooledSlotPool):
            return []
        occupancy = await self.pool.member_occupancy()
        self.pool.judge_stalls(occupancy, self.stall_threshold_s())
        rows = []
        for name, state in self.pool.states.items():
            self.metrics.backend_up.labels(name).set(1 if state.serving else 0)
            self.metrics.backend_stalled.labels(name).set(1 if state.stalled else 0)
            held = occupancy[name].newest_hold_s
            rows.append(
                {
                    "name": name,
                    "state": state.state,
                    "slots": occupancy[name].slots,
                    "inUse": occupancy[name].in_use,
                    "newestHoldSeconds": None if held is None else round(held, 1),
                }
            )
        return rows

    async def largest_shares(self, count: int = 5) -> list[tuple[str, float]]:
        """The visitors with the most attained service (decayed slot-seconds), largest first: whom the
        fair order is holding back (docs/adr/0018-fair-shares.md). One ledger per gate, so with several
        backends any member's answer is the gate's."""
        pool: Any = self.pool
        if isinstance(pool, PooledSlotPool):
            pool = next(iter(pool.members.values()))
        attained = await pool.attained()
        return sorted(attained.items(), key=lambda item: (-item[1], item[0]))[:count]

    def degraded(self) -> bool:
        return isinstance(self.pool, PooledSlotPool) and self.pool.degraded()

    async def aclose(self) -> None:
        await self.pool.aclose()
