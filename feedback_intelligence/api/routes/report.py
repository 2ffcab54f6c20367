"""The management report (always 200), its live-summary variant, snapshots and correction telemetry.

``/report`` and ``/live/report`` answer with the deterministic report at once; prose still being
written is marked pending (``llm.status``, ``llm.pending``, each theme's ``prose.status``). The
answer carries an ``ETag``: a client asks again with ``If-None-Match`` and gets ``304`` until
something changed (docs/adr/0014-report-prose-by-polling.md).
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Depends, Query, Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from feedback_intelligence.api import models as m
from feedback_intelligence.api.deps import runtime
from feedback_intelligence.api.errors import InputError
from feedback_intelligence.api.runtime import Runtime
from feedback_intelligence.report.model import Report
from feedback_intelligence.report.snapshot import persist_snapshot, read_snapshot_html, read_snapshot_json
from feedback_intelligence.report.telemetry import correction_telemetry
from feedback_intelligence.report.window import Window, WindowError, build_window
from feedback_intelligence.services.channels import CORPUS, LIVE

router = APIRouter(tags=["report"])
_WINDOW_ERRORS: dict[int | str, dict[str, Any]] = {400: {"model": m.ErrorsBody, "description": "bad window"}}
_REPORT_RESPONSES: dict[int | str, dict[str, Any]] = {
    **_WINDOW_ERRORS,
    200: {"model": Report, "description": "the report; prose still being written is marked pending"},
    304: {"description": "unchanged since the ETag sent in If-None-Match"},
}
POLL_HINT_S = 2  # ``Retry-After`` on a report with pending prose: when asking again is worth it


def conditional(request: Request, report: Report) -> Response:
    """The report as JSON with a strong ETag of its bytes; 304 when the client already has them."""
    body = report.model_dump_json(by_alias=True).encode()
    etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
    headers = {"ETag": etag, "Cache-Control": "no-cache"}
    if report.llm.status == "pending":
        headers["Retry-After"] = str(POLL_HINT_S)
    sent = request.headers.get("if-none-match", "")
    if etag in (tag.strip() for tag in sent.split(",")):
        return Response(status_code=304, headers=headers)
    return Response(body, media_type="application/json", headers=headers)


def _window(rt: Runtime, from_: str | None, to: str | None) -> Window:
    try:
        return build_window(from_, to, datetime.now(UTC), rt.report_options)
    except WindowError as exc:
        raise InputError([str(exc)]) from exc


@router.get("/report", responses=_REPORT_RESPONSES, response_model=Report,
            summary="The management report at once, prose pending until written; "
                    "?snapshot=true (operator) waits for the prose and saves it as the snapshot")
async def report(
    request: Request,
    rt: Runtime = Depends(runtime),
    from_: str | None = Query(None, alias="from"),
    to: str | None = None,
    snapshot: bool = False,
) -> Response:
    service, window = rt.reports[CORPUS], _window(rt, from_, to)
    if snapshot:
        body = await service.report(window, mode="standard")
        await persist_snapshot(rt.settings.snapshot_dir, body.to_json(), rt.domain)
        return conditional(request, body)
    return conditional(request, await service.view(window, mode="standard"))


@router.get("/live/report", responses=_REPORT_RESPONSES, response_model=Report, tags=["desk"],
            summary="The live desk's summary report at once, prose pending until written (never saved)")
async def live_report(
    request: Request,
    rt: Runtime = Depends(runtime),
    from_: str | None = Query(None, alias="from"),
    to: str | None = None,
) -> Response:
    return conditional(request, await rt.reports[LIVE].view(_window(rt, from_, to), mode="summary"))


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
