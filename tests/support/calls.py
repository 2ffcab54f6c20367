"""The call contexts tests hand the gate, named the way callers in the product name theirs."""

from __future__ import annotations

from feedback_intelligence.gate.context import CallContext
from feedback_intelligence.gate.fairness import ANONYMOUS
from feedback_intelligence.gate.gate import LlmGate
from feedback_intelligence.gate.slots import Priority


def call(
    gate: LlmGate,
    priority: Priority = Priority.INTERACTIVE,
    route: str = "other",
    *,
    visitor: str | None = None,
    preempted: int = 0,
) -> CallContext:
    """An interactive call of ``visitor`` (one shared test visitor by default), or background work on
    ``route`` preemptible while ``preempted`` is under the gate's ``preempt_max``, as the workers do."""
    if priority is Priority.BACKGROUND:
        return CallContext.background(route, preemptible=gate.preemptible(preempted))
    return CallContext(visitor or ANONYMOUS, priority, route)
