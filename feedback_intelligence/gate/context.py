"""Who a call is for and how it may be treated: the one value every caller hands the gate.

The edge names the visitor of an interactive call (its client key, or ``operator:<key>`` for an
exempt operator: ``edge.inflight.visitor_of``); a worker names its background work by route. Callers
decide ``preemptible`` (background work whose item has been preempted fewer than ``FI_LLM_PREEMPT_MAX``
times: aging, docs/adr/0017). Nothing is read from a context variable: a call reaches the gate with
this value or not at all (docs/adr/0020-the-gate-as-one-policy.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from feedback_intelligence.gate.slots import Priority


@dataclass(frozen=True, slots=True)
class CallContext:
    visitor: str  # whose fair share the call counts against (docs/adr/0018-fair-shares.md)
    priority: Priority = Priority.INTERACTIVE
    route: str = "other"  # for metrics and logs
    preemptible: bool = False  # a waiting visitor may cancel it for its slot (background only)

    def __post_init__(self) -> None:
        if not self.visitor:
            raise ValueError("a call to the gate names its visitor")
        if self.preemptible and self.priority is not Priority.BACKGROUND:
            raise ValueError("only background work is preemptible")

    @classmethod
    def interactive(cls, visitor: str, route: str) -> CallContext:
        """A person is waiting on this call: ``visitor`` as the edge named it."""
        return cls(visitor, Priority.INTERACTIVE, route)

    @classmethod
    def overdue(cls, route: str) -> CallContext:
        """Background work that has waited past its bound (``FI_STRUCTURE_MAX_WAIT_S``): it asks as a
        visitor would, under a share of its own (``overdue:<route>``), so the fair order serves it
        ahead of clerks who were just served, and it is not preemptible (docs/adr/0031)."""
        return cls(f"overdue:{route}", Priority.INTERACTIVE, route)

    @classmethod
    def background(cls, route: str, *, preemptible: bool = False) -> CallContext:
        """Work nobody waits on, counted against a share of its route's own (``background:<route>``),
        never the visitor whose request started it."""
        return cls(f"background:{route}", Priority.BACKGROUND, route, preemptible)
