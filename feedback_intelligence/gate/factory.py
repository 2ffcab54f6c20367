"""Build the gate over the pools the configuration asks for: one per backend, in-process or on Redis."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from feedback_intelligence.config import GateSettings, Settings
from feedback_intelligence.config.backends import BackendSpec
from feedback_intelligence.gate.fairness import GateOrder, ServiceLedger
from feedback_intelligence.gate.gate import LlmGate
from feedback_intelligence.gate.limit import FixedLimit, Gradient2Limit, Gradient2Settings, Limit
from feedback_intelligence.gate.local import LocalSlotPool
from feedback_intelligence.gate.pooled import PooledSlotPool, spread_reserve
from feedback_intelligence.gate.router import BackendRouter
from feedback_intelligence.gate.slots import SlotPool
from feedback_intelligence.instants.clock import SYSTEM_CLOCK, Clock
from feedback_intelligence.llm.backend import Readiness
from feedback_intelligence.metrics import Metrics


def adaptive_settings(gate: GateSettings, spec: BackendSpec) -> Gradient2Settings | None:
    """A backend's adaptive limit, for one that batches when the operator turned it on (ADR 0067);
    ``None``: its declared slots."""
    if not (gate.adaptive_limit and spec.batches):
        return None
    return Gradient2Settings(
        floor=min(gate.adaptive_floor, spec.slots),
        ceiling=spec.slots,
        tolerance=gate.adaptive_tolerance,
        target_s_per_token=gate.adaptive_target_ms_per_token / 1000,
        neighbour_tolerance=gate.adaptive_neighbour_tolerance,
    )


def build_limit(gate: GateSettings, spec: BackendSpec) -> Limit:
    """A backend's limit in this process: adaptive or its declared slots."""
    settings = adaptive_settings(gate, spec)
    return FixedLimit(spec.slots) if settings is None else Gradient2Limit(spec.name, settings)


def build_member(
    gate: GateSettings, name: str, spec: BackendSpec, reserve: int, ledger: ServiceLedger
) -> SlotPool[Any]:
    """One backend's pool, its Redis keys under ``name``. Every member of a gate orders its waiters by
    one ledger of attained service: ``ledger`` in-process, the gate name's hash on Redis. On Redis an
    adaptive limit is shared by the replicas (ADR 0068)."""
    if gate.redis_url:
        from feedback_intelligence.gate.redis_pool import RedisSlotPool

        return RedisSlotPool(
            gate.redis_url,
            slots=spec.slots,
            background_reserve=reserve,
            name=name,
            lease_s=gate.lease_s,
            ledger=gate.name,
            half_life_s=gate.fair_half_life_s,
            order=GateOrder(gate.order),
            adaptive=adaptive_settings(gate, spec),
            backend=spec.name,
        )
    return LocalSlotPool(spec.slots, reserve, ledger, build_limit(gate, spec))


def build_pool(
    settings: Settings,
    readiness: Mapping[str, Callable[[], Awaitable[Readiness]]] | None = None,
    *,
    clock: Clock = SYSTEM_CLOCK,
) -> PooledSlotPool:
    gate, backends = settings.gate, settings.backends
    specs = backends.specs
    # One rule for the reserve, whatever the number of backends: spread so the shares add up to it.
    reserves = spread_reserve([spec.slots for spec in specs], gate.background_reserve)
    # The shorthand keeps the gate's Redis keys of before (fi:gate:<FI_GATE_NAME>); a pool names each.
    keys = [gate.name] if not backends.pool else [f"{gate.name}:{s.name}" for s in specs]
    ledger = ServiceLedger(gate.fair_half_life_s, GateOrder(gate.order), clock=clock)
    members = {
        spec.name: build_member(gate, key, spec, reserve, ledger)
        for spec, key, reserve in zip(specs, keys, reserves, strict=True)
    }
    router = BackendRouter(
        list(members),
        breaker_failures=backends.breaker_failures,
        failure_rate=backends.breaker_failure_rate,
        cooldown_s=backends.breaker_cooldown_s,
        call_timeout_s=gate.call_timeout_s,
        stall_floor_s=backends.health_timeout_s,
        readiness=readiness,
        clock=clock,
    )
    return PooledSlotPool(members, router)


def build_gate(
    settings: Settings,
    metrics: Metrics,
    readiness: Mapping[str, Callable[[], Awaitable[Readiness]]] | None = None,
    *,
    clock: Clock = SYSTEM_CLOCK,
) -> LlmGate:
    return LlmGate(
        build_pool(settings, readiness, clock=clock),
        acquire_timeout_s=settings.gate.acquire_timeout_s,
        call_timeout_s=settings.gate.call_timeout_s,
        metrics=metrics,
        preempt_max=settings.gate.preempt_max,
    )
