"""Liveness, honest health and Prometheus metrics."""

from __future__ import annotations

import contextlib
from typing import Any

from fastapi import APIRouter
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from pydantic import Field
from starlette.responses import JSONResponse, Response

from feedback_intelligence.api.deps import RuntimeDep
from feedback_intelligence.api.models import ApiModel
from feedback_intelligence.api.models.operator import LivenessOut
from feedback_intelligence.api.responses import errors
from feedback_intelligence.api.runtime import Runtime
from feedback_intelligence.gate.slots import PoolUnavailable
from feedback_intelligence.services.channels import CORPUS, LIVE
from feedback_intelligence.store.errors import StoreUnavailable

router = APIRouter(tags=["health"])


class BackendRow(ApiModel):
    """One backend of a pool, by name (never by address)."""

    name: str = Field(description="The backend's name from `FI_LLM_BACKENDS`.")
    state: str = Field(
        description="`ok`, `warming`, `stalled` (no slot freed past the threshold), `failing` (its calls "
        "failed `FI_BREAKER_FAILURES` times in a row: out of the pool for `FI_BREAKER_COOLDOWN_S`) or `down` "
        "(the same, because it could not be reached)."
    )
    slots: int = Field(
        description="Its own slots now; it is never sent more calls than these. With an adaptive limit "
        "(`adaptiveLimit`), the limit's current value, between `FI_LLM_ADAPTIVE_FLOOR` and its declared slots."
    )
    inUse: int = Field(description="Its slots held now.")
    newestHoldSeconds: float | None = Field(
        None, description="How long ago its most recently admitted call still running was admitted."
    )
    failuresInARow: int = Field(0, description="Its calls that failed since its last success.")
    adaptiveLimit: bool = Field(False, description="Its slots follow the latency it measures (a batching backend).")
    limitReason: str = Field("", description="The adaptive limit's last move and the latencies it was judged on.")
    limitYields: bool = Field(
        False,
        description="The adaptive limit sees another application's load on the GPU and holds back for it "
        "(`FI_LLM_ADAPTIVE_NEIGHBOUR_TOLERANCE`).",
    )


class EngineRow(ApiModel):
    """One engine process of the embedded backend (docs/operations/running.md, "The embedded engine")."""

    backend: str | None = Field(None, description="The backend it belongs to, with several backends.")
    name: str = Field(description="`engine-0`, `engine-1`, …: one per gate slot.")
    state: str = Field(
        description="`loading`, `running`, `restarting` (its process ended; a new one is starting), "
        "`crash_loop` (it keeps ending without answering; retried at the longest backoff) or `stopped`."
    )
    rssBytes: int | None = Field(None, description="Resident memory of its process.")
    restarts: int = Field(description="How often its process ended and was restarted.")
    lastExit: str | None = Field(None, description="How its last process ended, e.g. `killed by SIGSEGV`.")
    reason: str | None = Field(None, description="While it is not running: the likely cause and what to do.")


class HealthBody(ApiModel):
    """Whether the LLM answers, as far as a probe through the gate could tell."""

    status: str = Field(
        description="`ok`, `warming` (the model is loading, or an embedded engine is restarting), `stalled` or "
        "`llm_unavailable` (`detail` says why: a backend down, an engine in a crash loop)."
    )
    probe: str = Field(
        description="What the probe did: `completed`, `skipped_gate_saturated` (no free slot: the "
        "gate's own answer is used), `failed`, `timeout`, …"
    )
    gate: dict[str, Any] = Field(description="The gate's occupancy when the probe ran.")
    detail: str | None = Field(None, description="What failed, for an operator.")
    probeLatencyMs: float | None = Field(None, description="How long the probe's completion took.")
    backlog: dict[str, dict[str, float | None]] | None = Field(
        None,
        description="Per channel: rows saved for later and not yet structured (`items`), the oldest "
        "one's age (`oldestAgeSeconds`), the rows the workers finished a minute over the last ten "
        "(`rowsPerMinute`) and the minutes left at that pace (`minutesLeft`: `items` / `rowsPerMinute` "
        "rounded up; null while no pace is measured); absent when a store cannot be read.",
    )
    degraded: bool | None = Field(
        None,
        description="With several backends: true while one is `down`, `failing` or `stalled` and the others serve.",
    )
    backends: list[BackendRow] | None = Field(
        None, description="With several backends, or one with an adaptive limit: each one's state and slots."
    )
    auth: str | None = Field(
        None,
        description="FI_AUTH: `none` (no sign-in: anyone who reaches the service reads and writes), `local`, "
        "`oidc` or `proxy`.",
    )
    engines: list[EngineRow] | None = Field(
        None, description="With the embedded backend: each engine process, its restarts and memory."
    )


