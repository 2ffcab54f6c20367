"""The management report (always 200), its live-summary variant, snapshots and correction telemetry.

``/report`` and ``/live/report`` answer with the deterministic report at once; prose still being
written is marked pending (``llm.status``, ``llm.pending``, each theme's ``prose.status``). The
answer carries an ``ETag``: a client asks again with ``If-None-Match`` and gets ``304`` until
something changed (docs/adr/0014-report-prose-by-polling.md).
"""

from __future__ import annotations

import asyncio
import hashlib
from datetime import timedelta
from functools import partial
from typing import Any

from fastapi import APIRouter, Query, Request
from pydantic import Field
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse

from feedback_intelligence.api import models as m
from feedback_intelligence.api import validation as v
from feedback_intelligence.api.deps import PeopleDep, RuntimeDep
from feedback_intelligence.api.errors import InputError
from feedback_intelligence.api.filters import ScopedFilter
from feedback_intelligence.api.masking import masked_report
from feedback_intelligence.api.problems import Problem
from feedback_intelligence.api.responses import errors
from feedback_intelligence.api.runtime import Runtime
from feedback_intelligence.api.scope import ManagerReach, ManagerScope
from feedback_intelligence.auth.people import People
from feedback_intelligence.auth.principal import Grant
from feedback_intelligence.instants.ticks import local_time
from feedback_intelligence.instants.timestamps import format_instant, normalize_timestamp
from feedback_intelligence.outputs.csv_writer import inbox_csv_chunks
from feedback_intelligence.outputs.snapshot import persist_snapshot, read_snapshot_html, read_snapshot_json
from feedback_intelligence.report.brief import (
    Brief,
    Managers,
    brief,
    brief_week,
    digest_of,
    stores_in_reach,
    urgent_routes_of,
)
from feedback_intelligence.report.chain_view import ChainView, chain_view
from feedback_intelligence.report.field_quality import CorrectionRates, correction_rates, span
from feedback_intelligence.report.items import (
    PAGE_DEFAULT,
    PAGE_MAX,
    Cursor,
    CursorInvalid,
    InboxPage,
    counts,
    decode_cursor,
    encode_cursor,
    every_page,
    inbox_item,
    page,
)
from feedback_intelligence.report.model import Report
from feedback_intelligence.report.telemetry import correction_telemetry
from feedback_intelligence.report.window import Window, WindowError, applied_filters, build_window
from feedback_intelligence.services.channels import CORPUS, INBOX, LIVE
from feedback_intelligence.store.aggregates import ItemFilter
from feedback_intelligence.store.feedback_store import FeedbackStore
from feedback_intelligence.store.structure_queue import StructureQueue

