"""Cases: an alert item's case list, its actions, owner and notes, and the audit log (ADR 0024
section 5, docs/adr/0029-alerts-outbox-cases.md).

A case is named by its item's ref (``live:desk-3f…``). Every change carries the revision it was
read at in ``If-Match`` (``"3"``; without it the change applies to whatever is current) and answers
412 ``revision_stale`` when the case moved meanwhile, 409 ``case_transition_invalid`` for a move the
state does not allow. Answers carry the case's ``ETag``. Until accounts exist, the actor and the owner
are a name the manager typed (``actorName``, ``name``), recorded as ``typed``; with accounts (``FI_AUTH``
other than ``none``) the actor is the signed-in person, and a manager who types their own name takes the
case as themselves, or chooses one of the managers granted the case's store (``/cases/{ref}/owners``).
Closing as handled needs a root cause of the domain's list and what was done (ADR 0058). Managers'
routes in the route table (edge/surface.py).
"""

from __future__ import annotations

import re
from typing import Any, Literal

from fastapi import APIRouter, Depends, Query, Request
from pydantic import ConfigDict, Field
from starlette.responses import JSONResponse

from feedback_intelligence.api import models as m
from feedback_intelligence.api.deps import PeopleDep, RuntimeDep
from feedback_intelligence.api.errors import InputError
from feedback_intelligence.api.if_match import expected_revision, if_match_header
from feedback_intelligence.api.models.cases import AuditEntryOut, AuditOut, CaseListOut, CaseOwnersOut, OwnerOut, Person
from feedback_intelligence.api.problems import Problem
from feedback_intelligence.api.responses import errors
from feedback_intelligence.api.runtime import Runtime
from feedback_intelligence.api.scope import (
    ManagerReach,
    ManagerScope,
    reached,
)
from feedback_intelligence.auth.people import People
from feedback_intelligence.auth.principal import principal_of
from feedback_intelligence.services.cases import Actor, CaseView, ClosureRefused, UnknownRef, closure_for
from feedback_intelligence.store.accounts import Person as Account
from feedback_intelligence.store.audit import AuditEntry
from feedback_intelligence.text.normalize import is_blank

router = APIRouter(tags=["cases"])
REF = re.compile(r"(corpus|live):[A-Za-z0-9._-]{1,100}")
_IF_MATCH = if_match_header('The case\'s revision read before (`"3"`, from its ETag); optional.')
_FORBIDDEN: dict[int | str, dict[str, Any]] = {
    403: {
        "description": "`store_forbidden`: a case (or a store) the caller's roles do not reach; a case whose item "
        "has no store is the chain's. Never the item's text."
    }
}
_CHANGE = {
    **errors(400, 404, 413, 429),
    **_FORBIDDEN,
    409: {"model": m.ErrorsBody, "description": "`case_transition_invalid`: the case's state does not allow it."},
    412: {"model": m.ErrorsBody, "description": "`revision_stale`: the case changed since the If-Match revision."},
}


def _needs(action: str, *fields: str) -> dict[str, Any]:
    return {
        "if": {"properties": {"action": {"const": action}}, "required": ["action"]},
        "then": {"properties": {f: {"type": "string"} for f in fields}, "required": list(fields)},  # + not blank
    }


class CaseAction(m._Wire):
    # "dismiss" needs a reason and "handle" its root cause and what was done, in the schema too (JSON
    # Schema's if/then); the route words the refusal (services/cases.closure_for).
    model_config = ConfigDict(
        extra="ignore",
        json_schema_extra={"allOf": [_needs("dismiss", "reason"), _needs("handle", "rootCause", "resolution")]},
    )
    action: Literal["acknowledge", "handle", "dismiss", "reopen"] = Field(description="The move.")
    reason: str | None = Field(None, max_length=1000, description="Required to dismiss.")
    rootCause: str | None = Field(
        None, max_length=40, description="Required to handle: a key of `/schema`'s `caseRootCauses`."
    )
    rootCauseText: str | None = Field(
        None, max_length=1000, description="The root cause in words; required when `rootCause` is `other`."
    )
    resolution: str | None = Field(None, max_length=2000, description="Required to handle: what was done.")
    actorName: str | None = Field(None, max_length=100, description="Who acts, as the manager typed it.")


class CaseOwner(m._Wire):
    name: str = Field(
        "", max_length=100, description="The owner, as the manager typed it; empty (and no `accountId`) clears it."
    )
    accountId: str | None = Field(
        None,
        max_length=64,
        description="The owner as an account, one of `GET /cases/{ref}/owners` (with accounts); wins over `name`.",
    )
    actorName: str | None = Field(None, max_length=100, description="Who assigns, as typed.")


class CaseNote(m._Wire):
    text: str = Field(min_length=1, max_length=100_000, description="The note (at most FI_INPUT_MAX_CHARS).")
    actorName: str | None = Field(None, max_length=100, description="Who writes it, as typed.")


def _actor(request: Request, typed: str | None) -> Actor:
    """The signed-in person when there is one (ADR 0030); under FI_AUTH=none the name as typed."""
    person = principal_of(request.scope)
    if person is not None:
        return Actor.account(person.account_id, person.display_name, person.username)
    return Actor.typed_or_operator(typed)


