"""Feedback in and out: ingest (both channels), interpret, lists, schema, live version, restructure."""

from __future__ import annotations

from dataclasses import replace

from fastapi import APIRouter, Query, Request
from starlette.responses import JSONResponse, Response

from feedback_intelligence.api import models as m
from feedback_intelligence.api import validation as v
from feedback_intelligence.api.authorship import author_of
from feedback_intelligence.api.changes import change_verdict
from feedback_intelligence.api.deps import RuntimeDep, visitor
from feedback_intelligence.api.disconnect import cancel_on_disconnect
from feedback_intelligence.api.errors import InputError, busy_response
from feedback_intelligence.api.problems import Problem
from feedback_intelligence.api.responses import errors
from feedback_intelligence.api.runtime import Runtime
from feedback_intelligence.api.scope import (
    STORE_QUERY_HELP,
    DeskReach,
    StoreScope,
    item_in_reach,
    narrow,
    store_for_save,
)
from feedback_intelligence.deterministic.personal_data import masked_text, personal_data_json
from feedback_intelligence.domain.loader import schema_json
from feedback_intelligence.instants.timestamps import normalize_bound
from feedback_intelligence.records import Correction, Proposer, StoredFeedback, Structure
from feedback_intelligence.services.channels import CORPUS, LIVE
from feedback_intelligence.services.ingest import IngestCommand
from feedback_intelligence.services.proposal import propose
from feedback_intelligence.services.proposers import UNKNOWN, proposer_of, proposers
from feedback_intelligence.services.restructure import RestructureInterrupted

router = APIRouter()

_INGEST_RESPONSES = {
    202: {
        "model": m.FeedbackCreated,
        "description": "Saved for later (`structureLater`): stored with the deterministic proposal and "
        "`pending` true; the background worker structures it.",
    },
    **errors(
        400,
        409,
        410,
        413,
        429,
        503,
        s503="The LLM is busy (shed) or a store is down: nothing stored; retry with the same id after "
        "Retry-After. With `structureLater` only a store that is down answers 503.",
    ),
}
_LIST_RESPONSES = {
    **errors(400, 429, 503),
    403: {"description": "`store_forbidden`: `store` names a store the caller's roles do not reach."},
}
_LIMIT = Query(
    None,
    description="At most this many items, newest first (default and ceiling: "
    "FI_QUERY_DEFAULT_LIMIT, FI_QUERY_MAX_LIMIT).",
)
_FROM = Query(None, alias="from", description="Window start (ISO-8601 instant, inclusive).")
_TO = Query(None, description="Window end (ISO-8601 instant, exclusive).")
_STORE = Query(None, description="Only this store's items (one of FI_STORES, or an id of FI_STORE_PATTERN).")


def _command(body: m.FeedbackIn, rt: Runtime) -> IngestCommand:
    checked = ingest_command(body, rt)
    if isinstance(checked, list):
        raise InputError(checked)
    return checked


def ingest_command(body: m.FeedbackIn, rt: Runtime) -> IngestCommand | list[str]:
    """The input rules of a save (docs/rules.md, "Input rules"): the command, or every rule it broke.
    One save's and each batch item's (``api/routes/batch.py``)."""
    settings, domain = rt.settings, rt.domain
    accepted = Structure(**body.acceptedStructure.model_dump()) if body.acceptedStructure is not None else None
    corrections = (
        tuple(Correction(c.field, c.modelValue, c.humanValue) for c in body.corrections)
        if body.corrections is not None
        else None
    )
    errors = [
        *v.text_errors(body.text, settings.domain.text_store_max_chars),  # stored whole; the model reads the first part
        *v.source_errors(body.source, domain),
        *v.timestamp_errors(body.timestamp),
        *v.id_errors(body.id, settings.domain.id_max_length),
        *(v.structure_errors(accepted, domain) if accepted else []),
        *v.correction_errors(corrections, accepted is not None, bool(body.modelInterpretationFailed)),
        *v.later_errors(bool(body.structureLater), accepted is not None),
        *v.store_errors(body.store, settings.chain.stores),
    ]
    if errors:
        return errors
    return IngestCommand(
        source=body.source,
        text=body.text,
        timestamp=body.timestamp,
        id=body.id,
        accepted_structure=accepted,
        corrections=corrections,
        model_interpretation_failed=bool(body.modelInterpretationFailed),
        structure_later=bool(body.structureLater),
        store=body.store,
        proposal=_proposal(body, rt),
    )


