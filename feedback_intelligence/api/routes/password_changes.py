"""Passwords over their life (ADR 0040): a signed-in person changes their own, an operator resets one.

- ``POST /auth/password`` (FI_AUTH=local): the current password and a new one. Every other session of
  the person ends (a thief's among them); the one that made the change stays. A wrong current password
  counts against the name's sign-in window, as a failed sign-in does.
- ``PUT /admin/users/{username}/password`` (operator; ``feedctl user password NAME``): a leaked or
  forgotten password replaced; every session of the account ends.

Both are written to the audit log (``account.password_change``, ``account.password_reset``), never the
password or its hash. Argon2 runs in the password slots a sign-in uses (auth/password_work.py): when every
slot stays taken the answer is 503 ``busy`` with ``Retry-After``, as a sign-in's.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import JSONResponse, Response

from feedback_intelligence.api.account_rules import password_problems
from feedback_intelligence.api.deps import PeopleDep
from feedback_intelligence.api.errors import InputError
from feedback_intelligence.api.models import ErrorsBody
from feedback_intelligence.api.models.people import PasswordChanged, PasswordChangeIn, PasswordResetIn
from feedback_intelligence.api.problems import Problem
from feedback_intelligence.api.responses import errors
from feedback_intelligence.api.routes.auth import changed_by
from feedback_intelligence.auth.principal import principal_of
from feedback_intelligence.edge.identity import identity_of
from feedback_intelligence.edge.surface import SIGNIN_REQUIRED_BODY
from feedback_intelligence.store.accounts import fold_username

router = APIRouter()
_BUSY = "`busy` (reason `password_checks`): every password check stayed taken; retry."


@router.post(
    "/auth/password",
    response_model=PasswordChanged,
    operation_id="changeOwnPassword",
    tags=["people"],
    summary="Change the signed-in person's own password (FI_AUTH=local)",
    description="The current password and a new one that keeps the password rule (400 with a code per rule: "
    "`password_too_short`, `password_too_long`, `password_blank`, `password_repeated`, `password_is_username`, "
    "`password_common`). Every other session of the person ends; this one stays. 403 `current_password_wrong`; "
    "a wrong one counts as a failed sign-in from this address (FI_LOGIN_RATE_LIMIT, FI_LOGIN_NAME_RATE_LIMIT), and "
    "a full window is 429 `signin_throttled`; 503 `busy` when every password check is taken. Written to the "
    "audit log (`account.password_change`).",
    responses={
        **errors(400, 413, 429, 503, s503=_BUSY),
        401: {"description": "`signin_required`: nobody is signed in."},
        403: {"description": "`current_password_wrong`: the current password does not match."},
        404: {"model": ErrorsBody, "description": "`password_change_unavailable`: FI_AUTH is not `local` here."},
    },
)
async def change_own_password(body: PasswordChangeIn, request: Request, p: PeopleDep) -> Response:
    if p.mode != "local":
        message = f"Passwords are not kept here (FI_AUTH={p.mode}): change it where you sign in."
        raise InputError([Problem(message, "password_change_unavailable")], 404)
    principal = principal_of(request.scope)
    if principal is None:
        return JSONResponse(SIGNIN_REQUIRED_BODY, status_code=401)
    problems = password_problems(body.newPassword, principal.username, field="newPassword")
    if problems:
        raise InputError(problems)
    # a full window raises SigninThrottled: 429 signin_throttled (api/errors.py)
    account = await p.check_own_password(principal.username, body.currentPassword, identity_of(request.scope).aggregate)
    if account is None or account.id != principal.account_id:
        return JSONResponse(
            {"error": "current_password_wrong", "message": "The current password is wrong."}, status_code=403
        )
    password_hash = await p.hash_password(body.newPassword)
    ended = await p.store.change_password(account.id, password_hash, keeps=principal.session_key)
    return JSONResponse(PasswordChanged(username=principal.username, sessionsEnded=ended).model_dump())


@router.put(
    "/admin/users/{username}/password",
    response_model=PasswordChanged,
    operation_id="resetUserPassword",
    tags=["operator"],
    summary="Set a local account's password (feedctl user password): every session of the account ends",
    description="For a password that leaked or was forgotten: the new one keeps the password rule (400 with a "
    "code per rule, as `changeOwnPassword`). Every live session of the account ends at once. An account of "
    "single sign-on or a proxy has no password here (409 `account_not_local`). Written to the audit log "
    "(`account.password_reset`). 503 `busy` when every password check is taken. Operator route.",
    responses={
        **errors(400, 413, 429, 503, s503=_BUSY),
        404: {"description": "No account of that name."},
        409: {"description": "`account_not_local`: the account signs in through single sign-on or a proxy."},
    },
)
async def reset_password(username: str, body: PasswordResetIn, request: Request, p: PeopleDep) -> Response:
    name = fold_username(username)
    problems = password_problems(body.password, name)
    if problems:
        raise InputError(problems)
    password_hash = await p.hash_password(body.password)
    # an account of single sign-on or a proxy: 409 account_not_local (api/errors.py)
    ended = await p.store.reset_password(name, password_hash, by=changed_by(request))
    if ended is None:
        return JSONResponse({"error": "not found", "id": name}, status_code=404)
    return JSONResponse(PasswordChanged(username=name, sessionsEnded=ended).model_dump())
