"""Operator views of the running service: the status board's data and model warm-up."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse

from feedback_intelligence.api.deps import RuntimeDep
from feedback_intelligence.api.models.operator import BackendWarmth, NotifyTestOut, WarmOut
from feedback_intelligence.api.responses import errors
from feedback_intelligence.api.routes.health import notify_outbox, structure_backlog
from feedback_intelligence.gate.router import rows_shown
from feedback_intelligence.gate.slots import PoolUnavailable
from feedback_intelligence.llm.backend import LlmBackend, Readiness
from feedback_intelligence.store.errors import StoreUnavailable
from feedback_intelligence.workers.warmup import load_model

router = APIRouter(prefix="/admin", tags=["operator"])


@router.get(
    "/status",
    operation_id="getOperatorStatus",
    summary="Backend, gate and channel state for the operator's board (no LLM call)",
    description="What `feedctl status` shows: the backend and its model's readiness, gate occupancy and "
    "sheds of the last minute, the visitors with the largest recent shares of the slots (the fair order "
    "serves them last), each channel's row count. Operator route.",
)
async def status(rt: RuntimeDep) -> dict[str, Any]:
    info, readiness = await asyncio.gather(rt.backend.info(), rt.backend.readiness())
    try:
        occupancy = await rt.gate.occupancy()
        gate: dict[str, Any] = {
            "slots": occupancy.slots,
            "inUse": occupancy.in_use,
            "waitingInteractive": occupancy.waiting_interactive,
            "waitingBackground": occupancy.waiting_background,
            "healthy": True,
            "stalled": rt.gate.stalled(occupancy),
            "newestHoldSeconds": occupancy.newest_hold_s,
        }
    except PoolUnavailable as exc:
        gate = {"slots": rt.gate.slots, "healthy": False, "detail": str(exc)}
    gate.update(
        {
            "shedsLastMinute": rt.gate.sheds_in_last(60),
            "acquireTimeoutMs": rt.settings.gate.acquire_timeout_ms,
            "backgroundReserve": rt.settings.gate.background_reserve,
            "shared": rt.settings.gate.redis_url is not None,
            "meanHoldSeconds": round(rt.gate.hold_time.mean_s, 3),
            "stallThresholdSeconds": round(rt.gate.stall_threshold_s(), 1),
        }
    )
    try:
        shares = await rt.gate.largest_shares()
        gate["largestShares"] = [{"visitor": visitor, "slotSeconds": round(held, 2)} for visitor, held in shares]
    except PoolUnavailable:
        pass  # the gate's own row already says the shared store is unreachable
    try:
        backends = await rt.gate.backends()
    except PoolUnavailable:
        backends = []
    if rows_shown(backends):
        gate["backends"] = backends  # per backend of the pool, by name
    channels: dict[str, dict[str, Any]] = {}
    for name, channel in rt.channels.items():
        try:
            channels[name] = {"rows": await channel.store.count(), "version": await channel.version(), "healthy": True}
            if channel.store.storage_fault is not None:  # reads work, writes do not: disk full
                channels[name].update({"healthy": False, "fault": "store_full", "detail": channel.store.storage_fault})
        except StoreUnavailable as exc:
            channels[name] = {"healthy": False, "detail": str(exc)}
    return {
        "backend": {
            "kind": info.kind,
            "model": info.model,
            "baseUrl": info.base_url,
            "readiness": readiness.value,
            "parallelism": info.parallelism,
            **info.extra,
        },
        "gate": gate,
        "channels": channels,
        "structureLater": {"backlog": await structure_backlog(rt), "worker": rt.settings.worker.enabled},
        "notify": {
            "outbox": await notify_outbox(rt),
            "routes": [{"name": r.name, "kind": r.kind} for r in rt.settings.notify.channels],
            "worker": rt.settings.notify.enabled,
        },
        "domain": rt.domain.name,
    }


@router.post(
    "/notify/test",
    operation_id="testNotifyChannels",
    response_model=NotifyTestOut,
    summary="Send a test message down one or every notify route now (no outbox row, no LLM call)",
    description="What `feedctl notify test [ROUTE]` calls: one test message per `FI_NOTIFY_CHANNELS` entry "
    "(or only to the route named by `route`), each sent at once and answered when the receiver has answered; "
    "`results` lists each route by name and kind with `ok` and, on a failure, `detail` (one line: the step "
    "that failed and the receiver's reason). A `route` no entry is named is a 404. Operator route.",
    responses=errors(404),
)
async def notify_test(
    rt: RuntimeDep,
    route: str | None = Query(None, min_length=1, max_length=64, description="One route's name; absent: every route."),
) -> NotifyTestOut | JSONResponse:
    if route is not None and route not in {r.name for r in rt.settings.notify.channels}:
        return JSONResponse({"error": "not found", "id": route}, status_code=404)
    return NotifyTestOut.model_validate({"results": await rt.notify.send_test(route)})


@router.post(
    "/warm",
    operation_id="warmModel",
    response_model_exclude_none=True,  # `degraded` and `backends` are absent with one backend
    summary="Load the model of every backend and keep it loaded (no completion through the gate)",
    description="What `feedctl warm` calls. Every backend of the pool is warmed at once. `readiness` is "
    "`ready`, `warming` or `down`: the best any backend reached (the service answers as soon as one "
    "does); with several backends `backends` lists each by name with its own `readiness` and `detail`, "
    "and `degraded` is true while any of them is not ready. `detail` says why a backend could not be "
    "reached. Operator route.",
)
async def warm(rt: RuntimeDep) -> WarmOut:
    backends = rt.runner.backends or {rt.settings.backends.specs[0].name: rt.backend}
    names = list(backends)
    rows = await asyncio.gather(*(_warm_one(name, backends[name]) for name in names))
    for row in rows:  # a warm backend is offered before a warming one
        rt.gate.router.note_readiness(row.name, Readiness(row.readiness))
    best = min(rows, key=lambda row: _READINESS_ORDER.index(row.readiness))
    if len(rows) == 1:
        return WarmOut(readiness=best.readiness, detail=best.detail)
    detail = best.detail
    if best.readiness == Readiness.DOWN.value:
        detail = "; ".join(f"{row.name}: {row.detail}" for row in rows if row.detail)
    degraded = any(row.readiness != Readiness.READY.value for row in rows)
    return WarmOut(readiness=best.readiness, detail=detail, degraded=degraded, backends=rows)


_READINESS_ORDER = [Readiness.READY.value, Readiness.WARMING.value, Readiness.DOWN.value]


async def _warm_one(name: str, backend: LlmBackend) -> BackendWarmth:
    readiness, detail = await load_model(backend)
    return BackendWarmth(name=name, readiness=readiness.value, detail=detail)
