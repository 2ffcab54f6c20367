"""Honest health that adds no load (docs/invariants.md, invariant 3).

Idle gate: a real 1-token completion under the health budget. Saturated gate: "ok" at once,
because a gate whose every slot is busy is itself proof that the model answers.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from feedback_intelligence.gate.gate import LlmGate
from feedback_intelligence.gate.slots import PoolUnavailable, Priority
from feedback_intelligence.llm.backend import ChatMessage, Completion, CompletionRequest, LlmBackend, Readiness
from feedback_intelligence.llm.errors import LlmBusy, LlmDeadlineExceeded, LlmFailure, LlmWarming
from feedback_intelligence.metrics import Metrics


@dataclass(slots=True)
class HealthReport:
    status: str  # "ok" | "warming" | "llm_unavailable"
    probe: str  # "completed" | "skipped_gate_saturated" | "failed" | "timeout" | "backend_busy" | ...
    detail: str = ""
    latency_ms: float | None = None
    gate: dict[str, Any] = field(default_factory=dict)

    @property
    def http_status(self) -> int:
        return 200 if self.status == "ok" else 503

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"status": self.status, "probe": self.probe, "gate": self.gate}
        if self.detail:
            body["detail"] = self.detail
        if self.latency_ms is not None:
            body["probeLatencyMs"] = round(self.latency_ms, 1)
        return body


class HealthService:
    """Answers ``/health`` without adding load (docs/invariants.md, invariant 3).

    Probes the backend with a one-token completion only when a gate slot is free right now, within
    ``timeout_s``; a saturated gate is reported ``ok`` without a probe. Tells ``warming`` from
    ``llm_unavailable`` by asking the backend's readiness. Counts each probe outcome in ``metrics``.
    """
    def __init__(self, gate: LlmGate, backend: LlmBackend, timeout_s: float, metrics: Metrics | None = None) -> None:
        self.gate = gate
        self.backend = backend
        self.timeout_s = timeout_s
        self.metrics = metrics or Metrics()

    async def check(self) -> HealthReport:
        request = CompletionRequest([ChatMessage("user", "ping")], max_tokens=1, deadline_s=self.timeout_s)

        async def probe() -> Completion:
            return await self.backend.complete(request)

        started = time.perf_counter()
        try:
            admitted, _ = await self.gate.try_run(
                probe, priority=Priority.INTERACTIVE, route="health", deadline_s=self.timeout_s
            )
        except PoolUnavailable as exc:
            return await self._report("llm_unavailable", "gate_unavailable", f"gate store unreachable: {exc}")
        except LlmWarming as exc:
            return await self._report("warming", "failed", str(exc))
        except LlmDeadlineExceeded as exc:
            # A probe that times out while the server still answers is a model being loaded
            # (Ollama lists a loading model in /api/ps already): warming, not down.
            return await self._judge_by_readiness("timeout", str(exc), answering_means_warming=True)
        except LlmBusy as exc:
            # The backend itself said busy: it is up; whether the model is loaded decides.
            return await self._judge_by_readiness("backend_busy", str(exc), ready_means_ok=True)
        except LlmFailure as exc:
            return await self._judge_by_readiness("failed", str(exc))
        if not admitted:
            return await self._report("ok", "skipped_gate_saturated")
        return await self._report("ok", "completed", latency_ms=(time.perf_counter() - started) * 1000)

    async def _judge_by_readiness(
        self, probe: str, detail: str, *, ready_means_ok: bool = False, answering_means_warming: bool = False
    ) -> HealthReport:
        readiness = await self.backend.readiness()
        if readiness is Readiness.WARMING or (answering_means_warming and readiness is Readiness.READY):
            return await self._report("warming", probe, detail)
        if readiness is Readiness.READY and ready_means_ok:
            return await self._report("ok", probe, detail)
        return await self._report("llm_unavailable", probe, detail)

    async def _report(self, status: str, probe: str, detail: str = "", latency_ms: float | None = None) -> HealthReport:
        self.metrics.health_probes.labels(probe).inc()
        try:
            occupancy = await self.gate.occupancy()
            gate: dict[str, Any] = {
                "slots": occupancy.slots,
                "inUse": occupancy.in_use,
                "waiting": occupancy.waiting,
                "healthy": occupancy.healthy,
            }
        except PoolUnavailable as exc:
            gate = {"slots": self.gate.slots, "healthy": False, "detail": str(exc)}
        return HealthReport(status, probe, detail, latency_ms, gate)
