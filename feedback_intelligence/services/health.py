"""Honest health that adds no load (docs/invariants.md, invariant 3).

Idle gate: a real 1-token completion under the health budget. Saturated gate: "ok" at once,
because a gate whose every slot is busy and still finishing calls is proof that the model
answers; but every slot held with none freed for longer than the stall threshold
(:meth:`LlmGate.stall_threshold_s`) is a backend that stopped finishing calls: "stalled".

One probe at a time: concurrent checks share the probe in flight, and its report is kept for
``cache_s``, so anonymous ``/health`` traffic cannot take the room's slots.

States: ok (200), warming, stalled, llm_unavailable (503). Bodies say what is wrong without
internal addresses; the detail goes to the log and the operator's ``/admin/status``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field, replace
from typing import Any

from feedback_intelligence.gate.context import CallContext
from feedback_intelligence.gate.gate import LlmGate
from feedback_intelligence.gate.router import rows_shown
from feedback_intelligence.gate.slots import Grant, PoolUnavailable
from feedback_intelligence.instants.clock import SYSTEM_CLOCK, Clock
from feedback_intelligence.llm.backend import (
    ChatMessage,
    Completion,
    CompletionRequest,
    LlmBackend,
    Readiness,
    SupervisedEngines,
)
from feedback_intelligence.llm.errors import LlmBusy, LlmDeadlineExceeded, LlmFailure, LlmWarming
from feedback_intelligence.metrics import Metrics

log = logging.getLogger(__name__)
PROBE_VISITOR = "probe:health"  # whose fair share the health probe counts against

STATUSES = ("ok", "warming", "stalled", "llm_unavailable")
_UNPROBED = frozenset({"skipped_gate_saturated", "gate_unavailable"})  # answered without a completion


@dataclass(slots=True)
class HealthReport:
    status: str  # one of STATUSES
    probe: str  # "completed" | "skipped_gate_saturated" | "failed" | "timeout" | "backend_busy" | ...
    detail: str = ""
    latency_ms: float | None = None
    gate: dict[str, Any] = field(default_factory=dict)
    backends: list[dict[str, Any]] = field(default_factory=list)  # per backend, by name, when several
    engines: list[dict[str, Any]] = field(default_factory=list)  # the embedded backend's engine processes

    @property
    def http_status(self) -> int:
        return 200 if self.status == "ok" else 503

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"status": self.status, "probe": self.probe, "gate": self.gate}
        if self.detail:
            body["detail"] = self.detail
        if self.latency_ms is not None:
            body["probeLatencyMs"] = round(self.latency_ms, 1)
        if len(self.backends) > 1:
            # a backend out of the pool (down) or no longer finishing calls (stalled): the rest serve
            body["degraded"] = any(row["state"] in ("down", "failing", "stalled") for row in self.backends)
        if rows_shown(self.backends):
            body["backends"] = self.backends
        if self.engines:
            body["engines"] = self.engines
        return body


def _engine_states(rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """What makes a kept report stale at once: an engine that ended, restarted or came back."""
    return [(row.get("backend"), row["name"], row["state"], row["restarts"]) for row in rows]


class HealthService:
    """Answers ``/health`` without adding load (docs/invariants.md, invariant 3).

    Probes the backend with a one-token completion only when a gate slot is free right now, within
    ``timeout_s``; a saturated gate is reported ``ok`` without a probe, unless it is stalled. Tells
    ``warming`` from ``llm_unavailable`` by asking the backend's readiness. One probe at a time, its
    report kept ``cache_s`` on ``clock``; counts each probe outcome and the status in ``metrics``.
    """

    def __init__(
        self,
        gate: LlmGate,
        backend: LlmBackend,
        timeout_s: float,
        *,
        metrics: Metrics | None = None,
        cache_s: float = 0.0,
        backends: dict[str, LlmBackend] | None = None,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        self.gate = gate
        self.backend = backend
        self.backends = backends or {}
        self._probed: str | None = None
        self.timeout_s = timeout_s
        self.metrics = metrics or Metrics()
        self.cache_s = cache_s
        self.clock = clock
        self._inflight: asyncio.Task[HealthReport] | None = None
        self._cached: tuple[float, HealthReport] | None = None

    async def check(self) -> HealthReport:
        """The current report: the cached one while fresh, else the probe in flight, else a new probe."""
        engines = self._engines()
        if (
            self._cached is not None
            and self.clock.monotonic() - self._cached[0] < self.cache_s
            and _engine_states(self._cached[1].engines) == _engine_states(engines)
        ):
            return replace(self._cached[1], engines=engines)  # engine rows are read fresh, for free
        if self._inflight is None or self._inflight.done():
            self._inflight = asyncio.create_task(self._fresh(), name="health-probe")
        # shielded: one caller leaving must not cancel the probe the others are waiting for
        return await asyncio.shield(self._inflight)

    async def _fresh(self) -> HealthReport:
        report = await self._probe()
        if report.probe not in _UNPROBED:  # only a probe that spent a slot is worth keeping
            self._cached = (self.clock.monotonic(), report)
        self.metrics.health_probes.labels(report.probe).inc()
        for status in STATUSES:
            self.metrics.health_status.labels(status).set(1 if status == report.status else 0)
        return report

    def _granted(self, grant: Grant | None = None) -> LlmBackend:
        """The backend the probe's slot belongs to (remembered for the readiness check after it)."""
        if grant is not None:
            self._probed = grant.backend
        return self.backends.get(self._probed or "", self.backend)

    async def _probe(self) -> HealthReport:
        # A backend that fails the probe goes after the others in the gate's order (and out, at its
        # breaker's run of failures); while others serve, probe again on one of them: /health is ok
        # while any backend serves.
        for _ in range(max(1, len(self.backends))):
            report = await self._probe_once()
            if report.status == "ok" or len(self.backends) < 2:
                break
            if not any(row["state"] == "ok" for row in await self.gate.backends()):
                break
        return report

    async def _probe_once(self) -> HealthReport:
        self._probed = None
        request = CompletionRequest([ChatMessage("user", "ping")], max_tokens=1, deadline_s=self.timeout_s)

        async def probe(grant: Grant) -> Completion:
            return await self._granted(grant).complete(request)

        started = time.perf_counter()
        try:
            # One probe answers every concurrent check (single flight): it is nobody's own call, so it
            # counts against a share of its own, never the visitor whose check happened to start it.
            admitted, _ = await self.gate.try_run(
                probe, CallContext.interactive(PROBE_VISITOR, "health"), deadline_s=self.timeout_s
            )
        except PoolUnavailable as exc:
            log.warning("health: %s", exc)
            return await self._report("llm_unavailable", "gate_unavailable", exc.public)
        except LlmWarming as exc:
            return await self._report("warming", "failed", exc.public)
        except LlmDeadlineExceeded as exc:
            # A probe that times out while the server still answers is a model being loaded
            # (Ollama lists a loading model in /api/ps already): warming, not down.
            return await self._judge_by_readiness("timeout", exc, answering_means_warming=True)
        except LlmBusy as exc:
            # The backend itself said busy: it is up; whether the model is loaded decides.
            return await self._judge_by_readiness("backend_busy", exc, ready_means_ok=True)
        except LlmFailure as exc:
            # The probe reached the backend and failed: unavailable, whatever /api/ps says.
            log.warning("health probe failed: %s", exc)
            return await self._report("llm_unavailable", "failed", exc.public)
        if not admitted:
            return await self._saturated()
        return await self._report("ok", "completed", latency_ms=(time.perf_counter() - started) * 1000)

    async def _saturated(self) -> HealthReport:
        """Every slot is busy: proof of health while calls keep finishing, a stall when they do not."""
        try:
            occupancy = await self.gate.occupancy()
        except PoolUnavailable as exc:
            return await self._report("llm_unavailable", "gate_unavailable", exc.public)
        if self.gate.stalled(occupancy):
            held = occupancy.newest_hold_s or 0.0
            return await self._report(
                "stalled",
                "skipped_gate_saturated",
                f"every slot has been held for {held:.0f} s without a call finishing "
                f"(threshold {self.gate.stall_threshold_s():.0f} s)",
            )
        return await self._report("ok", "skipped_gate_saturated")

    async def _judge_by_readiness(
        self,
        probe: str,
        exc: LlmFailure | LlmBusy,
        *,
        ready_means_ok: bool = False,
        answering_means_warming: bool = False,
    ) -> HealthReport:
        detail = exc.public if isinstance(exc, LlmFailure) else "the language model backend says it is busy"
        readiness = await self._granted().readiness()
        if readiness is Readiness.WARMING or (answering_means_warming and readiness is Readiness.READY):
            return await self._report("warming", probe, detail)
        if readiness is Readiness.READY and ready_means_ok:
            return await self._report("ok", probe, detail)
        return await self._report("llm_unavailable", probe, detail)

    async def _report(self, status: str, probe: str, detail: str = "", latency_ms: float | None = None) -> HealthReport:
        try:
            occupancy = await self.gate.occupancy()
            self.gate.stalled(occupancy)  # keeps fi_gate_stalled current whatever the probe did
            gate: dict[str, Any] = {
                "slots": occupancy.slots,
                "inUse": occupancy.in_use,
                "waiting": occupancy.waiting,
                "healthy": occupancy.healthy,
            }
        except PoolUnavailable as exc:
            gate = {"slots": self.gate.slots, "healthy": False, "detail": exc.public}
        try:
            backends = await self.gate.backends()
        except PoolUnavailable:
            backends = []
        return HealthReport(status, probe, detail, latency_ms, gate, backends, self._engines())

    def _engines(self) -> list[dict[str, Any]]:
        """Each engine process of the backends that run their own: state, restarts, memory, and the
        likely cause while one is not running (no addresses: the public may read it)."""
        rows = []
        for name, backend in (self.backends or {"": self.backend}).items():
            if isinstance(backend, SupervisedEngines):
                for engine in backend.engines():
                    row = engine.to_json()
                    del row["pid"]  # the operator's board has it; the public has no use for it
                    rows.append({"backend": name, **row} if len(self.backends) > 1 else row)
        return rows
