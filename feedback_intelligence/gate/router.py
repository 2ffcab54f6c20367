"""Which backend a call goes to, and how each backend is doing: breaker, stalls, readiness, choice.

One :class:`BackendRouter` per gate. The pool asks it which backends to offer and in which order; the
gate tells it how every call ended (:meth:`BackendRouter.on_outcome`); /health, the metrics and the
status board read its rows. It holds no slots (the pools do) and makes no admission decision (the
policy does) (docs/adr/0020-the-gate-as-one-policy.md).

* **Breaker by outcomes.** From its first failed call (an error answer such as a 5xx, an unreadable
  reply, a deadline) until a success a backend reads ``failing`` and is offered after the others;
  ``breaker_failures`` failures in a row, or ``failure_rate`` of at least ``rate_min_calls`` calls
  within ``rate_window_s``, take it out for ``cooldown_s``, after which its readiness
  check probes it back in on probation (its next failure takes it out again). One that cannot be
  reached, or drops the connection mid-call, is taken out at once and reads ``down``: a refused
  connection is a server gone, not a flake. With one backend there is nothing to move calls to: it
  keeps serving, but still reads ``failing`` or ``down``.
* **Stalls.** Every slot of a backend held, the newest holder admitted longer than the stall
  threshold ago (three mean hold times, never under the floor): the backend stopped finishing calls.
* **Choice.** Stalled last, then backends whose last call failed, then warming ones, then least
  loaded; ties keep the configured order.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from feedback_intelligence.gate.slots import Occupancy
from feedback_intelligence.instants.clock import SYSTEM_CLOCK, Clock
from feedback_intelligence.llm.backend import Readiness

log = logging.getLogger(__name__)

STATES = ("ok", "warming", "stalled", "failing", "down")


class Outcome(StrEnum):
    """How one admitted call ended, as the gate saw it."""

    OK = "ok"
    UNAVAILABLE = "unavailable"  # the backend could not be reached, or the connection broke
    ERROR = "error"  # it answered, but with an error or a reply that could not be read
    DEADLINE = "deadline"
    BACKEND_BUSY = "backend_busy"  # it said busy: up, just full
    WARMING = "warming"  # it said its model is still loading
    PREEMPTED = "preempted"
    CANCELLED = "cancelled"  # the caller went away: says nothing about the backend

    @property
    def failed(self) -> bool:
        return self in (Outcome.UNAVAILABLE, Outcome.ERROR, Outcome.DEADLINE)


class HoldTimeEstimator:
    """An exponentially weighted mean of slot hold times, for an honest ``Retry-After`` and the stall
    threshold."""

    def __init__(self, initial_s: float = 1.0, weight: float = 0.2) -> None:
        self.mean_s = initial_s
        self.observed = 0  # completed calls seen; until the first, mean_s is only a guess
        self._weight = weight

    def observe(self, seconds: float) -> None:
        # the first observation replaces the guess: the mean is of observed hold times only
        self.mean_s = seconds if not self.observed else self.mean_s + self._weight * (seconds - self.mean_s)
        self.observed += 1


def stalled(occupancy: Occupancy, threshold_s: float) -> bool:
    """Every slot held, and the newest holder admitted longer than ``threshold_s`` ago: the backend
    has stopped finishing calls although every slot looks busy."""
    return (
        occupancy.healthy
        and occupancy.in_use >= occupancy.slots
        and occupancy.newest_hold_s is not None
        and occupancy.newest_hold_s > threshold_s
    )


@dataclass(slots=True)
class BackendState:
    """One backend as the router sees it: its breaker (closed, or open until ``open_until``), its run
    of failures, readiness and stall verdict."""

    name: str
    readiness: Readiness = Readiness.READY
    open_until: float | None = None  # monotonic; None while the breaker is closed
    failures: int = 0  # failed calls in a row; a success resets it
    unreachable: bool = False  # the last failure was one of reaching it at all
    detail: str = ""
    probe: asyncio.Task[None] | None = field(default=None, repr=False)
    stalled: bool = False  # every slot held, none freed for longer than the stall threshold
    newest_hold_s: float | None = None  # as last judged: age of the newest call still holding a slot
    tripped: bool = False  # the breaker opened (with one backend it stays in service, failing)
    probation: bool = False  # back from a trip: its next failure takes it out again, a success clears it
    recent: deque[tuple[float, bool]] = field(default_factory=deque, repr=False)  # (when, failed) in the window

    @property
    def serving(self) -> bool:
        return self.open_until is None

    @property
    def failing(self) -> bool:
        """Out at its breaker, or its last call failed (it is then offered after the others)."""
        return self.tripped or self.failures > 0

    @property
    def state(self) -> str:
        if self.tripped and self.unreachable:
            return "down"
        if self.failing:
            return "failing"
        if self.stalled:
            return "stalled"
        return "warming" if self.readiness is Readiness.WARMING else "ok"


StateHook = Callable[[BackendState], None]


def rows_shown(rows: list[dict[str, Any]]) -> bool:
    """Whether /health and the status board list the backends: several of them, or one whose slots are an
    adaptive limit (its current value and last move are worth seeing)."""
    return len(rows) > 1 or any(row.get("adaptiveLimit") for row in rows)


class BackendRouter:
    """Breaker, stall, readiness and choice for the backends of one gate (see the module docstring).

    ``readiness`` maps backend names to a cheap readiness check that probes a tripped backend back in
    after the cool-down; ``on_state`` is told whenever a backend's state may have changed (metrics).
    ``clock`` times the cool-down, the failure-rate window and how fresh the stall verdicts are; a lease's
    age is its pool's ledger's (gate/factory.py hands both the same clock).
    """

    def __init__(
        self,
        names: Sequence[str],
        *,
        breaker_failures: int = 3,
        failure_rate: float = 0.5,
        rate_window_s: float = 60.0,
        rate_min_calls: int = 10,
        cooldown_s: float = 5.0,
        call_timeout_s: float = 120.0,
        stall_floor_s: float = 10.0,
        readiness: Mapping[str, Callable[[], Awaitable[Readiness]]] | None = None,
        on_state: StateHook | None = None,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        if not names:
            raise ValueError("a gate needs at least one backend")
        self.states = {name: BackendState(name) for name in names}
        self.clock = clock
        self.breaker_failures = max(1, breaker_failures)
        # The rate rule: at least ``rate_min_calls`` calls within ``rate_window_s``, ``failure_rate`` of
        # them failed (a backend that fails every other call never makes a run, yet fails the room).
        self.failure_rate = failure_rate
        self.rate_window_s = rate_window_s
        self.rate_min_calls = rate_min_calls
        self.cooldown_s = cooldown_s
        self.call_timeout_s = call_timeout_s
        self.stall_floor_s = stall_floor_s
        self.hold_time = HoldTimeEstimator()
        self.stalls_judged_at = -math.inf  # monotonic time of the last stall verdict
        self._readiness = dict(readiness or {})
        self._on_state = on_state or (lambda state: None)

    @property
    def names(self) -> list[str]:
        return list(self.states)

    # -- outcomes and the breaker --------------------------------------------------------------------

    def on_outcome(self, backend: str, outcome: Outcome, *, held_s: float = 0.0, detail: str = "") -> None:
        """How a call on ``backend`` ended: a success closes its run of failures (and teaches the hold
        time); ``breaker_failures`` failures in a row open its breaker."""
        state = self.states.get(backend)
        if state is None:
            return
        if outcome is Outcome.OK or outcome.failed:
            self._remember(state, failed=outcome.failed)
        if outcome is Outcome.OK:
            self.hold_time.observe(held_s)
            state.failures = 0
            state.probation = False
            if state.serving and not state.tripped:
                state.readiness = Readiness.READY  # it answered: warm now
        elif outcome is Outcome.WARMING:
            self.note_readiness(backend, Readiness.WARMING)
        elif outcome.failed:
            state.failures += 1
            state.unreachable = outcome is Outcome.UNAVAILABLE
            state.detail = detail
            # A server that cannot be reached (or dropped the connection) is gone, not flaky: out at
            # once. One that answers, but badly, goes out at its run of failures.
            if (
                outcome is Outcome.UNAVAILABLE
                or state.probation
                or state.failures >= self.breaker_failures
                or self._failing_rate(state)
            ):
                self._trip(state)
        self._on_state(state)

    def _remember(self, state: BackendState, *, failed: bool) -> None:
        now = self.clock.monotonic()
        state.recent.append((now, failed))
        while state.recent and state.recent[0][0] < now - self.rate_window_s:
            state.recent.popleft()

    def _failing_rate(self, state: BackendState) -> bool:
        calls = len(state.recent)
        failed = sum(1 for _, was_failed in state.recent if was_failed)
        return calls >= self.rate_min_calls and failed >= self.failure_rate * calls

    def _trip(self, state: BackendState) -> None:
        if not state.tripped:
            log.warning(
                "backend %s taken out for %.0f s (%d failed calls in a row, %d of its last %d): %s",
                state.name,
                self.cooldown_s,
                state.failures,
                sum(1 for _, failed in state.recent if failed),
                len(state.recent),
                state.detail,
            )
        state.tripped = True
        if len(self.states) == 1:
            return  # one backend: nothing to move calls to; it keeps serving, and reads failing
        state.open_until = self.clock.monotonic() + self.cooldown_s
        if state.probe is None or state.probe.done():
            with contextlib.suppress(RuntimeError):  # no running loop: the next trip starts it
                state.probe = asyncio.get_running_loop().create_task(self._probe_back(state))

    async def _probe_back(self, state: BackendState) -> None:
        check = self._readiness.get(state.name)
        while state.open_until is not None:
            await self.clock.sleep(max(0.0, state.open_until - self.clock.monotonic()))
            readiness = Readiness.READY
            if check is not None:
                try:
                    readiness = await check()
                except Exception as exc:  # a probe that raises is a backend still down
                    log.debug("probe of %s failed: %s", state.name, exc)
                    readiness = Readiness.DOWN
            if readiness is Readiness.DOWN:
                state.open_until = self.clock.monotonic() + self.cooldown_s
                continue
            # Back on probation: one more failure takes it out again at once.
            state.readiness = readiness
            state.open_until = None
            state.tripped = False
            state.failures = 0
            state.probation = True
            log.warning("backend %s is back in the pool (%s)", state.name, readiness.value)
            self._on_state(state)

    def note_readiness(self, name: str, readiness: Readiness) -> None:
        """What a warm-up or readiness check found (a warm backend is offered before a warming one)."""
        state = self.states.get(name)
        if state is not None and state.serving and not state.tripped and readiness is not Readiness.DOWN:
            state.readiness = readiness

    def serving(self) -> list[str]:
        """The backends offered to new calls: those serving, or every one when none serves (then a
        call fails as an LLM failure, as with one backend, instead of being shed as busy)."""
        names = [name for name, state in self.states.items() if state.serving]
        return names or list(self.states)

    def degraded(self) -> bool:
        """A backend is out of service, or its last call failed."""
        return any(state.failing for state in self.states.values())

    # -- stalls ------------------------------------------------------------------------------------

    def stall_threshold_s(self) -> float:
        """How long every slot may stay held with no room made before a backend counts as stalled:
        three mean hold times, never under the floor (the health budget); the call deadline while
        no call has completed yet, because then there is no mean to judge by."""
        if not self.hold_time.observed:
            return self.call_timeout_s
        return max(3 * self.hold_time.mean_s, self.stall_floor_s)

    def judge_stalls(self, occupancy: Mapping[str, Occupancy], threshold_s: float | None = None) -> None:
        """Record each backend's stall verdict from its own occupancy (logged when it changes)."""
        threshold = self.stall_threshold_s() if threshold_s is None else threshold_s
        self.stalls_judged_at = self.clock.monotonic()
        for name, found in occupancy.items():
            state = self.states[name]
            verdict = stalled(found, threshold)
            if verdict != state.stalled:
                log.warning(
                    "backend %s %s: every slot held, newest call admitted %.0f s ago (threshold %.0f s)",
                    name,
                    "stalled" if verdict else "finishes calls again",
                    found.newest_hold_s or 0.0,
                    threshold,
                )
            state.stalled = verdict
            state.newest_hold_s = found.newest_hold_s
            self._on_state(state)

    def unstalled(self, names: list[str]) -> list[str]:
        """The names of backends not stalled, or all of them when every one is."""
        return [name for name in names if not self.states[name].stalled] or names

    # -- choice ------------------------------------------------------------------------------------

    def order(self, names: list[str], load: Mapping[str, float]) -> list[str]:
        """Stalled last, then those whose last call failed, then warming ones, then least loaded
        (``load``: in-use share of each backend's slots); ties keep the configured order."""

        def key(name: str) -> tuple[int, int, int, float]:
            state = self.states[name]
            return (
                1 if state.stalled else 0,
                1 if state.failures else 0,
                1 if state.readiness is Readiness.WARMING else 0,
                load.get(name, 0.0),
            )

        return sorted(names, key=key)

    # -- reading -----------------------------------------------------------------------------------

    def rows(self, occupancy: Mapping[str, Occupancy]) -> list[dict[str, Any]]:
        """Per backend, by name: its state (ok, warming, stalled, failing, down), slots, slots held,
        how long ago its newest holder was admitted, and its failed calls in a row, for /health and the
        status board."""
        rows = []
        for name, state in self.states.items():
            found = occupancy[name]
            held = found.newest_hold_s
            rows.append(
                {
                    "name": name,
                    "state": state.state,
                    "slots": found.slots,
                    "inUse": found.in_use,
                    "newestHoldSeconds": None if held is None else round(held, 1),
                    "failuresInARow": state.failures,
                    "adaptiveLimit": found.adaptive,
                    "limitReason": found.limit_reason,
                    "limitYields": found.yielding,
                }
            )
        return rows

    async def aclose(self) -> None:
        for state in self.states.values():
            if state.probe is not None:
                state.probe.cancel()
