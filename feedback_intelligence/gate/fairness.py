"""Who goes first among waiters: least attained service per visitor (docs/adr/0018-fair-shares.md).

A visitor's *attained service* is the slot-seconds its calls held, decaying with a half-life, so old
use fades. Waiters of one priority are served least attained service first (ties: arrival order),
instead of first come: a visitor retrying as fast as it may does not crowd out a quiet one. A visitor
that was not active (no arrival, wait, grant or release within :data:`RECENT_S`) is lifted on arrival
to the lowest attained service among the active ones (Virtual Token Counter): time away banks no
credit. ``admits`` still decides *whether* a priority may take a slot; this only decides *who*.

Scores are kept in a time-invariant form, ``log2(service + FLOOR) + t / half_life``, so that decay
needs no sweeping: every visitor decays by the same factor, comparing scores compares decayed
service at any moment, and a stored score never has to be rewritten until its visitor is charged.
The Redis pool keeps the same scores in a hash and its waiters in a sorted set by score
(``lua/fair.lua`` is the Lua twin of the functions below).
"""

from __future__ import annotations

import math
from collections import Counter
from enum import StrEnum

from feedback_intelligence.instants.clock import SYSTEM_CLOCK, Clock


class GateOrder(StrEnum):
    FAIR = "fair"  # least attained service first (the default)
    FIFO = "fifo"  # first come, first served: kept to measure fairness against


ANONYMOUS = "anonymous"  # a call nobody named: one key for all of them
FLOOR = 1e-3  # slot-seconds; keeps the logarithm finite for a visitor with no service yet
RECENT_S = 5.0  # active means seen this recently: covers a retry's round trip and a call in flight
FORGET_HALF_LIVES = 10  # an idle visitor is forgotten when its service has decayed below 1/1024


def score_of(service_s: float, now_s: float, half_life_s: float) -> float:
    """The time-invariant score of ``service_s`` slot-seconds attained as of ``now_s``."""
    return math.log2(service_s + FLOOR) + now_s / half_life_s


def service_of(score: float, now_s: float, half_life_s: float) -> float:
    """The decayed slot-seconds a score stands for at ``now_s``."""
    return max(0.0, math.pow(2.0, score - now_s / half_life_s) - FLOOR)


class ServiceLedger:
    """Attained service per visitor for the pools of one process (shared by a gate's backends).

    ``arrive`` when a call starts asking for a slot (lifting a returning visitor to the active
    minimum), ``leave`` when it stops waiting or releases, ``charge`` the seconds a slot was held.
    ``key`` orders waiters. Idle visitors are forgotten after :data:`FORGET_HALF_LIVES` half-lives,
    so memory is bounded by the visitors of the last few minutes.
    """

    def __init__(
        self,
        half_life_s: float = 60.0,
        order: GateOrder = GateOrder.FAIR,
        *,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        if half_life_s <= 0:
            raise ValueError("the half-life must be positive")
        self.half_life_s = half_life_s
        self.order = order
        self.clock = clock
        self._score: dict[str, float] = {}
        self._seen: dict[str, float] = {}
        self._present: Counter[str] = Counter()  # waiting or holding right now
        self._swept = clock.monotonic()

    @property
    def fair(self) -> bool:
        return self.order is GateOrder.FAIR

    def __len__(self) -> int:
        return len(self._score)

    def now(self) -> float:
        return self.clock.monotonic()

    def _active(self, visitor: str, now: float) -> bool:
        return self._present[visitor] > 0 or now - self._seen.get(visitor, -math.inf) <= RECENT_S

    def arrive(self, visitor: str) -> None:
        now = self.clock.monotonic()
        if not self._active(visitor, now):
            own = self._score.get(visitor, score_of(0.0, now, self.half_life_s))
            others = [self._score[u] for u in self._score if u != visitor and self._active(u, now)]
            # Returning (or new): no credit banked while away, start level with the least served.
            self._score[visitor] = max(own, min(others)) if others else own
        self._seen[visitor] = now
        self._present[visitor] += 1
        self._sweep(now)  # visitors that were only ever shed are charged nothing, but forgotten too

    def leave(self, visitor: str) -> None:
        self._seen[visitor] = self.clock.monotonic()
        self._present[visitor] -= 1
        if self._present[visitor] <= 0:
            del self._present[visitor]

    def charge(self, visitor: str, held_s: float) -> None:
        now = self.clock.monotonic()
        service = self.service(visitor, now) + max(0.0, held_s)
        self._score[visitor] = score_of(service, now, self.half_life_s)
        self._seen[visitor] = now
        self._sweep(now)

    def service(self, visitor: str, now: float | None = None) -> float:
        """The visitor's decayed attained service in slot-seconds (0 for one unknown)."""
        score = self._score.get(visitor)
        now = self.clock.monotonic() if now is None else now
        return 0.0 if score is None else service_of(score, now, self.half_life_s)

    def attained(self) -> dict[str, float]:
        now = self.clock.monotonic()
        return {visitor: self.service(visitor, now) for visitor in self._score}

    def key(self, visitor: str) -> float:
        """Lower goes first. First come when the order is ``fifo`` (every visitor equal, arrival decides)."""
        if not self.fair:
            return 0.0
        return self._score.get(visitor, score_of(0.0, self.clock.monotonic(), self.half_life_s))

    def _sweep(self, now: float) -> None:
        # At most once a half-life: forget whoever was neither present nor seen for ten half-lives.
        if now - self._swept < self.half_life_s:
            return
        self._swept = now
        horizon = now - FORGET_HALF_LIVES * self.half_life_s
        for visitor in [v for v, seen in self._seen.items() if seen < horizon and self._present[v] <= 0]:
            self._seen.pop(visitor, None)
            self._score.pop(visitor, None)
            self._present.pop(visitor, None)
        for visitor in [v for v in self._score if v not in self._seen]:
            del self._score[visitor]