router = APIRouter(tags=["report"])
# Every operation taking a report window documents this 400: its code is how the edge fuzz knows a request
# valid by the schema may still be refused here (tests/support/schema_limits.py).
WINDOW_400 = (
    "`window_invalid`: the window is not ISO-8601, inverted, longer than FI_REPORT_MAX_WINDOW_DAYS, or starts "
    "before 0001-01-01 (a `to` in the first days of year 1 with the default days before it)."
)
_WINDOW_ERRORS: dict[int | str, dict[str, Any]] = {
    **errors(400, 429, 503, s400=WINDOW_400),
    403: {"description": "`store_forbidden`: a store (or the whole chain) the caller's roles do not reach."},
}
_REPORT_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"model": Report, "description": "The report; prose still being written is marked pending."},
    304: {"description": "Unchanged since the ETag sent in If-None-Match."},
    **_WINDOW_ERRORS,
}
# ``?snapshot=true`` is an operator form of the public report: to anyone else the edge hides it as a 404
_MAIN_REPORT_RESPONSES = {
    **_REPORT_RESPONSES,
    **errors(404, 422, s404="`?snapshot=true` from anyone but an operator: the operator form is hidden."),
}
_CHAIN_ONLY = {
    "description": "`store_forbidden`: the saved report is the chain's; a manager of some stores is refused."
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


_STORE = Query(None, description="Only this store's items (one of FI_STORES, or an id of FI_STORE_PATTERN).")


def _window(
    rt: Runtime, from_: str | None, to: str | None, store: str | None = None, *, filters: ItemFilter | None = None
) -> Window:
    problems = v.store_errors(store, rt.settings.chain.stores)
    if problems:
        raise InputError(problems)
    try:
        return build_window(from_, to, rt.clock.now(), rt.report_options, store=store, filters=filters)
    except WindowError as exc:
        raise InputError([Problem(str(exc), "window_invalid")]) from exc


def _inbox_stores(rt: Runtime, flt: ItemFilter) -> list[FeedbackStore]:
    """The channel databases a filter reads: both (the one inbox), or its ``channel``'s alone."""
    return [rt.channels[name].store for name in (CORPUS, LIVE) if flt.channel in (None, name)]


@router.get(
    "/report",
    responses=_MAIN_REPORT_RESPONSES,
    response_model=Report,
    operation_id="getReport",
    summary="The management report at once, prose pending until written; "
    "?snapshot=true (operator) waits for the prose and saves it as the snapshot",
    description="Always 200 at once: deterministic alerts, counts, groups and trends over both channels (the "
    "imported corpus and the desk's entries, `channelCounts`), narrowed by the filters; grounded LLM prose "
    "is written in the background and marked pending until then. Ask again with "
    "If-None-Match (ETag) to get it (docs/adr/0014-report-prose-by-polling.md, ADR 0034).",
)
async def report(
    request: Request,
    rt: RuntimeDep,
    from_: str | None = Query(None, alias="from"),
    to: str | None = None,
    snapshot: bool = False,
    *,
    flt: ScopedFilter,
) -> Response:
    service, window = rt.reports[INBOX], _window(rt, from_, to, filters=flt)
    if snapshot:
        body = await service.report(window, mode="standard")
        await persist_snapshot(rt.settings.storage.snapshot_dir, body, rt.domain)
        return conditional(request, body)
    return conditional(request, await service.view(window, mode="standard"))


_FILTER_ERRORS = {**_WINDOW_ERRORS, **errors(422)}


@router.get(
    "/report/items",
    responses={
        **errors(400, 422, 429, 503, s400=f"{WINDOW_400} Or the cursor is invalid, or `limit` is not 1–200."),
        403: _WINDOW_ERRORS[403],
    },
    response_model=InboxPage,
    operation_id="getReportItems",
    summary="The drill-in: the items matching the report's filters, newest first, a page at a time",
    description="Both channels merged in the order (timestamp, channel, id), newest first. Page with the opaque "
    f"`cursor` of the previous answer's `nextCursor`; `limit` items a page (default {PAGE_DEFAULT}, at most "
    f"{PAGE_MAX}). No item comes twice or is missed across pages while new items arrive.",
)
async def report_items(
    rt: RuntimeDep,
    from_: str | None = Query(None, alias="from"),
    to: str | None = None,
    *,
    flt: ScopedFilter,
    cursor: str | None = Query(None, description="`nextCursor` of the previous page; none = the first page."),
    limit: int = Query(PAGE_DEFAULT, ge=1, le=PAGE_MAX, description=f"Items a page (1–{PAGE_MAX})."),
) -> InboxPage:
    window = _window(rt, from_, to, filters=flt)
    try:
        resumed = decode_cursor(cursor) if cursor is not None else None
    except CursorInvalid as exc:
        raise InputError([Problem(str(exc), "cursor_invalid")]) from exc
    query, stores = window.item_filter(), _inbox_stores(rt, flt)
    if resumed is None:  # the first page counts; the next ones carry its counts in their cursor
        found, counted = await asyncio.gather(page(stores, query, None, limit), counts(stores, query))
        per_channel = {name: counted.get(name, 0) for name in (CORPUS, LIVE)}
    else:
        found, per_channel = await page(stores, query, resumed.after, limit), resumed.counts
    return InboxPage(
        items=[inbox_item(item, rt.domain) for item in found.items],
        next_cursor=encode_cursor(Cursor(found.next, per_channel)) if found.next is not None else None,
        total=sum(per_channel.values()),
        channel_counts=per_channel,
        filters=applied_filters(window),
    )


@router.get(
    "/report/items.csv",
    responses={
        200: {
            "content": {"text/csv": {"schema": {"type": "string"}}},
            "description": "Every item matching the filters, newest first (both channels, each row naming its "
            "channel), streamed a page at a time (`X-Items-Total` says how many matched when it started): the "
            "store's id and name (FI_STORES), the language and every structured field, local times "
            "(FI_TIMEZONE), labels instead of codes; a cell a spreadsheet could run as a formula starts with `'`.",
        },
        **_FILTER_ERRORS,
    },
    response_class=Response,
    operation_id="getReportItemsCsv",
    summary="Every item matching the report's filters, as CSV (safe against formula injection)",
    description="The same window and filters as `GET /report` and `GET /report/items`, all of the window's "
    "items (no row cap: the window's length is bounded by FI_REPORT_MAX_WINDOW_DAYS). UTF-8 with a byte-order "
    "mark, RFC 4180.",
)
async def report_items_csv(
    rt: RuntimeDep,
    from_: str | None = Query(None, alias="from"),
    to: str | None = None,
    *,
    flt: ScopedFilter,
) -> Response:
    window = _window(rt, from_, to, filters=flt)
    query, stores = window.item_filter(), _inbox_stores(rt, flt)
    total = sum((await counts(stores, query)).values())
    zone = rt.report_options.timezone
    name = f"palautteet-{local_time(window.from_norm, zone)[:10]}--{local_time(window.to_norm, zone)[:10]}.csv"
    # a page of rows at a time by the drill-in's keyset: a 90-day window of thousands streams in constant memory
    chunks = inbox_csv_chunks(every_page(stores, query), rt.domain, zone, rt.settings.chain.stores.name)
    return StreamingResponse(
        chunks,
        media_type="text/csv; charset=utf-8",
        headers={
            "Content-Disposition": f'attachment; filename="{name}"',
            "Cache-Control": "no-store",
            "X-Items-Total": str(total),
        },
    )


@router.get(
    "/live/report",
    responses=_REPORT_RESPONSES,
    response_model=Report,
    tags=["desk"],
    operation_id="getLiveReport",
    summary="The live desk's summary report at once, prose pending until written (never saved)",
    description="The desk's situation view: the same layers as the report, over the live channel.",
)
async def live_report(
    request: Request,
    rt: RuntimeDep,
    from_: str | None = Query(None, alias="from"),
    to: str | None = None,
    *,
    scope: ManagerScope,
) -> Response:
    report = await rt.reports[LIVE].view(_window(rt, from_, to, scope.store), mode="summary")
    return conditional(request, masked_report(report, rt.domain))  # every desk reads it: personal data masked


@router.get(
    "/report/stores",
    responses=_FILTER_ERRORS,
    response_model=ChainView,
    operation_id="getChainView",
    summary="The stores side by side: items, alert rate, severity mix and trend per store",
    description="Over the report's window and both channels, one row per store (FI_STORES in its order, else "
    "every store id found in the window), each counted by that store's own report (`/report?store=…`) under "
    "the same filters (a `store` filter is replaced by each row's store). Deterministic: never waits for or "
    "starts the language model.",
)
async def chain(
    rt: RuntimeDep,
    from_: str | None = Query(None, alias="from"),
    to: str | None = None,
    *,
    scope: ManagerReach,
    flt: ScopedFilter,
) -> ChainView:
    window = _window(rt, from_, to, filters=flt)
    found = [await rt.channels[name].store.stores_in(window.from_norm, window.to_norm) for name in (CORPUS, LIVE)]
    ids = stores_in_reach(rt.settings.chain.stores.ids(), [store for each in found for store in each], scope.stores)
    return await chain_view(rt.reports[INBOX], window, ids, rt.settings.chain.stores.name)


@router.get(
    "/report/brief",
    responses=_FILTER_ERRORS,
    response_model=Brief,
    operation_id="getBrief",
    summary="The manager's week: items, alert items and significant rises against the week before, per store",
    description="The seven days up to `to` (default now) against the seven before, for every store in the "
    "caller's reach (FI_STORES in its order) and in total, each counted by that store's own report under the "
    "same filters; a rise is listed only where the report's trend rule calls it significant. With `store`, "
    "that store alone. Deterministic: never waits for or starts the language model.",
)
async def week_brief(
    rt: RuntimeDep,
    p: PeopleDep,
    to: str | None = None,
    *,
    scope: ManagerReach,
    flt: ScopedFilter,
) -> Brief:
    try:
        week = brief_week(to, rt.clock.now(), rt.report_options, flt)
    except WindowError as exc:
        raise InputError([Problem(str(exc), "window_invalid")]) from exc
    managers = _store_managers(p) if p.enabled else None
    routes = rt.settings.notify.channels
    digest, urgent = digest_of(routes, rt.domain, rt.settings.notify.digest_hour), urgent_routes_of(routes, rt.domain)
    week_of = partial(brief, rt.reports[INBOX], week, managers_of=managers, digest=digest, urgent_routes=urgent)
    name = rt.settings.chain.stores.name
    if flt.store is not None:
        return await week_of([flt.store], name, chain=False)
    found = [await rt.channels[name].store.stores_in(week.from_norm, week.to_norm) for name in (CORPUS, LIVE)]
    ids = stores_in_reach(rt.settings.chain.stores.ids(), [store for each in found for store in each], scope.stores)
    return await week_of(ids, name, chain=scope.chain)


def _store_managers(people: People) -> Managers:
    """A store's managers by name: the accounts granted ``manager`` of that store itself (a chain-wide grant
    is every store's, so it names no one's)."""

    async def managers(store: str) -> list[str]:
        found = await people.store.granted(("manager",), store)
        return [person.display_name for person in found if Grant("manager", store) in person.grants]

    return managers


@router.get(
    "/report/snapshot",
    operation_id="getReportSnapshot",
    responses={
        200: {
            "description": "The saved report, as `GET /report` returned it.",
            "content": {"application/json": {"schema": {"type": "object"}}},
        },
        204: {"description": "No snapshot has been saved yet (a fresh install)."},
        **errors(429),
        403: _CHAIN_ONLY,
    },
    summary="The last saved report (JSON)",
    description="Saved by `GET /report?snapshot=true` (operator). Before the first one, the answer is "
    "204 No Content: a fresh install is not an error, and the management view asks for "
    "it on every load.",
)
async def snapshot_json(rt: RuntimeDep, scope: ManagerReach) -> Response:
    scope.require_chain()  # the saved report is the chain's
    text = read_snapshot_json(rt.settings.storage.snapshot_dir)
    if text is None:
        return Response(status_code=204)
    return Response(text, media_type="application/json")


@router.get(
    "/report/snapshot.html",
    responses={
        **errors(404, 429),
        403: _CHAIN_ONLY,
    },
    response_class=HTMLResponse,
    operation_id="getReportSnapshotPage",
    summary="The last saved report as a self-contained page",
    description="No script, one inline style: it still reads when saved to disk or mailed.",
)
async def snapshot_html(rt: RuntimeDep, scope: ManagerReach) -> Response:
    scope.require_chain()
    text = read_snapshot_html(rt.settings.storage.snapshot_dir)
    if text is None:
        return JSONResponse({"error": "no snapshot"}, status_code=404)
    return HTMLResponse(text)


CORRECTION_WEEKS_MAX = 26


@router.get(
    "/report/corrections",
    responses={
        **errors(400, 429, 503, s400="`store_unknown`: not a store of this deployment; `weeks` outside 1–26."),
        403: {"description": "`store_forbidden`: `store` names a store the caller's roles do not reach."},
    },
    response_model=CorrectionRates,
    operation_id="getCorrectionRates",
    summary="How often people corrected the model's proposals, per field: this week, per week, backend and store",
    description="Entries saved from a model's proposal, and per field those in which the person changed the "
    "field, over the `weeks` ISO weeks up to today (UTC days; the current week from its Monday), for every "
    "store in the caller's reach, or `store` alone. Read from the correction rollup: counts only, no text.",
)
async def correction_rates_route(
    rt: RuntimeDep,
    scope: ManagerReach,
    weeks: int = Query(1, ge=1, le=CORRECTION_WEEKS_MAX, description="How many weeks, the current one last."),
    store: str | None = _STORE,
) -> CorrectionRates:
    unknown = v.store_errors(store, rt.settings.chain.stores)
    if unknown:
        raise InputError(unknown)
    if store is not None:
        scope.check(store)
    stores = [store] if store is not None else (sorted(scope.stores) if scope.stores is not None else None)
    today = rt.clock.now().date()
    first, last = span(today, weeks)
    tallies = [
        tally
        for name in (CORPUS, LIVE)
        for tally in await rt.channels[name].store.correction_tallies(first, last, stores=stores)
    ]
    return correction_rates(tallies, today, weeks, store)


@router.get(
    "/telemetry/corrections",
    responses=_WINDOW_ERRORS,
    tags=["operator"],
    operation_id="getCorrectionTelemetry",
    summary="How often clerks corrected the model, per field and per week (both channels)",
    description="Desk entries only. Operator route.",
)
async def corrections(
    rt: RuntimeDep,
    from_: str | None = Query(None, alias="from", description="Window start (ISO-8601 instant)."),
    to: str | None = Query(None, description="Window end (ISO-8601 instant)."),
    store: str | None = _STORE,
) -> dict[str, Any]:
    window = _window(rt, from_, to, store)
    limit = rt.settings.domain.query_max_limit
    stores = [rt.channels[name].store for name in (CORPUS, LIVE)]
    fetched = [await s.query(window.from_norm, window.to_norm, limit + 1, source="desk", store=store) for s in stores]
    review = [await s.count(window.from_norm, window.to_norm, needs_review=True, store=store) for s in stores]
    return {**correction_telemetry(window, fetched, limit=limit, needs_review_counts=review), "store": store}


class RefinedOut(m.ApiModel):
    """How many themes the model changed since an instant (ADR 0063)."""

    refined: int = Field(description="Items whose theme the model's later structure changed since `since`.")
    since: str = Field(description="The instant counted from, as normalised.")


@router.get(
    "/report/refined",
    response_model=RefinedOut,
    responses=errors(400, 429),
    operation_id="getRefinedThemes",
    summary="How many themes the model refined since an instant",
    description="A row saved with the rules' structure (an import, a desk's save for later) is structured by "
    "the model later; where that changed the theme a report may already have shown, the item's history says "
    "so (`structure.refined` in the audit log) and this counts them, over both channels, within the caller's "
    "stores. The management page asks it with the moment it read its report, and says so beside it.",
)
async def refined_themes(
    rt: RuntimeDep,
    scope: ManagerScope,
    since: str | None = Query(
        None,
        description="An ISO-8601 instant: count the themes refined from then on (default: a day ago).",
        json_schema_extra={"format": "date-time"},
    ),
) -> RefinedOut:
    try:
        normalised = normalize_timestamp(since) if since else format_instant(rt.clock.now() - timedelta(days=1))
    except ValueError as exc:
        raise InputError([Problem("since must be an ISO-8601 instant.", "timestamp_invalid", field="since")]) from exc
    stores = frozenset({scope.store}) if scope.store is not None else scope.stores
    counted = [
        await StructureQueue(rt.channels[name].store).refined_since(normalised, stores) for name in (CORPUS, LIVE)
    ]
    return RefinedOut(refined=sum(counted), since=normalised)
