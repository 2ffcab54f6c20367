"""Liveness, honest health and Prometheus metrics."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from pydantic import BaseModel
from starlette.responses import JSONResponse, Response

from feedback_intelligence.api.deps import runtime
from feedback_intelligence.api.runtime import Runtime
from feedback_intelligence.gate.slots import PoolUnavailable

router = APIRouter(tags=["health"])


class HealthBody(BaseModel):
    status: str
    probe: str
    gate: dict[str, Any]
    detail: str | None = None
    probeLatencyMs: float | None = None


@router.get(
    "/health",
    response_model=HealthBody,
    responses={503: {"model": HealthBody, "description": "llm_unavailable or warming"}},
    summary="Is the LLM answering? Probes only when a gate slot is free.",
)
async def health(rt: Runtime = Depends(runtime)) -> Response:
    report = await rt.health.check()
    return JSONResponse(report.to_json(), status_code=report.http_status)


@router.get("/livez", summary="The process is up. Never touches the LLM.")
async def livez() -> dict[str, str]:
    return {"status": "alive"}


@router.get("/metrics", summary="Prometheus metrics", response_class=Response)
async def metrics(rt: Runtime = Depends(runtime)) -> Response:
    try:
        occupancy = await rt.gate.occupancy()
    except PoolUnavailable:
        rt.metrics.gate_store_up.set(0)  # the gate sheds everything meanwhile; the rest still reports
    else:
        rt.metrics.gate_store_up.set(1)
        rt.metrics.gate_in_use.set(occupancy.in_use)
    return Response(generate_latest(rt.metrics.registry), media_type=CONTENT_TYPE_LATEST)