def _proposal(body: m.FeedbackIn, rt: Runtime) -> Proposer | None:
    """Whose proposal a person's save started from (ADR 0065): the backend the interpretation named, when
    the pool has it; a save with corrections and no name is ``unknown``; other saves none."""
    if body.acceptedStructure is None or body.modelInterpretationFailed:
        return None
    if body.proposedBy is not None:
        return proposer_of(proposers(rt.settings.backends), body.proposedBy.backend)
    return UNKNOWN if body.corrections is not None else None


async def _ingest(
    channel_name: str, body: m.FeedbackIn, request: Request, rt: Runtime, reach: StoreScope | None = None
) -> Response:
    command = replace(_command(body, rt), author=author_of(request.scope))
    if channel_name == LIVE:
        asked = command.store or rt.settings.chain.desk_store  # the service's desks are one store's
        stores = reach.stores if reach else None
        command = replace(command, store=store_for_save(stores, asked, rt.settings.chain.stores))
    channel = rt.channels[channel_name]
    stored = await cancel_on_disconnect(
        request, rt.ingest.ingest(channel, command, visitor=visitor(request))
    )  # DuplicateId: 409
    path = "desk" if command.accepted_structure else ("later" if command.structure_later else "llm")
    rt.metrics.feedback_ingested.labels(channel_name, path).inc()
    prefix = "/live" if channel_name == LIVE else ""
    created = m.FeedbackCreated(
        id=stored.id,
        structure=m.StructureOut.model_validate(stored.structure.to_json()) if stored.structure else None,
        structureFailed=stored.structure_failed,
        salvageNotes=list(stored.salvage_notes),
        alerts=[m.AlertOut.model_validate(a.to_json()) for a in stored.alerts],
        needsReview=stored.needs_review,
        reviewFlags=list(stored.review_flags),
        pending=stored.pending,
        store=stored.store,
        ruleAdvice=[m.RuleAdviceOut.model_validate(a.to_json()) for a in stored.rule_advice],
        personalData=[m.PersonalDataOut.model_validate(f) for f in personal_data_json(stored.text, rt.domain)],
    )
    status = 202 if stored.pending else 201  # accepted: the model's part is still to come
    return JSONResponse(
        created.model_dump(mode="json"), status_code=status, headers={"Location": f"{prefix}/feedback/{stored.id}"}
    )


@router.post(
    "/feedback",
    status_code=201,
    response_model=m.FeedbackCreated,
    responses=_INGEST_RESPONSES,
    tags=["feedback"],
    operation_id="ingestFeedback",
    summary="Ingest one item into the corpus channel",
    description="Structures the text through the LLM gate (unless `acceptedStructure` is given) and "
    "stores it with its deterministic alerts. An LLM that fails stores the item "
    "`structureFailed` with its raw text; a shed (503) stores nothing unless `structureLater` "
    "asked to save now and structure in the background (202). Operator route.",
)
async def post_feedback(body: m.FeedbackIn, request: Request, rt: RuntimeDep) -> Response:
    return await _ingest(CORPUS, body, request, rt)


