"""Slot pools: where the gate's slots live (this process, or Redis for several replicas).

A pool only hands out and takes back slots. Deadlines, metrics and release-on-every-path
live once, in :class:`feedback_intelligence.gate.gate.LlmGate`, above any pool.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol, TypeVar

from feedback_intelligence.gate.fairness import ANONYMOUS
from feedback_intelligence.gate.limit import LimitChange


class Priority(StrEnum):
    INTERACTIVE = "interactive"  # a person is waiting: interpret, ingest
    BACKGROUND = "background"  # nobody is waiting on this exact call: report prose, restructure


@dataclass(frozen=True, slots=True)
class Occupancy:
    slots: int
    in_use: int
    waiting_interactive: int
    waiting_background: int
    healthy: bool = True  # False when the pool's own store (Redis) cannot be reached
    detail: str = ""
    # How long ago the most recently admitted call that still holds a slot was admitted; None when
    # no slot is held. With every slot held, it is how long the gate has made no room for anyone.
    newest_hold_s: float | None = None
    # Whether ``slots`` is an adaptive limit (gate/limit.py) and why it last moved.
    adaptive: bool = False
    limit_reason: str = ""
    # Whether the adaptive limit yields to another load it sees on the GPU (gate/neighbour.py).
    yielding: bool = False

    @property
    def waiting(self) -> int:
        return self.waiting_interactive + self.waiting_background

    @property
    def free(self) -> int:
        return max(0, self.slots - self.in_use)


@dataclass(eq=False, slots=True)
class Grant:
    """A slot the gate admitted a call into: the backend whose slot it is and that backend's pool's
    lease. The gate hands it to the work, which sends its call to ``backend``; it goes back through
    the pool exactly once."""

    backend: str
    lease: Any
    released: bool = field(default=False, repr=False)


LeaseT = TypeVar("LeaseT")  # each pool's own lease type: a held slot, released exactly once through its pool


class PoolUnavailable(Exception):
    """The pool's shared store cannot be reached; callers must fail safe (treat as busy).

    ``str(exc)`` names the store's address (logs, operator routes); :attr:`public` does not."""

    public = "the shared gate store cannot be reached"


class SlotPool(Protocol[LeaseT]):
    """Where a gate's slots live. A lease comes from ``acquire`` or ``try_acquire`` and goes back through
    ``release`` exactly once; nothing else may end it (except expiry, for a pool shared by replicas)."""

    background_reserve: int

    @property
    def slots(self) -> int:
        """How many calls the backend runs at once now (its limit: fixed, or adaptive)."""
        ...

    async def observe(self, latency_s: float, tokens: int, prompt_tokens: int = 0) -> LimitChange | None:
        """A call held ``latency_s`` produced ``tokens`` output tokens from ``prompt_tokens`` of prompt:
        feed the pool's limit."""
        ...

    async def acquire(self, priority: Priority, timeout_s: float, visitor: str = ANONYMOUS) -> LeaseT | None:
        """Wait at most ``timeout_s`` for a slot; ``None`` when none came free in time. Waiters of one
        priority are served least attained service of their ``visitor`` first (gate/fairness.py)."""
        ...

    async def try_acquire(self, priority: Priority, visitor: str = ANONYMOUS) -> LeaseT | None:
        """Take a slot only if one is free right now; never waits."""
        ...

    async def release(self, lease: LeaseT) -> None: ...

    # -- preemption (docs/adr/0017-background-yields-to-a-waiting-clerk.md) --------------------------

    async def offer(self, lease: LeaseT, on_preempt: Callable[[], None]) -> None:
        """Let a waiting visitor preempt ``lease`` (background work): ``on_preempt`` runs at most once,
        in this process, when one does. The offer ends with the lease's release."""
        ...

    async def newest_offer(self) -> float | None:
        """When the most recently offered lease not yet preempted was offered (on the pool's own
        clock, comparable between the members of one pool); ``None`` when there is none."""
        ...

    async def preempt(self) -> bool:
        """A visitor must wait: preempt the most recently offered lease (its holder, in whichever process,
        learns it and gives the slot back). False when no offered lease is left to preempt."""
        ...

    async def occupancy(self) -> Occupancy: ...

    async def attained(self) -> dict[str, float]:
        """Each remembered visitor's decayed attained service in slot-seconds (one ledger per gate)."""
        ...

    async def aclose(self) -> None: ...