def _ref(ref: str) -> str:
    if not REF.fullmatch(ref):
        raise UnknownRef(ref)
    return ref


def _answer(view: CaseView, rt: Runtime, status: int = 200) -> JSONResponse:
    return JSONResponse(rt.cases.as_json(view), status_code=status, headers={"ETag": f'"{view.case.revision}"'})


def _not_found(ref: str) -> JSONResponse:
    return JSONResponse({"error": "not found", "id": ref}, status_code=404)


@router.get(
    "/cases",
    operation_id="listCases",
    summary="The case list: open first, the most serious alert first, then oldest first",
    description="Both channels' cases with their item's excerpt, severity, store and alert categories. "
    "`state` may repeat. A managers' route.",
    responses={**errors(400, 429), **_FORBIDDEN},
)
async def list_cases(
    rt: RuntimeDep,
    state: list[Literal["open", "acknowledged", "handled", "dismissed"]] = Query(default=[]),
    limit: int = Query(200, ge=1, le=1000),
    *,
    scope: ManagerScope,
) -> CaseListOut:
    views = await rt.cases.listed(tuple(state), limit, scope.store)
    cases = [rt.cases.as_json(v) for v in views]
    return CaseListOut.model_validate({"cases": cases, "counts": await rt.cases.counts(scope.store)})


async def _in_reach(ref: str, rt: RuntimeDep, scope: ManagerReach) -> None:
    """A case is its item's: one the manager may not touch (another store's, or without a store for a
    manager of some stores) is 403 ``store_forbidden`` before it is read or changed, by the rule every
    route of one item uses (``api/scope.reached``)."""
    if not REF.fullmatch(ref):
        return  # a malformed ref is the route's own 404
    channel, _, feedback_id = ref.partition(":")
    await reached(rt.channels[channel].store, feedback_id, scope)


_IN_REACH = [Depends(_in_reach)]


@router.get(
    "/cases/{ref}",
    operation_id="getCase",
    summary="One case with its notes and audit log",
    description="The case (its `ETag` is its revision), its item's excerpt, severity, store and alert "
    "categories, its notes, every audit row about the item and the texts of the further reports that joined it "
    "(`reportItems`). A managers' route.",
    responses={**errors(404, 429), **_FORBIDDEN},
    dependencies=_IN_REACH,
)
async def get_case(ref: str, rt: RuntimeDep) -> JSONResponse:
    try:
        view, notes, log = await rt.cases.detail(_ref(ref))
    except UnknownRef:
        return _not_found(ref)
    body = rt.cases.as_json(view)
    body["notes"] = [
        {"id": n.id, "at": n.at, "author": {"kind": n.author_kind, "name": n.author_name}, "text": n.text}
        for n in notes
    ]
    body["audit"] = [_audit_entry(view.channel, e).model_dump() for e in log]
    body["reportItems"] = [
        {"ref": r, "text": item.text, "timestamp": item.timestamp} for r, item in await rt.cases.report_items(view)
    ]
    return JSONResponse(body, headers={"ETag": f'"{view.case.revision}"'})


@router.post(
    "/cases/{ref}/actions",
    operation_id="actOnCase",
    summary="Acknowledge, handle, dismiss (with a reason) or reopen a case",
    description="`open` → `acknowledged` | `dismissed`, `acknowledged` → `handled` | `dismissed`, `handled` | "
    "`dismissed` → `open`; any other move is 409 `case_transition_invalid`. With `If-Match` (the revision) a "
    "case changed meanwhile is 412 `revision_stale`. Written to the audit log. A managers' route.",
    responses=_CHANGE,
    dependencies=_IN_REACH,
)
async def act_on_case(
    ref: str,
    body: CaseAction,
    request: Request,
    rt: RuntimeDep,
    if_match: str | None = _IF_MATCH,
) -> JSONResponse:
    expected = expected_revision(if_match, "the case's revision")
    reason = None if is_blank(body.reason) else (body.reason or "").strip()
    if body.action == "dismiss" and reason is None:
        raise InputError([Problem("A case is dismissed with a reason.", "reason_required", field="reason")])
    closure = None
    if body.action == "handle":
        try:
            closure = closure_for(rt.domain, body.rootCause, body.rootCauseText, body.resolution)
        except ClosureRefused as refused:
            raise InputError([Problem(str(refused), refused.code, field=refused.field)]) from None
    try:
        view = await rt.cases.act(
            _ref(ref),
            body.action,
            _actor(request, body.actorName),
            expected_revision=expected,
            reason=reason,
            closure=closure,
        )
    except UnknownRef:
        return _not_found(ref)
    return _answer(view, rt)


async def _owners(ref: str, rt: Runtime, people: People) -> list[Account]:
    """Who may own the case: enabled accounts with a manager's (or operator's) grant reaching its item's
    store; none without accounts (FI_AUTH=none: the owner is a typed name)."""
    if not people.enabled:
        return []
    channel, _, feedback_id = ref.partition(":")
    item = await rt.channels[channel].store.get(feedback_id)
    return await people.store.granted(("manager", "operator"), item.store if item is not None else None)


