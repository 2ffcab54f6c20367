"""Bulk import: ``POST /feedback/batch`` and ``POST /live/feedback/batch`` (docs/adr/0027).

Each item is read and checked on its own, by the single save's rules (``desk.ingest_command``), so one bad
item is that item's ``invalid`` result, not a 400 of the batch. The valid items go to the single save's
service (``IngestService.ingest_batch``): its deterministic layers for each, then one transaction, a taken
id answered ``duplicate``, an erased one ``erased``. Never the model: an item without ``acceptedStructure``
is saved for later.

A batch's CPU work (the checks here, the rules and the derivation below) runs in worker threads, one batch
at a time per process (``FI_BATCH_SLOTS``): a batch takes its slot before its body is read, or is shed
(docs/adr/0043), so the event loop keeps serving the desks while batches are stored.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from dataclasses import replace
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.routing import APIRoute
from pydantic import ValidationError

from feedback_intelligence.api import models as m
from feedback_intelligence.api import validation as v
from feedback_intelligence.api.authorship import author_of
from feedback_intelligence.api.deps import RuntimeDep, runtime
from feedback_intelligence.api.errors import InputError, describe_errors
from feedback_intelligence.api.problems import Problem, codes_of
from feedback_intelligence.api.responses import errors
from feedback_intelligence.api.routes.desk import ingest_command
from feedback_intelligence.api.runtime import Runtime
from feedback_intelligence.services.channels import CORPUS, LIVE
from feedback_intelligence.services.ingest import IngestCommand


class AdmittedBatch(APIRoute):
    """A batch route: its request takes a batch slot before its body is even read (``BatchSlots``, docs/adr/0043).
    A batch shed with 503 costs the event loop only the bytes it sent, never a parse of them."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handle = super().get_route_handler()

        async def admitted(request: Request) -> Response:
            return await runtime(request).batch_slots.run(lambda: handle(request))

        return admitted


router = APIRouter(route_class=AdmittedBatch)

_RESPONSES = errors(
    400,
    413,
    429,
    503,
    s400='The body is not `{"items": [...]}`. Nothing was stored (a bad item is its own result, not a 400).',
    s413="The body is over FI_BATCH_MAX_BODY_BYTES, or `items` over FI_BATCH_MAX_ITEMS: nothing was read or stored.",
    s503="`busy` (reason `batches`): FI_BATCH_SLOTS batches were being stored and none finished within the "
    "wait; or a store is down or full. Nothing of the batch was stored: send it again after `Retry-After` "
    "(the ids make that safe).",
)
BATCH_COUNTS = ("created", "accepted", "duplicate", "erased", "invalid")
LATER_REQUIRED = Problem(
    "structureLater must be true or absent in a batch: a batch never calls the model "
    "(send acceptedStructure, or let the background worker structure the item).",
    "later_required",
    field="structureLater",
)


def _check(raw: Any, rt: Runtime) -> IngestCommand | list[str]:
    """One item: read it as a save's body, then the save's rules; implied ``structureLater``."""
    if not isinstance(raw, dict):
        return [Problem("each item must be a JSON object (a FeedbackIn).", "item_not_object")]
    try:
        body = m.FeedbackIn.model_validate(raw)
    except ValidationError as exc:
        return list(describe_errors(exc.errors()))
    if body.structureLater is False:
        return [LATER_REQUIRED]
    if body.acceptedStructure is None:
        body = body.model_copy(update={"structureLater": True})
    return ingest_command(body, rt)


def _own_id(raw: Any, max_length: int) -> str | None:
    """A refused item's id, when it is one (never an unchecked string echoed back: NUL, lone surrogates)."""
    own = raw.get("id") if isinstance(raw, dict) else None
    return own if isinstance(own, str) and not v.id_errors(own, max_length) else None


