"""Correct (PATCH) and erase (DELETE) one item of either channel (ADR 0024 section 7, ADR 0041).

First the item as a read finds it (``api/scope.item_in_reach``: 403 ``store_forbidden`` outside the
caller's stores, an item without a store being the chain's), then who may change it (the change rule's
403s), then a move to another store exactly as a save for that store is checked (``store_for_save``),
then the fields. 400 a broken rule, 404 no such item, 410 erased, 412 ``If-Match`` names another
revision (the answer's ``ETag`` is the current one). A refusal never carries the item's text.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from pydantic import ConfigDict, Field
from starlette.responses import JSONResponse, Response

from feedback_intelligence.api import models as m
from feedback_intelligence.api import validation as v
from feedback_intelligence.api.changes import actor_of, change_verdict
from feedback_intelligence.api.deps import RuntimeDep
from feedback_intelligence.api.errors import InputError, NotFound
from feedback_intelligence.api.if_match import expected_revision, if_match_header
from feedback_intelligence.api.models import ApiModel
from feedback_intelligence.api.problems import Problem
from feedback_intelligence.api.responses import errors
from feedback_intelligence.api.runtime import Runtime
from feedback_intelligence.api.scope import DeskReach, StoreScope, item_in_reach, store_for_save
from feedback_intelligence.records import StoredFeedback
from feedback_intelligence.services import change_rule as rule
from feedback_intelligence.services import corrections as c
from feedback_intelligence.services.channels import CORPUS, LIVE
from feedback_intelligence.store.errors import StaleRevision

router = APIRouter()

_RESPONSES = {
    **errors(
        400,
        404,
        429,
        503,
        s400="A rule was broken (each message names it; `codes` for translation); a `store` this deployment "
        "does not know is `store_unknown`. Nothing was changed.",
    ),
    403: {
        "description": "Not this caller's to change: `store_forbidden` (an entry of a store their roles do not "
        "reach, or one without a store, which is the chain's; or `store` moves it to such a store), "
        "`correction_not_yours` (a colleague's entry), `correction_window_passed` (their own, after "
        "FI_CORRECTION_WINDOW_S), `correction_forbidden` (no role for the entry's store). Never the entry's text."
    },
    410: {"description": "`erased`: the item was erased."},
    412: {"description": "`revision_mismatch`: `If-Match` names another revision; `ETag` is the current one."},
}
_IF_MATCH = if_match_header('The revision read before (`"3"`, from the ETag); optional.')


CHANGEABLE = ("text", "store", "category", "theme", "severity", "type", "sentiment")


class ItemChangeIn(ApiModel):
    """The fields to change; any left out stay as they are."""

    # At least one field with a value (a null is "leave it"), in the schema too: anyOf over the fields.
    model_config = ConfigDict(
        json_schema_extra={
            "anyOf": [{"required": [name], "properties": {name: {"not": {"type": "null"}}}} for name in CHANGEABLE]
        }
    )

    # The same wire types as a save's fields: a corrected text is normalised and refused (NUL, a lone
    # surrogate) exactly as a saved one.
    text: m.Text | None = Field(None, description="The customer's words, corrected (e.g. a name taken out).")
    store: str | None = Field(
        None,
        max_length=32,
        description="Move the item to this store: checked as a save for it is (a store of this deployment, "
        "and one of the caller's).",
    )
    category: m.Key | None = Field(None, description="The domain's category key.")
    theme: m.Theme | None = Field(None, description="The short theme (bounded and normalised as at saving).")
    severity: m.Key | None = Field(None, description="The domain's severity key.")
    type: m.Key | None = Field(None, description="The domain's type key.")
    sentiment: m.Key | None = Field(None, description="The domain's sentiment key.")


async def _item(channel_name: str, feedback_id: str, rt: Runtime, scope: StoreScope) -> StoredFeedback:
    return await item_in_reach(rt.channels[channel_name].store, feedback_id, scope, rt.settings.domain.id_max_length)


_REFUSALS = {
    rule.NOT_YOURS: "This entry was saved by someone else: only its author, or a manager of its store, changes it.",
    rule.WINDOW_PASSED: "The time to change your own entry has passed (FI_CORRECTION_WINDOW_S); ask a manager.",
    rule.ROLE_OR_STORE: "This entry is not yours to change (no role for its store).",
}


def _forbidden(code: str | None) -> JSONResponse:
    code = code or rule.ROLE_OR_STORE
    return JSONResponse({"error": code, "message": _REFUSALS[code]}, status_code=403)


async def _correct(
    channel_name: str,
    feedback_id: str,
    body: ItemChangeIn,
    request: Request,
    if_match: str | None,
    rt: Runtime,
    scope: StoreScope,
) -> Response:
    expected = expected_revision(if_match, "a revision")
    item = await _item(channel_name, feedback_id, rt, scope)
    if not (allowed := change_verdict(request, rt, item)).allowed:
        return _forbidden(allowed.code)
    changes = {k: val for k, val in body.model_dump(exclude_none=True).items()}
    if "store" in changes:  # a move is a save for that store: the save's own check (400 or 403)
        store_for_save(scope.stores, changes["store"], rt.settings.chain.stores)
    problems: list[str] = []
    if not changes:
        problems.append(Problem("Name at least one field to correct.", "correction_empty"))
    if "text" in changes:
        problems += v.text_errors(changes["text"], rt.settings.domain.text_store_max_chars)
    structural = [k for k in changes if k in c.STRUCTURE_FIELDS]
    if structural:
        merged = c.merged_structure(item, changes)
        if merged is None:
            problems.append(
                Problem("This item has no structure to correct; restructure it first.", "structure_missing")
            )
        else:
            problems += v.structure_errors(merged, rt.domain)
    if problems:
        raise InputError(problems)
    values, entries = c.correction_values(item, changes, rt.domain, actor_of(request), clock=rt.clock)
    channel = rt.channels[channel_name]
    if values:
        revision = await channel.correct(feedback_id, values, expected_revision=expected, entries=entries)
        if revision is None:
            raise NotFound(feedback_id)
    else:  # nothing really changed: the answer is the item as it is
        current = await channel.store.revision(feedback_id)
        if current is None:
            raise NotFound(feedback_id)
        revision = current[0]
        if expected is not None and expected != revision:
            raise StaleRevision(feedback_id, revision)  # 412, as a refused write is (api/errors.py)
    stored = await channel.store.get(feedback_id)
    if stored is None:
        raise NotFound(feedback_id)
    body_out = m.FeedbackItem.model_validate(stored.to_json()).model_dump(mode="json")
    return JSONResponse({**body_out, "revision": revision}, headers={"ETag": f'"{revision}"'})


async def _erase(
    channel_name: str, feedback_id: str, request: Request, if_match: str | None, rt: Runtime, scope: StoreScope
) -> Response:
    expected = expected_revision(if_match, "a revision")
    item = await _item(channel_name, feedback_id, rt, scope)
    if not (allowed := change_verdict(request, rt, item)).allowed:
        return _forbidden(allowed.code)
    erased = await c.erase(
        rt.channels[channel_name],
        item,
        actor_of(request),
        elsewhere=[channel for name, channel in rt.channels.items() if name != channel_name],
        expected_revision=expected,
        prose=rt.report_prose,
        snapshot_dir=rt.settings.storage.snapshot_dir,
        clock=rt.clock,
    )
    if not erased:
        raise NotFound(feedback_id)
    return Response(status_code=204)


_PATCH_DESCRIPTION = (
    "Correct an item: structure fields, `store` or `text`. Each changed field is an audit row (old and new "
    "value; `text` as a fact only; `alerts` when a text correction changes the alert categories). A clerk "
    "corrects their own entry within FI_CORRECTION_WINDOW_S of saving it, a manager any entry of their "
    "store, an operator any; an entry without a store is the chain's. A move to another store is checked as "
    "a save for it. A correction is a save: an alert it adds opens the case and notifies as a save does; "
    "an alert it removes leaves the case for a person to close."
)
_DELETE_DESCRIPTION = (
    "Erase an item: its rows are deleted (the report's rollups keep no key only it held), a tombstone "
    "with no personal data stays, its audit rows are redacted and `item.erase` appended; report prose and "
    "a snapshot citing it are removed. The id is refused from then on in both channels (410 `erased`; a "
    "batch item `erased`). Who may: as for a correction."
)


@router.patch(
    "/live/feedback/{feedback_id}",
    tags=["desk"],
    operation_id="correctDeskEntry",
    responses=_RESPONSES,
    summary="Correct one desk entry",
    description=_PATCH_DESCRIPTION,
)
async def correct_live(
    rt: RuntimeDep,
    feedback_id: str,
    body: ItemChangeIn,
    request: Request,
    if_match: str | None = _IF_MATCH,
    *,
    scope: DeskReach,
) -> Response:
    return await _correct(LIVE, feedback_id, body, request, if_match, rt, scope)


@router.delete(
    "/live/feedback/{feedback_id}",
    status_code=204,
    tags=["desk"],
    operation_id="eraseDeskEntry",
    responses=_RESPONSES,
    summary="Erase one desk entry",
    description=_DELETE_DESCRIPTION,
)
async def erase_live(
    rt: RuntimeDep,
    feedback_id: str,
    request: Request,
    if_match: str | None = _IF_MATCH,
    *,
    scope: DeskReach,
) -> Response:
    return await _erase(LIVE, feedback_id, request, if_match, rt, scope)


@router.patch(
    "/feedback/{feedback_id}",
    tags=["feedback"],
    operation_id="correctFeedback",
    responses=_RESPONSES,
    summary="Correct one corpus item",
    description=_PATCH_DESCRIPTION + " Operator route.",
)
async def correct_corpus(
    rt: RuntimeDep,
    feedback_id: str,
    body: ItemChangeIn,
    request: Request,
    if_match: str | None = _IF_MATCH,
    *,
    scope: DeskReach,
) -> Response:
    return await _correct(CORPUS, feedback_id, body, request, if_match, rt, scope)


@router.delete(
    "/feedback/{feedback_id}",
    status_code=204,
    tags=["feedback"],
    operation_id="eraseFeedback",
    responses=_RESPONSES,
    summary="Erase one corpus item",
    description=_DELETE_DESCRIPTION + " Operator route.",
)
async def erase_corpus(
    rt: RuntimeDep,
    feedback_id: str,
    request: Request,
    if_match: str | None = _IF_MATCH,
    *,
    scope: DeskReach,
) -> Response:
    return await _erase(CORPUS, feedback_id, request, if_match, rt, scope)