@router.get(
    "/cases/{ref}/owners",
    operation_id="listCaseOwners",
    summary="The people who may own a case: the managers granted its store",
    description="Enabled accounts with a `manager` (or `operator`) grant of the case's store or of the chain, by "
    "name; an item without a store is the chain's. Empty without accounts (FI_AUTH=none), where the owner is a "
    "typed name. A managers' route.",
    responses={200: {"model": CaseOwnersOut}, **errors(404, 429), **_FORBIDDEN},
    dependencies=_IN_REACH,
)
async def list_case_owners(ref: str, rt: RuntimeDep, p: PeopleDep) -> JSONResponse:
    try:
        await rt.cases.detail(_ref(ref))  # no such case is 404, as on every case route
    except UnknownRef:
        return _not_found(ref)
    people = [OwnerOut(id=a.account_id, name=a.display_name, username=a.username) for a in await _owners(ref, rt, p)]
    return JSONResponse(CaseOwnersOut(people=people).model_dump(mode="json"))


@router.put(
    "/cases/{ref}/owner",
    operation_id="assignCase",
    summary="Set the case's owner: an account granted its store, or a typed name",
    description="`accountId`: one of `GET /cases/{ref}/owners`, else 400 `owner_not_granted`. Otherwise the name as "
    "the manager typed it, recorded as `typed` (a signed-in person typing their own name takes the case as "
    "themselves); an empty name clears the owner. `If-Match` as for actions. Written to the audit log. A "
    "managers' route.",
    responses=_CHANGE,
    dependencies=_IN_REACH,
)
async def assign_case(
    ref: str,
    body: CaseOwner,
    request: Request,
    rt: RuntimeDep,
    p: PeopleDep,
    if_match: str | None = _IF_MATCH,
) -> JSONResponse:
    expected = expected_revision(if_match, "the case's revision")
    actor = _actor(request, body.actorName)
    try:
        if body.accountId is None:
            view = await rt.cases.assign(_ref(ref), body.name, actor, expected_revision=expected)
        else:
            granted = {a.account_id: a for a in await _owners(_ref(ref), rt, p)}
            chosen = granted.get(body.accountId)
            if chosen is None:
                refusal = "The owner is a manager granted the case's store."
                raise InputError([Problem(refusal, "owner_not_granted", field="accountId")])
            owner = Actor("account", chosen.account_id, chosen.display_name)
            view = await rt.cases.set_owner(_ref(ref), owner, actor, expected_revision=expected)
    except UnknownRef:
        return _not_found(ref)
    return _answer(view, rt)


@router.post(
    "/cases/{ref}/notes",
    operation_id="addCaseNote",
    summary="Add a note to a case",
    description="At most FI_INPUT_MAX_CHARS characters; answers the note's id. Written to the audit log "
    "(the note's id, not its text). A managers' route.",
    status_code=201,
    responses={**errors(400, 404, 413, 429), **_FORBIDDEN},
    dependencies=_IN_REACH,
)
async def add_case_note(ref: str, body: CaseNote, request: Request, rt: RuntimeDep) -> JSONResponse:
    text = body.text.strip()
    limit = rt.settings.domain.input_max_chars
    if not text:
        raise InputError([Problem("A note needs words, not only spaces.", "text_empty", field="text")])
    if len(text) > limit:
        raise InputError([Problem(f"A note is 1 to {limit} characters.", "text_too_long", field="text", limit=limit)])
    try:
        note_id = await rt.cases.note(_ref(ref), text, _actor(request, body.actorName))
    except UnknownRef:
        return _not_found(ref)
    return JSONResponse({"id": note_id}, status_code=201)


@router.get(
    "/audit",
    operation_id="getAuditLog",
    summary="The newest audit rows of both channel databases, merged by time",
    description="`before` pages on to rows strictly older than that instant. A managers' route; the log is "
    "the chain's (accounts, sessions, every store), so a manager of one store is refused (403 `store_forbidden`).",
    responses={**errors(400, 429), **_FORBIDDEN},
)
async def audit_log(
    rt: RuntimeDep,
    limit: int = Query(100, ge=1, le=1000),
    before: str | None = Query(None, max_length=40),
    *,
    scope: ManagerReach,
) -> AuditOut:
    scope.require_chain()
    rows = await rt.cases.recent_audit(limit, before)
    return AuditOut(entries=[_audit_entry(channel, e) for channel, e in rows])


def _audit_entry(channel: str, entry: AuditEntry) -> AuditEntryOut:
    return AuditEntryOut(
        at=entry.at,
        changeId=entry.change_id,
        actor=Person(kind=entry.actor_kind, id=entry.actor_id, name=entry.actor_name),
        action=entry.action,
        ref=f"{channel}:{entry.feedback_id}" if entry.feedback_id else None,
        field=entry.field,
        oldValue=entry.old_value,
        newValue=entry.new_value,
        reason=entry.reason,
        redacted=entry.redacted,
    )
