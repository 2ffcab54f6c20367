"""Operator views of the running service: the status board's data and model warm-up."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Depends

from feedback_intelligence.api.deps import runtime
from feedback_intelligence.api.routes.health import structure_backlog
from feedback_intelligence.api.runtime import Runtime
from feedback_intelligence.gate.slots import PoolUnavailable
from feedback_intelligence.llm.errors import LlmError
from feedback_intelligence.store.feedback_store import StoreUnavailable

router = APIRouter(prefix="/admin", tags=["operator"])


@router.get(
    "/status",
    operation_id="getOperatorStatus",
    summary="Backend, gate and channel state for the operator's board (no LLM call)",
    description="What `feedctl status` shows: the backend and its model's readiness, gate occupancy and "
    "sheds of the last minute, each channel's row count. Operator route.",
)
async def status(rt: Runtime = Depends(runtime)) -> dict[str, Any]:
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
            "acquireTimeoutMs": rt.settings.llm_acquire_timeout_ms,
            "backgroundReserve": rt.settings.llm_background_reserve,
            "shared": rt.settings.redis_url is not None,
            "meanHoldSeconds": round(rt.gate.hold_time.mean_s, 3),
            "stallThresholdSeconds": round(rt.gate.stall_threshold_s(), 1),
        }
    )
    try:
        backends = await rt.gate.backends()
    except PoolUnavailable:
        backends = []
    if len(backends) > 1:
        gate["backends"] = backends  # per backend of the pool, by name
    channels: dict[str, dict[str, Any]] = {}
    for name, channel in rt.channels.items():
        try:
            channels[name] = {"rows": await channel.store.count(), "version": await channel.version(), "healthy": True}
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
        "structureLater": {"backlog": await structure_backlog(rt), "worker": rt.settings.structure_worker},
        "domain": rt.domain.name,
    }


@router.post(
    "/warm",
    operation_id="warmModel",
    summary="Load the model and keep it loaded (no completion through the gate)",
    description="What `feedctl warm` calls. `readiness` is `ready`, `warming` or `down`; `detail` says "
    "why when the backend could not be reached. Operator route.",
)
async def warm(rt: Runtime = Depends(runtime)) -> dict[str, Any]:
    warm_up = getattr(rt.backend, "warm", None) or getattr(rt.backend, "wait_loaded", None)
    detail = ""
    if warm_up is not None:
        try:
            await warm_up()
        except LlmError as exc:
            detail = str(exc)
    readiness = await rt.backend.readiness()
    return {"readiness": readiness.value, "detail": detail}
