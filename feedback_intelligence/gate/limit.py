"""How many calls one backend may run at once: the number its slot pool admits against.

A :class:`FixedLimit` is the declared slots (Ollama, where parallelism is a server setting; every
backend unless the operator opts in). A :class:`Gradient2Limit` is for servers that batch (vLLM, SGLang,
``llama-server`` with continuous batching): it moves between a floor and the backend's declared
parallelism from the latency per output token of each completed call, as Netflix concurrency-limits'
``Gradient2Limit`` does with round-trip times (docs/adr/0067-adaptive-limit-for-batching-backends.md).

A limit only decides the number; who takes a slot under it stays gate/policy.py's.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Protocol

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class LimitChange:
    """One move of a limit and why: the figures it was judged on (logged, shown to the operator)."""

    backend: str
    before: int
    after: int
    reason: str


class Limit(Protocol):
    """The number of calls a backend's pool admits at once."""

    @property
    def current(self) -> int: ...

    @property
    def adaptive(self) -> bool: ...

    def sample(self, latency_s: float, tokens: int, in_flight: int) -> LimitChange | None:
        """One completed call: it was held ``latency_s`` and produced ``tokens`` output tokens while
        ``in_flight`` calls (itself included) ran on the backend. The change it caused, if any."""
        ...


class FixedLimit:
    """The declared slots, whatever the latency: today's gate."""

    adaptive = False

    def __init__(self, slots: int) -> None:
        if slots < 1:
            raise ValueError("a gate needs at least one slot")
        self._slots = slots

    @property
    def current(self) -> int:
        return self._slots

    def sample(self, latency_s: float, tokens: int, in_flight: int) -> LimitChange | None:
        return None


class ExpAvg:
    """An exponential average over about ``window`` samples, a plain mean over the first ``warmup``
    (concurrency-limits' ``ExpAvgMeasurement``)."""

    def __init__(self, window: int, warmup: int = 10) -> None:
        self.factor = 2.0 / (window + 1)
        self.warmup = warmup
        self.value = 0.0
        self._count = 0
        self._sum = 0.0

    def add(self, sample: float) -> float:
        if self._count < self.warmup:
            self._count += 1
            self._sum += sample
            self.value = self._sum / self._count
        else:
            self.value = self.value * (1 - self.factor) + sample * self.factor
        return self.value


@dataclass(frozen=True, slots=True)
class Gradient2Settings:
    floor: int = 2
    ceiling: int = 64  # the backend's declared parallelism; the limit never exceeds it
    initial: int | None = None  # None: the floor
    tolerance: float = 1.5  # how much slower than its long-run average a token may get before the limit falls
    smoothing: float = 0.2
    # Gradient2's "queue size", what the limit adds per sample when latency holds: None is the square
    # root of the limit (concurrency-limits' SquareRootFunction), so that a limit of 2 can fall to 4 or
    # below under overload, where a constant 4 would hold it at 8 or more.
    growth: float | None = None
    long_window: int = 600  # samples in the long-run average
    # An absolute latency per output token above which the limit falls whatever the long-run average
    # says (0: none, pure Gradient2): a neighbour that loads the GPU for long raises the average too.
    target_s_per_token: float = 0.0


class Gradient2Limit:
    """Gradient2 on the latency per output token.

    Each sample compares this call's latency per token (short) with the long-run average (long):
    ``gradient = clamp(tolerance * long / short, 0.5, 1)``, and with a target, also at most
    ``target / short``; the new limit is ``limit * gradient + growth``, smoothed, within the floor and
    the ceiling. It settles where ``limit * (1 - gradient) = growth``: a token somewhat slower than the
    long-run average (or the target), which is what keeps the batch full. While fewer than half the
    limit's calls are in flight the backend is not the bottleneck and the limit holds (it does not grow
    on load it never saw).
    """

    adaptive = True

    def __init__(self, backend: str, settings: Gradient2Settings) -> None:
        if not 1 <= settings.floor <= settings.ceiling:
            raise ValueError("an adaptive limit needs 1 <= floor <= ceiling")
        self.backend = backend
        self.settings = settings
        start = settings.floor if settings.initial is None else settings.initial
        self.estimate = float(max(settings.floor, min(settings.ceiling, start)))
        self.long = ExpAvg(settings.long_window)
        self.last_change: LimitChange | None = None

    @property
    def current(self) -> int:
        return int(self.estimate)

    def sample(self, latency_s: float, tokens: int, in_flight: int) -> LimitChange | None:
        s = self.settings
        short = latency_s / max(1, tokens)
        if short <= 0:
            return None
        long = self.long.add(short)
        if long / short > 2:
            # Latency is back to normal after a long spell of overload: forget the spell faster.
            self.long.value *= 0.95
        if in_flight < self.estimate / 2:
            return None
        gradient = max(0.5, min(1.0, s.tolerance * long / short))
        if s.target_s_per_token > 0:
            gradient = max(0.5, min(gradient, s.target_s_per_token / short))
        growth = math.sqrt(self.estimate) if s.growth is None else s.growth
        proposed = self.estimate * gradient + growth
        proposed = self.estimate * (1 - s.smoothing) + proposed * s.smoothing
        before = self.current
        self.estimate = max(float(s.floor), min(float(s.ceiling), proposed))
        if self.current == before:
            return None
        reason = (
            f"{short * 1000:.1f} ms/token against {long * 1000:.1f} ms/token long-run"
            f"{f', target {s.target_s_per_token * 1000:.1f}' if s.target_s_per_token > 0 else ''}"
            f" (gradient {gradient:.2f}, {in_flight} in flight)"
        )
        self.last_change = LimitChange(self.backend, before, self.current, reason)
        log.info("backend %s limit %d -> %d: %s", self.backend, before, self.current, reason)
        return self.last_change