@router.get(
    "/health",
    response_model=HealthBody,
    operation_id="getHealth",
    responses={503: {"model": HealthBody, "description": "`warming`, `stalled` or `llm_unavailable`."}, **errors(429)},
    summary="Is the LLM answering? Probes only when a gate slot is free, one probe at a time.",
    description="The probe is an LLM call through the gate like any other, shared by concurrent checks and "
    "reused for a short while; a saturated gate is a busy but healthy LLM, so it answers 200 "
    "without probing, unless no slot has been freed for longer than the stall threshold "
    "(503 `stalled`).",
)
async def health(rt: RuntimeDep) -> Response:
    backlog = await structure_backlog(rt)  # before the probe, which may take a while
    report = await rt.health.check()
    body = report.to_json()
    if backlog is not None:
        body["backlog"] = backlog
    body["auth"] = rt.settings.auth.mode  # said plainly: none means an open desk
    return JSONResponse(body, status_code=report.http_status)


async def structure_backlog(rt: Runtime) -> dict[str, dict[str, float | int | None]] | None:
    """The structure-later backlog, also kept in the metrics; None when a store is down."""
    try:
        backlog = await rt.worker.backlog()
    except StoreUnavailable:
        return None
    for channel, figures in backlog.items():
        rt.metrics.structure_backlog.labels(channel).set(figures["items"] or 0)
        rt.metrics.structure_backlog_oldest.labels(channel).set(figures["oldestAgeSeconds"] or 0)
    return backlog


async def field_quality(rt: Runtime) -> None:
    """The correction totals of both channels into the metrics (ADR 0065); the last figures stay when a
    store is down."""
    saved: dict[tuple[str, str, str], int] = {}
    corrected: dict[tuple[str, str, str, str], int] = {}
    try:
        tallies = [t for name in (CORPUS, LIVE) for t in await rt.channels[name].store.correction_tallies(by_day=False)]
    except StoreUnavailable:
        return
    for t in tallies:
        key = (t.store or "", t.backend, t.model)
        if t.field:
            corrected[(*key, t.field)] = corrected.get((*key, t.field), 0) + t.items
        else:
            saved[key] = saved.get(key, 0) + t.items
    rt.metrics.field_quality.update(saved, corrected)


async def notify_outbox(rt: Runtime) -> dict[str, dict[str, object]] | None:
    """Outbox rows by state per channel database (the worker also keeps them in the metrics); None when
    a store is down."""
    try:
        return await rt.notify.stats()
    except StoreUnavailable:
        return None


@router.get(
    "/livez",
    operation_id="getLiveness",
    summary="The process is up. Never touches the LLM.",
    description="For a container's liveness probe: it answers as long as the process serves.",
)
async def livez() -> LivenessOut:
    return LivenessOut()


# HEAD on the probes too: uptime checkers often send HEAD. Same status and headers as GET, no body
# (the server drops it); kept out of the schema, where it would duplicate the GET operations.
router.add_api_route("/health", health, methods=["HEAD"], include_in_schema=False)
router.add_api_route("/livez", livez, methods=["HEAD"], include_in_schema=False)


@router.get(
    "/metrics",
    summary="Prometheus metrics",
    response_class=Response,
    operation_id="getMetrics",
    description="Gate occupancy, sheds, LLM call latencies, edge refusals, ingest counts "
    "(Prometheus text format). Operator route.",
    responses={
        200: {
            "content": {"text/plain": {"schema": {"type": "string"}}},
            "description": "Prometheus text exposition format.",
        }
    },
)
async def metrics(rt: RuntimeDep) -> Response:
    try:
        occupancy = await rt.gate.occupancy()
    except PoolUnavailable:
        rt.metrics.gate_store_up.set(0)  # the gate sheds everything meanwhile; the rest still reports
    else:
        rt.metrics.gate_store_up.set(1)
        rt.metrics.gate_in_use.set(occupancy.in_use)
        rt.gate.stalled(occupancy)  # the gate records fi_gate_stalled as it judges
        with contextlib.suppress(PoolUnavailable):
            await rt.gate.backends()  # and fi_backend_up / fi_backend_stalled per backend
    await structure_backlog(rt)
    await notify_outbox(rt)
    await field_quality(rt)
    return Response(generate_latest(rt.metrics.registry), media_type=CONTENT_TYPE_LATEST)