@router.post(
    "/live/feedback",
    status_code=201,
    response_model=m.FeedbackCreated,
    responses={
        **_INGEST_RESPONSES,
        400: {
            **_INGEST_RESPONSES[400],
            "description": "A rule was broken (each message names it; `codes` for translation), among them "
            "`store_unknown` and, from a person of several stores who names none, `store_required`. Nothing "
            "was stored.",
        },
        403: {"description": "`store_forbidden`: `store` names a store the caller's roles do not reach."},
    },
    tags=["desk"],
    operation_id="saveDeskEntry",
    summary="Save one desk entry; with acceptedStructure no LLM is involved",
    description="The desk's save. With `acceptedStructure` (the clerk's checked fields) it never "
    "waits for the LLM; with `structureLater` it is saved at once (202) and structured in the "
    "background. Retrying with the same `id` answers 409 and changes nothing. A person saves for one of "
    "their stores: the one named, else their only one (a person of several names one).",
)
async def post_live_feedback(body: m.FeedbackIn, request: Request, rt: RuntimeDep, reach: DeskReach) -> Response:
    return await _ingest(LIVE, body, request, rt, reach)


@router.post(
    "/interpret",
    response_model=m.InterpretOut,
    tags=["desk"],
    operation_id="interpretFeedback",
    responses=errors(
        400,
        413,
        429,
        503,
        s503="The LLM is busy (shed after at most the acquire timeout, "
        "~500 ms) or unavailable: retry after Retry-After.",
    ),
    summary="Preview the structure of a text (stores nothing)",
    description="The desk's Tulkitse: the model's suggestion for a text, checked before it is "
    "returned. Waits at most the acquire timeout for a gate slot, then sheds (503).",
)
async def interpret(body: m.InterpretIn, request: Request, rt: RuntimeDep) -> m.InterpretOut:
    errors = v.text_errors(body.text, rt.settings.domain.input_max_chars)
    if errors:
        raise InputError(errors)
    result = await cancel_on_disconnect(request, rt.interpret.interpret(body.text, visitor=visitor(request)))
    out = m.InterpretOut.model_validate(result.to_json())
    if result.backend is not None:
        proposer = proposer_of(proposers(rt.settings.backends), result.backend)
        out.proposedBy = m.ProposerOut(backend=proposer.backend, model=proposer.model)
    return out


@router.post(
    "/interpret/proposal",
    response_model=m.ProposalOut,
    tags=["desk"],
    operation_id="proposeStructure",
    responses=errors(400, 413, 429),
    summary="The rules' structure for a text, without the model (stores nothing)",
    description='What the desk\'s "fill in by hand" starts from when the model is busy or down: the '
    "deterministic prior's structure (category keywords, alert stems, lexicons, language "
    "detection). Never goes through the gate, so it answers whatever the GPU is doing.",
)
async def interpret_proposal(body: m.ProposalIn, rt: RuntimeDep) -> m.ProposalOut:
    # The rules read the whole text, so "fill in by hand" starts from them for any text that can be stored.
    errors = v.text_errors(body.text, rt.settings.domain.text_store_max_chars)
    if errors:
        raise InputError(errors)
    return m.ProposalOut.model_validate(propose(body.text, rt.domain).to_json())


def _window(from_: str | None, to: str | None) -> tuple[str | None, str | None]:
    errors: list[str] = []
    bounds: list[str | None] = []
    for name, raw in (("from", from_), ("to", to)):
        if raw is None:
            bounds.append(None)
            continue
        try:
            bounds.append(normalize_bound(raw))
        except ValueError:
            errors.append(Problem(f"{name} must be ISO-8601, got '{raw}'.", "timestamp_invalid", field=name))
            bounds.append(None)
    if errors:
        raise InputError(errors)
    return bounds[0], bounds[1]


async def _list(
    channel_name: str,
    rt: Runtime,
    from_: str | None,
    to: str | None,
    limit: int | None,
    store: str | None,
    author: str | None = None,
) -> list[StoredFeedback]:
    problems = v.store_errors(store, rt.settings.chain.stores)
    if problems:
        raise InputError(problems)
    lo, hi = _window(from_, to)
    bounds = rt.settings.domain
    clamped = max(1, min(bounds.query_max_limit, limit if limit is not None else bounds.query_default_limit))
    return await rt.channels[channel_name].store.query(lo, hi, clamped, store=store, author=author)


def _items(rows: list[StoredFeedback]) -> list[m.FeedbackItem]:
    return [m.FeedbackItem.model_validate(r.to_json()) for r in rows]


