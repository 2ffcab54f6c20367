"""The management report (always 200), its live-summary variant, snapshots and correction telemetry."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Depends, Query
from starlette.responses import HTMLResponse, JSONResponse, Response

from feedback_intelligence.api import models as m
from feedback_intelligence.api.deps import runtime
from feedback_intelligence.api.errors import InputError
from feedback_intelligence.api.runtime import Runtime
from feedback_intelligence.report.snapshot import persist_snapshot, read_snapshot_html, read_snapshot_json
from feedback_intelligence.report.telemetry import correction_telemetry
from feedback_intelligence.report.window import Window, WindowError, build_window
from feedback_intelligence.services.channels import CORPUS, LIVE

router = APIRouter(tags=["report"])
_WINDOW_ERRORS: dict[int | str, dict[str, Any]] = {400: {"model": m.ErrorsBody, "description": "bad window"}}


def _window(rt: Runtime, from_: str | None, to: str | None) -> Window:
    try:
        return build_window(from_, to, datetime.now(UTC), rt.report_options)
    except WindowError as exc:
        raise InputError([str(exc)]) from exc


@router.get("/report", responses=_WINDOW_ERRORS,
            summary="The management report; ?snapshot=true (operator) also saves it as the snapshot")
async def report(
    rt: Runtime = Depends(runtime),
    from_: str | None = Query(None, alias="from"),
    to: str | None = None,
    snapshot: bool = False,
) -> dict[str, Any]:
    body = await rt.reports[CORPUS].report(_window(rt, from_, to), mode="standard")
    if snapshot:
        await persist_snapshot(rt.settings.snapshot_dir, body, rt.domain)
    return body


@router.get("/live/report", responses=_WINDOW_ERRORS, tags=["desk"],
            summary="The live desk's summary report (never saved)")
async def live_report(
    rt: Runtime = Depends(runtime), from_: str | None = Query(None, alias="from"), to: str | None = None
) -> dict[str, Any]:
    return await rt.reports[LIVE].report(_window(rt, from_, to), mode="summary")


@router.get("/report/snapshot", responses={404: {}}, summary="The last saved report (JSON)")
async def snapshot_json(rt: Runtime = Depends(runtime)) -> Response:
    text = read_snapshot_json(rt.settings.snapshot_dir)
    if text is None:
        return JSONResponse({"error": "no snapshot"}, status_code=404)
    return Response(text, media_type="application/json")


@router.get("/report/snapshot.html", responses={404: {}}, response_class=HTMLResponse,
            summary="The last saved report as a self-contained page")
async def snapshot_html(rt: Runtime = Depends(runtime)) -> Response:
    text = read_snapshot_html(rt.settings.snapshot_dir)
    if text is None:
        return JSONResponse({"error": "no snapshot"}, status_code=404)
    return HTMLResponse(text)


@router.get("/telemetry/corrections", responses=_WINDOW_ERRORS, tags=["operator"],
            summary="How often clerks corrected the model, per field and per week (both channels)")
async def corrections(
    rt: Runtime = Depends(runtime), from_: str | None = Query(None, alias="from"), to: str | None = None
) -> dict[str, Any]:
    window = _window(rt, from_, to)
    limit = rt.settings.query_max_limit
    stores = [rt.channels[name].store for name in (CORPUS, LIVE)]
    fetched = [await s.query(window.from_norm, window.to_norm, limit + 1, source="desk") for s in stores]
    review = [await s.count(window.from_norm, window.to_norm, needs_review=True) for s in stores]
    return correction_telemetry(window, fetched, limit=limit, needs_review_counts=review)
