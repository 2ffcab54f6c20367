"""Build the gate over the pool the configuration asks for: in-process, or Redis for replicas."""

from __future__ import annotations

from typing import Any

from feedback_intelligence.gate.gate import LlmGate
from feedback_intelligence.gate.local import LocalSlotPool
from feedback_intelligence.gate.slots import SlotPool
from feedback_intelligence.metrics import Metrics
from feedback_intelligence.settings import Settings


def build_pool(settings: Settings) -> SlotPool[Any]:
    if settings.redis_url:
        from feedback_intelligence.gate.redis_pool import RedisSlotPool

        return RedisSlotPool(
            settings.redis_url, slots=settings.llm_slots, background_reserve=settings.llm_background_reserve,
            name=settings.gate_name, lease_s=settings.redis_lease_s,
        )
    return LocalSlotPool(settings.llm_slots, settings.llm_background_reserve)


def build_gate(settings: Settings, metrics: Metrics) -> LlmGate:
    return LlmGate(
        build_pool(settings),
        acquire_timeout_s=settings.acquire_timeout_s,
        call_timeout_s=settings.llm_call_timeout_s,
        metrics=metrics,
        stall_floor_s=settings.health_timeout_s,
    )