_MINE_UNKNOWN = Problem(
    "mine=true needs a signed-in person, or the desk page's visitor key under FI_AUTH=none.",
    "mine_unknown",
    field="mine",
)


@router.get(
    "/feedback",
    response_model=list[m.FeedbackItem],
    responses=_LIST_RESPONSES,
    tags=["feedback"],
    operation_id="listFeedback",
    summary="List corpus items in a window, newest first",
    description="Never needs the LLM. Operator route.",
)
async def list_feedback(
    rt: RuntimeDep,
    from_: str | None = _FROM,
    to: str | None = _TO,
    limit: int | None = _LIMIT,
    store: str | None = _STORE,
) -> list[m.FeedbackItem]:
    return _items(await _list(CORPUS, rt, from_, to, limit, store))


@router.get(
    "/live/feedback",
    response_model=list[m.FeedbackItem],
    responses={
        **_LIST_RESPONSES,
        403: {"model": m.ErrorsBody, "description": "`mine_unknown`: `mine=true` from a caller who is nobody yet."},
    },
    tags=["desk"],
    operation_id="listDeskEntries",
    summary="List desk entries in a window, newest first; mine=true: the caller's own",
    description="Never needs the LLM. A person of one store reads that store's entries. With `mine=true`, "
    "only the entries the caller saved (their account, or under FI_AUTH=none this browser's visitor key), "
    "each with `changeable` and `changeableUntil`: whether they may still correct or erase it, and until when.",
)
async def list_live_feedback(
    request: Request,
    rt: RuntimeDep,
    from_: str | None = _FROM,
    to: str | None = _TO,
    limit: int | None = _LIMIT,
    store: str | None = Query(None, description=STORE_QUERY_HELP),
    *,
    reach: DeskReach,
    mine: bool = Query(False, description="Only the caller's own entries, each with whether it is still theirs."),
) -> list[m.FeedbackItem]:
    if not mine:
        # every desk reads this list: the personal data in a text kept as typed is masked (rules.md)
        rows = await _list(LIVE, rt, from_, to, limit, narrow(reach.stores, store).store)
        return _items([replace(row, text=masked_text(row.text, rt.domain)) for row in rows])
    author = author_of(request.scope)
    if author is None:
        raise InputError([_MINE_UNKNOWN], 403)  # not a broken rule of the request: the caller is nobody
    if store is not None:
        reach.check(store)
    # one's own entries whatever their store (a person of several stores need not name one), but only
    # those they still reach: an entry a manager moved to another store is that store's now
    rows = await _list(LIVE, rt, from_, to, limit, store, author=author)
    out = []
    for row in filter(lambda row: reach.allows(row.store), rows):
        verdict = change_verdict(request, rt, row)
        out.append(
            m.FeedbackItem.model_validate(
                {**row.to_json(), "changeable": verdict.allowed, "changeableUntil": verdict.until}
            )
        )
    return out


async def _get(channel_name: str, feedback_id: str, rt: Runtime, scope: StoreScope) -> m.FeedbackItem:
    row = await item_in_reach(rt.channels[channel_name].store, feedback_id, scope, rt.settings.domain.id_max_length)
    return m.FeedbackItem.model_validate(row.to_json())


@router.get(
    "/feedback/{feedback_id}",
    response_model=m.FeedbackItem,
    responses={**errors(400, 404, 429, 503), 410: {"description": "The item was erased."}},
    tags=["feedback"],
    operation_id="getFeedback",
    summary="One corpus item by id",
    description="Operator route.",
)
async def get_feedback(feedback_id: str, rt: RuntimeDep, scope: DeskReach) -> m.FeedbackItem:
    return await _get(CORPUS, feedback_id, rt, scope)


