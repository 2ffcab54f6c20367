"""The brief by mail, chosen by the person themself (``/auth/me/mail``) or by an operator for them
(``/admin/users/{username}/mail``, ``feedctl user mail``): an address, a language and ``weekly``,
``daily`` or no brief (ADR 0062). Opt-in: nobody gets it until they or an operator ask."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import JSONResponse, Response

from feedback_intelligence.api.deps import PeopleDep
from feedback_intelligence.api.errors import InputError
from feedback_intelligence.api.models.people import MailChoiceIn, MailChoiceOut
from feedback_intelligence.api.problems import Problem
from feedback_intelligence.api.responses import errors
from feedback_intelligence.api.routes.auth import changed_by
from feedback_intelligence.auth.principal import principal_of
from feedback_intelligence.edge.surface import SIGNIN_REQUIRED_BODY
from feedback_intelligence.store.accounts import By, MailChoice, fold_username

router = APIRouter(tags=["people"])

NONE = MailChoice(None, None, None)
_NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"description": "No account of that name."}}


def _choice(body: MailChoiceIn, current: MailChoice) -> MailChoice:
    """The account's choice after ``body``: a field left out keeps its value, null clears it."""
    given = body.model_fields_set
    email = current.email
    if "email" in given:  # the body's type took only an address or blanks (account_rules.EmailOrBlank)
        email = body.email.strip() if body.email is not None and body.email.strip() else None
    language = body.language if "language" in given else current.language
    brief = body.briefMail if "briefMail" in given else current.brief
    if brief is not None and email is None:
        raise InputError([Problem("the brief by mail needs an e-mail address.", "email_required", field="email")])
    return MailChoice(email=email, language=language, brief=brief)


def _out(username: str, choice: MailChoice) -> Response:
    out = MailChoiceOut.model_validate(
        {"username": username, "email": choice.email, "language": choice.language, "briefMail": choice.brief}
    )
    return JSONResponse(out.model_dump(mode="json"))


@router.get(
    "/auth/me/mail",
    response_model=MailChoiceOut,
    operation_id="getOwnMailChoice",
    summary="The signed-in manager's address, language and brief-by-mail choice",
    description="What the account page shows: `email`, `language` (null: the domain's) and `briefMail` "
    "(`weekly`, `daily`, or null: none, the default). A managers' route.",
    responses={**errors(429), 401: {"description": "`signin_required`: nobody is signed in."}},
)
async def own_mail_choice(request: Request, p: PeopleDep) -> Response:
    principal = principal_of(request.scope)
    if principal is None:
        return JSONResponse(SIGNIN_REQUIRED_BODY, status_code=401)
    choice = await p.store.mail_choice(principal.username)
    return _out(principal.username, choice or NONE)


@router.patch(
    "/auth/me/mail",
    response_model=MailChoiceOut,
    operation_id="setOwnMailChoice",
    summary="Change the signed-in person's address, language and brief-by-mail choice (opt-in)",
    description="Fields left out keep their value; null clears one. `briefMail` `weekly` sends the brief of "
    "the person's stores on Mondays, `daily` every day, null none; it needs `email` (400 `email_required`; a "
    "malformed address is 400 `email_invalid`). Written to the audit log (`account.mail`, without the address).",
    responses={**errors(400, 413, 429), 401: {"description": "`signin_required`: nobody is signed in."}},
)
async def set_own_mail_choice(body: MailChoiceIn, request: Request, p: PeopleDep) -> Response:
    principal = principal_of(request.scope)
    if principal is None:
        return JSONResponse(SIGNIN_REQUIRED_BODY, status_code=401)
    by = By("account", principal.account_id, principal.username)
    current = await p.store.mail_choice(principal.username) or NONE
    choice = await p.store.set_mail_choice(principal.username, _choice(body, current), by=by)
    return _out(principal.username, choice or NONE)


@router.patch(
    "/admin/users/{username}/mail",
    response_model=MailChoiceOut,
    operation_id="setUserMailChoice",
    tags=["operator"],
    summary="Change an account's address, language and brief-by-mail choice (feedctl user mail)",
    description="As `setOwnMailChoice`, for another person. Operator route.",
    responses={**errors(400, 413, 429), **_NOT_FOUND},
)
async def set_user_mail_choice(username: str, body: MailChoiceIn, request: Request, p: PeopleDep) -> Response:
    current = await p.store.mail_choice(username)
    if current is None:
        return JSONResponse({"error": "not found", "id": username}, status_code=404)
    choice = await p.store.set_mail_choice(username, _choice(body, current), by=changed_by(request))
    if choice is None:
        return JSONResponse({"error": "not found", "id": username}, status_code=404)
    return _out(fold_username(username), choice)
