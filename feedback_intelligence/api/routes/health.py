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
    responses={503: {"model": HealthBody, "description": "warming, stalled or llm_unavailable"}},
    summary="Is the LLM answering? Probes only when a gate slot is free, one probe at a time.",
)
async def health(rt: Runtime = Depends(runtime)) -> Response:
    report = await rt.health.check()
    return JSONResponse(report.to_json(), status_code=report.http_status)


@router.get("/livez", summary="The process is up. Never touches the LLM.")
async def livez() -> dict[str, str]:
    return {"status": "alive"}


# HEAD on the probes too: uptime checkers often send HEAD. Same status and headers as GET, no body
# (the server drops it); kept out of the schema, where it would duplicate the GET operations.
router.add_api_route("/health", health, methods=["HEAD"], include_in_schema=False)
router.add_api_route("/livez", livez, methods=["HEAD"], include_in_schema=False)


@router.get("/metrics", summary="Prometheus metrics", response_class=Response)
async def metrics(rt: Runtime = Depends(runtime)) -> Response:
    try:
        occupancy = await rt.gate.occupancy()
    except PoolUnavailable:
        rt.metrics.gate_store_up.set(0)  # the gate sheds everything meanwhile; the rest still reports
    else:
        rt.metrics.gate_store_up.set(1)
        rt.metrics.gate_in_use.set(occupancy.in_use)
        rt.gate.stalled(occupancy)  # the gate records fi_gate_stalled as it judges
    return Response(generate_latest(rt.metrics.registry), media_type=CONTENT_TYPE_LATEST)
