"""A real runner and gate in front of a backend (usually :class:`feedback_intelligence.llm.testing.FakeBackend`)."""

from __future__ import annotations

from feedback_intelligence.gate.gate import LlmGate
from feedback_intelligence.gate.local import LocalSlotPool
from feedback_intelligence.gate.pooled import PooledSlotPool
from feedback_intelligence.prompting.runner import PromptRunner


def make_runner(
    backend: object, *, slots: int = 1, acquire_timeout_s: float = 0.5, call_timeout_s: float = 5.0
) -> PromptRunner:
    gate = LlmGate(
        PooledSlotPool.single(LocalSlotPool(slots, background_reserve=0)),
        acquire_timeout_s=acquire_timeout_s,
        call_timeout_s=call_timeout_s,
    )
    return PromptRunner(gate, backend)  # type: ignore[arg-type]
