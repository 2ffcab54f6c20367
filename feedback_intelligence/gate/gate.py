"""The LLM gate: every LLM call in the product passes through here.

Shed, not queue: a call waits at most the acquire timeout for a slot, then raises
:class:`LlmBusy`. Holding a slot, the work runs under a deadline; the slot is released on
success, error, deadline and cancellation alike.

Background yields to a waiting visitor (docs/adr/0017-background-yields-to-a-waiting-clerk.md): a
background call whose caller marked it preemptible (``CallContext.preemptible``) is offered to the pool
while it runs; a visitor that finds no free slot preempts the most recently offered one, whose work is
cancelled (its backend request with it) and raises :class:`LlmPreempted` to its caller, who requeues.

Who may take a slot is gate/policy.py's; which backend, and how each is doing, gate/router.py's; the
gate holds the call (docs/adr/0020-the-gate-as-one-policy.md).
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from feedback_intelligence.gate.context import CallContext
from feedback_intelligence.gate.pooled import PooledSlotPool
from feedback_intelligence.gate.router import BackendRouter, HoldTimeEstimator, Outcome, stalled
from feedback_intelligence.gate.slots import Grant, Occupancy, PoolUnavailable, Priority
from feedback_intelligence.llm.backend import Completion
from feedback_intelligence.llm.errors import (
    LlmBusy,
    LlmDeadlineExceeded,
    LlmFailure,
    LlmPreempted,
    LlmTransportFailure,
    LlmUnavailable,
    LlmWarming,
)
from feedback_intelligence.metrics import Metrics

T = TypeVar("T")
Work = Callable[[Grant], Awaitable[T]]  # the admitted work: told which backend's slot it holds

__all__ = ["CallContext", "Grant", "HoldTimeEstimator", "LlmGate", "Work"]

_RETRY_AFTER_CAP_S = 30
_RETRY_MIN_LEFT_S = 1.0  # a retry on another backend needs at least this much of the call's deadline

log = logging.getLogger(__name__)


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
    every way out (result, error, deadline, cancellation) the slot is released exactly once, and the
    call's outcome goes to the pool's :class:`~.router.BackendRouter` (breaker, hold times). The gate
    records admissions, sheds, waits and hold times in ``metrics`` and estimates ``Retry-After`` from
    the observed hold times and the queue ahead.

    Every call names its :class:`~.context.CallContext`: whose share it counts against, its priority and
    route, and whether it is preemptible. A visitor that finds no free slot first preempts the most
    recently started preemptible background call (one preemption per waiting visitor). An interactive
    call that failed on one backend is tried once more on another with a slot free right now, within
    its deadline (docs/adr/0020-the-gate-as-one-policy.md).
    """

    def __init__(
        self,
        pool: PooledSlotPool,
        *,
        acquire_timeout_s: float,
        call_timeout_s: float,
        metrics: Metrics | None = None,
        preempt_max: int = 2,
    ) -> None:
        self.pool = pool
        self.preempt_max = preempt_max
        self.acquire_timeout_s = acquire_timeout_s
        self.call_timeout_s = call_timeout_s
        self.metrics = metrics or Metrics(call_timeout_s, acquire_timeout_s)
        self.metrics.gate_slots.set(pool.slots)
        for name, member in pool.members.items():
            self.metrics.backend_slots.labels(name).set(member.slots)
            self.metrics.backend_up.labels(name).set(1)
        self._recent_sheds: deque[float] = deque(maxlen=100_000)

    @property
    def router(self) -> BackendRouter:
        return self.pool.router

    @property
    def hold_time(self) -> HoldTimeEstimator:
        return self.router.hold_time

    @property
    def slots(self) -> int:
        return self.pool.slots

    def preemptible(self, preemptions: int) -> bool:
        """Whether background work preempted ``preemptions`` times before may be preempted again
        (aging: not from ``FI_LLM_PREEMPT_MAX`` on; 0 turns preemption off). Callers decide with it."""
        return preemptions < self.preempt_max

    def retry_after_s(self, occupancy: Occupancy | None = None) -> int:
        """Seconds until a slot is likely free: the mean hold time, scaled by the queue ahead."""
        waiting = occupancy.waiting if occupancy else 0
        estimate = self.hold_time.mean_s * (1 + waiting / max(1, self.pool.slots))
        return max(1, min(_RETRY_AFTER_CAP_S, math.ceil(estimate)))

    def stall_threshold_s(self) -> float:
        return self.router.stall_threshold_s()

    def stalled(self, occupancy: Occupancy) -> bool:
        """Every slot held, and the newest holder admitted longer than the threshold ago: the backend
        has stopped finishing calls (frozen, wedged), although every slot looks busy. Recorded in
        ``fi_gate_stalled``."""
        verdict = stalled(occupancy, self.stall_threshold_s())
        self.metrics.gate_stalled.set(1 if verdict else 0)
        return verdict

    async def run(self, work: Work[T], context: CallContext, *, deadline_s: float | None = None) -> T:
        """Wait up to the acquire timeout for a slot, then run ``work(grant)`` under the deadline.
        Waiters are served least attained service of their visitor first (``context.visitor``)."""
        started = time.perf_counter()
        priority = context.priority
        self.metrics.gate_waiting.labels(priority.value).inc()
        try:
            grant = await self._acquire(context)
        except PoolUnavailable as exc:
            # The shared gate cannot be consulted: fail safe, as busy, never unbounded.
            self._shed(context, "gate_unavailable")
            raise LlmBusy("gate_unavailable", self.retry_after_s(), str(exc)) from exc
        finally:
            self.metrics.gate_waiting.labels(priority.value).dec()
            self.metrics.gate_acquire_wait.labels(priority.value).observe(time.perf_counter() - started)
        if grant is None:
            self._shed(context, "acquire_timeout")
            raise LlmBusy("acquire_timeout", self.retry_after_s(await self._safe_occupancy()))
        deadline_at = time.monotonic() + (deadline_s or self.call_timeout_s)
        try:
            return await self._hold(grant, work, context, deadline_s=deadline_s or self.call_timeout_s)
        except LlmFailure as failure:
            retry = await self._retry_grant(grant.backend, context, failure, deadline_at)
            if retry is None:
                raise
            return await self._hold(retry, work, context, deadline_s=deadline_at - time.monotonic())

    async def _retry_grant(
        self, failed_on: str, context: CallContext, failure: LlmFailure, deadline_at: float
    ) -> Grant | None:
        """Where an interactive call that failed on one backend tries once more: a slot on another
        serving backend, waited for at most the acquire timeout, with a useful part of its deadline
        left; else nowhere (the failure stands)."""
        if context.priority is not Priority.INTERACTIVE or len(self.pool.members) < 2:
            return None
        wait_s = min(self.acquire_timeout_s, deadline_at - time.monotonic() - _RETRY_MIN_LEFT_S)
        if wait_s < 0:
            return None
        try:
            grant = await self.pool.acquire(context.priority, wait_s, context.visitor, exclude={failed_on})
        except PoolUnavailable:
            return None
        if grant is not None:
            self.metrics.gate_retries.labels(context.route).inc()
            log.info("%s call failed on %s (%s); retried on %s", context.route, failed_on, failure, grant.backend)
        return grant

    async def _acquire(self, context: CallContext) -> Grant | None:
        priority, visitor = context.priority, context.visitor
        if priority is not Priority.INTERACTIVE or self.preempt_max <= 0:
            return await self.pool.acquire(priority, self.acquire_timeout_s, visitor)
        started = time.monotonic()
        grant = await self.pool.try_acquire(priority, visitor)
        if grant is not None:
            return grant
        # A visitor must wait: the newest preemptible background call gives its slot back (at most one
        # per waiting visitor). Admission itself stays the pool's (gate/policy.py): the freed slot goes
        # to whichever visitor the pool serves next.
        await self.pool.preempt()
        remaining = self.acquire_timeout_s - (time.monotonic() - started)
        return await self.pool.acquire(priority, max(0.0, remaining), visitor)

    async def try_run(
        self, work: Work[T], context: CallContext, *, deadline_s: float | None = None
    ) -> tuple[bool, T | None]:
        """Run ``work`` only if a slot is free right now; ``(False, None)`` without running otherwise."""
        grant = await self.pool.try_acquire(context.priority, context.visitor)
        if grant is None:
            return False, None
        result = await self._hold(grant, work, context, deadline_s=deadline_s or self.call_timeout_s)
        return True, result

    async def _hold(self, grant: Grant, work: Work[T], context: CallContext, *, deadline_s: float) -> T:
        route, priority, backend = context.route, context.priority, grant.backend
        self.metrics.gate_admitted.labels(route, priority.value).inc()
        self.metrics.gate_in_use.inc()
        self.metrics.backend_admitted.labels(backend).inc()
        self.metrics.backend_in_use.labels(backend).inc()
        started = time.perf_counter()
        outcome = Outcome.ERROR
        detail = ""
        preemption: _Preemption | None = None
        try:
            if context.preemptible and self.preempt_max > 0:
                task = asyncio.current_task()
                if task is not None:
                    preemption = _Preemption(task)
                    await self.pool.offer(grant, preemption.fire)
            async with asyncio.timeout(deadline_s) as deadline:
                result = await work(grant)
            outcome = Outcome.OK
            await self._observe(grant, time.perf_counter() - started, result)
            return result
        except (LlmUnavailable, LlmTransportFailure) as exc:
            # The backend could not be reached, or went away mid-call.
            outcome, detail = Outcome.UNAVAILABLE, str(exc)
            raise
        except TimeoutError as exc:
            if deadline.expired():
                outcome, detail = Outcome.DEADLINE, f"no answer within {deadline_s:g} s"
                raise LlmDeadlineExceeded(f"LLM call exceeded its {deadline_s:g} s deadline") from exc
            raise
        except asyncio.CancelledError:
            if preemption is not None and preemption.settle():
                # A waiting visitor took this slot: the work (and its backend request) is cancelled,
                # and the caller requeues it.
                outcome = Outcome.PREEMPTED
                self.metrics.gate_preemptions.labels(route).inc()
                raise LlmPreempted(self.retry_after_s()) from None
            outcome = Outcome.CANCELLED
            raise
        except LlmWarming:
            outcome = Outcome.WARMING  # up, its model still loading: not a failure of the backend
            raise
        except LlmBusy:
            outcome = Outcome.BACKEND_BUSY
            self._shed(context, "backend_busy")
            raise
        except LlmFailure as exc:
            # It answered, but with an error or a reply that could not be read: a failure all the same.
            outcome, detail = Outcome.ERROR, str(exc)
            raise
        finally:
            if preemption is not None:
                preemption.settle()  # no late preemption once the work has ended
            held = time.perf_counter() - started
            self.metrics.gate_in_use.dec()
            self.metrics.backend_in_use.labels(backend).dec()
            if outcome.failed:
                self.metrics.backend_failures.labels(backend, outcome.value).inc()
            self.metrics.llm_call_duration.labels(route, outcome.value).observe(held)
            self.metrics.gate_busy_seconds.inc(held)
            if outcome is not Outcome.ERROR or detail:
                # An error that is not an LLM failure (a bug in the work) says nothing about the backend.
                self.router.on_outcome(backend, outcome, held_s=held, detail=detail)
            await self._release(grant)

    async def _observe(self, grant: Grant, held_s: float, result: object) -> None:
        """Feed a completed call's latency per output token to its backend's limit (gate/limit.py); a
        change shows in ``fi_backend_slots`` and ``fi_gate_slots``."""
        tokens = result.completion_tokens if isinstance(result, Completion) else 0
        prompt = result.prompt_tokens if isinstance(result, Completion) else 0
        change = await self.pool.observe(grant, held_s, tokens, prompt)
        if change is not None:
            self.metrics.backend_slots.labels(grant.backend).set(change.after)
            self.metrics.gate_slots.set(self.pool.slots)

    async def _release(self, grant: Grant) -> None:
        # Shielded so a second cancellation during release cannot strand the slot.
        await asyncio.shield(self.pool.release(grant))

    def _shed(self, context: CallContext, reason: str) -> None:
        self.metrics.gate_sheds.labels(context.route, context.priority.value, reason).inc()
        self._recent_sheds.append(self.router.clock.monotonic())

    def sheds_in_last(self, seconds: float = 60.0) -> int:
        """How many calls this process shed recently (for the operator's status board)."""
        horizon = self.router.clock.monotonic() - seconds
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
        """Per backend, by name: its state (ok, warming, stalled, failing, down), slots, slots held, how
        long ago its newest holder was admitted and its failed calls in a row, for /health and the
        status board (the router's rows); keeps ``fi_backend_up`` / ``fi_backend_stalled`` current, and
        ``fi_backend_slots`` / ``fi_gate_slots`` (a limit shared by replicas moves on any of them) and
        ``fi_backend_limit_yielding``."""
        rows = await self.pool.backend_rows()
        for row in rows:
            self.metrics.backend_slots.labels(row["name"]).set(row["slots"])
            self.metrics.backend_yielding.labels(row["name"]).set(1 if row.get("limitYields") else 0)
        self.metrics.gate_slots.set(self.pool.slots)
        for name, state in self.router.states.items():
            self.metrics.backend_up.labels(name).set(1 if state.serving and not state.tripped else 0)
            self.metrics.backend_stalled.labels(name).set(1 if state.stalled else 0)
        return rows

    async def largest_shares(self, count: int = 5) -> list[tuple[str, float]]:
        """The visitors with the most attained service (decayed slot-seconds), largest first: whom the
        fair order is holding back (docs/adr/0018-fair-shares.md)."""
        attained = await self.pool.attained()
        return sorted(attained.items(), key=lambda item: (-item[1], item[0]))[:count]

    def degraded(self) -> bool:
        return self.router.degraded()

    async def aclose(self) -> None:
        await self.pool.aclose()