async def store_batch(channel_name: str, body: m.BatchIn, rt: Runtime, author: str | None) -> m.BatchOut:
    limit = rt.settings.chain.batch_max_items
    if len(body.items) > limit:
        raise InputError(
            [
                Problem(
                    f"items holds {len(body.items)} items; a batch takes at most {limit} (FI_BATCH_MAX_ITEMS): "
                    "send it in chunks.",
                    "batch_too_large",
                    limit=limit,
                    length=len(body.items),
                )
            ],
            status_code=413,
        )
    results, valid = await asyncio.to_thread(_check_all, body.items, rt, author)
    outcomes = await rt.ingest.ingest_batch(
        rt.channels[channel_name],
        [command for _, command in valid],
        history=bool(body.history),
        by_model=body.model_later,
    )
    counter = rt.metrics.feedback_ingested
    for (index, _), outcome in zip(valid, outcomes, strict=True):
        if not outcome.stored:
            status = outcome.result  # duplicate | erased
        else:
            status = "accepted" if outcome.record.pending else "created"
            counter.labels(channel_name, "later" if outcome.record.pending else "desk").inc()
        results[index] = m.BatchItemResult(index=index, id=outcome.record.id, status=status)
    done = [r for r in results if r is not None]
    return m.BatchOut(
        results=done,
        **{name: sum(1 for r in done if r.status == name) for name in BATCH_COUNTS},
    )


def _check_all(
    items: list[Any], rt: Runtime, author: str | None
) -> tuple[list[m.BatchItemResult | None], list[tuple[int, IngestCommand]]]:
    """Every item read and checked: the refused items' results in their places, the valid items' commands
    with their places. In a worker thread: 20–70 ms of CPU for 1,000 items, which held the loop whole."""
    results: list[m.BatchItemResult | None] = [None] * len(items)
    valid: list[tuple[int, IngestCommand]] = []
    for index, raw in enumerate(items):
        checked = _check(raw, rt)
        if isinstance(checked, list):
            results[index] = m.BatchItemResult(
                index=index,
                id=_own_id(raw, rt.settings.domain.id_max_length),
                status="invalid",
                errors=list(checked),
                codes=[m.ErrorCode.model_validate(code) for code in codes_of(checked)],
            )
        else:
            valid.append((index, replace(checked, author=author)))
    return results, valid


_DESCRIPTION = (
    "Up to FI_BATCH_MAX_ITEMS items a request, each a `FeedbackIn`, with a result for each in order: "
    "`created`, `accepted` (saved for later), `duplicate` (by id), `erased` (an erased id, refused in both "
    "channels) or `invalid` (with its errors). The same rules and deterministic layers as a single save; "
    "never the model. The stored items go in as one transaction and move the version once: a batch is "
    "stored whole or, when the database fails, not at all. One process stores FI_BATCH_SLOTS batches at "
    "once (1); a batch that finds none free within ~500 ms is answered `503` `busy` with `Retry-After`, "
    "before its body is read. With `history: true` (a backfill) no stored item opens a case or notifies "
    "anyone, however recent it is, and (unless `byModel: true`) the rules' structure is the items' last: "
    "the model is not asked for them."
)


@router.post(
    "/feedback/batch",
    response_model=m.BatchOut,
    responses=_RESPONSES,
    tags=["feedback"],
    operation_id="ingestFeedbackBatch",
    summary="Import many items into the corpus channel (bulk import, no LLM)",
    description=_DESCRIPTION + " Operator route.",
)
async def post_feedback_batch(body: m.BatchIn, request: Request, rt: RuntimeDep) -> m.BatchOut:
    return await store_batch(CORPUS, body, rt, author_of(request.scope))


@router.post(
    "/live/feedback/batch",
    response_model=m.BatchOut,
    responses=_RESPONSES,
    tags=["desk"],
    operation_id="saveDeskEntriesBatch",
    summary="Import many items into the live channel (bulk import, no LLM)",
    description=_DESCRIPTION + " Operator route.",
)
async def post_live_feedback_batch(body: m.BatchIn, request: Request, rt: RuntimeDep) -> m.BatchOut:
    return await store_batch(LIVE, body, rt, author_of(request.scope))