@router.get(
    "/live/feedback/{feedback_id}",
    response_model=m.FeedbackItem,
    responses={
        **errors(400, 404, 429, 503),
        403: {"description": "`store_forbidden`: an entry of a store the caller's roles do not reach."},
        410: {"description": "The entry was erased."},
    },
    tags=["desk"],
    operation_id="getDeskEntry",
    summary="One desk entry by id",
    description="Never needs the LLM.",
)
async def get_live_feedback(feedback_id: str, rt: RuntimeDep, scope: DeskReach) -> m.FeedbackItem:
    return await _get(LIVE, feedback_id, rt, scope)


@router.get(
    "/live/desk-store",
    response_model=m.DeskStoreOut,
    tags=["desk"],
    operation_id="getDeskStore",
    responses=errors(400, 429, s400="`store` is not a store of this deployment, or another than FI_DESK_STORE."),
    summary="The store a desk is bound to, with its name",
    description="The desk page asks with its own `?store=`: FI_DESK_STORE binds every desk of the service "
    "(a page naming another store is refused), otherwise the page's store is validated and named.",
)
async def desk_store(rt: RuntimeDep, store: str | None = _STORE) -> m.DeskStoreOut:
    chain = rt.settings.chain
    problems = v.store_errors(store, chain.stores)
    if problems:
        raise InputError(problems)
    if chain.desk_store is not None:
        if store is not None and store != chain.desk_store:
            raise InputError(
                [
                    Problem(
                        f"this service's desks are bound to store '{chain.desk_store}' (FI_DESK_STORE), not '{store}'.",
                        "store_bound",
                        field="store",
                        value=store,
                    )
                ]
            )
        return m.DeskStoreOut(id=chain.desk_store, name=chain.stores.name(chain.desk_store), boundBy="setting")
    if store is None:
        return m.DeskStoreOut(id=None, name=None, boundBy="none")
    return m.DeskStoreOut(id=store, name=chain.stores.name(store), boundBy="page")


@router.get(
    "/live/version",
    response_model=m.VersionOut,
    tags=["desk"],
    operation_id="getLiveVersion",
    responses=errors(429, 503),
    summary="The live channel's change counter (survives restarts)",
    description="Pages poll it and reload the live segment only when it moved.",
)
async def live_version(rt: RuntimeDep) -> m.VersionOut:
    return m.VersionOut(version=await rt.channels[LIVE].version())


@router.get(
    "/schema",
    tags=["desk"],
    operation_id="getSchema",
    response_model=m.SchemaOut,
    responses=errors(429),
    summary="The active domain's taxonomy and labels",
    description="Categories, severities, types, sentiments and sources with their display labels, in "
    "the domain's language. Pages build their forms from it.",
)
async def schema(rt: RuntimeDep) -> m.SchemaOut:
    settings = rt.settings
    return m.SchemaOut(
        **schema_json(rt.domain),
        textMaxChars=settings.domain.input_max_chars,
        textStoreMaxChars=settings.domain.text_store_max_chars,
        timezone=rt.report_options.timezone,
        stores=[m.StoreOut(id=e.id, name=e.name) for e in entries]
        if (entries := settings.chain.stores.entries)
        else None,
        laterWaitsForFreeSlot=settings.gate.background_reserve >= settings.backends.total_slots,
    )


@router.post(
    "/live/restructure",
    response_model=m.RestructureOut,
    tags=["operator"],
    operation_id="restructureDeskEntries",
    responses={
        **errors(429),
        503: {
            "model": m.RestructureShedBody,
            "description": "Shed part-way: the work done before is kept (its counts are in the body).",
        },
    },
    summary="Re-structure live rows without a usable structure (background priority)",
    description="Runs at background priority: it leaves `FI_LLM_BACKGROUND_RESERVE` slots to the desk. Operator route.",
)
async def restructure(rt: RuntimeDep) -> Response:
    try:
        outcome = await rt.restructure.run(rt.channels[LIVE])
    except RestructureInterrupted as stop:
        response = busy_response(stop.busy)
        return JSONResponse(
            {**stop.outcome.to_json(), "error": "busy", "retryAfterSeconds": stop.busy.retry_after_s},
            status_code=503,
            headers={"Retry-After": response.headers["Retry-After"]},
        )
    return JSONResponse(outcome.to_json())
