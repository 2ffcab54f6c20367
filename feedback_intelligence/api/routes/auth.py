"""Signing in and out (FI_AUTH ``local`` and ``oidc``), who am I, and the operator's ``user add``.

The session cookie ``fi_session`` is HttpOnly, SameSite=Lax (the provider's redirect back is a
top-level navigation) and Secure when the request came over HTTPS; it holds a random token whose
SHA-256 is the session's key. A new token at every sign-in, the old one revoked (ADR 0030).
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from feedback_intelligence.api.account_rules import password_problems, username_problems
from feedback_intelligence.api.deps import PeopleDep, people
from feedback_intelligence.api.errors import InputError
from feedback_intelligence.api.models import ErrorsBody
from feedback_intelligence.api.models.people import (
    DisabledIn,
    DisabledOut,
    GrantIn,
    GrantsOut,
    MeOut,
    PasswordRuleOut,
    SignedInOut,
    SigninIn,
    UserCreated,
    UserIn,
)
from feedback_intelligence.api.problems import Problem
from feedback_intelligence.api.responses import errors
from feedback_intelligence.api.routes.pages import page_response
from feedback_intelligence.api.validation import store_errors
from feedback_intelligence.auth.next_path import safe_next
from feedback_intelligence.auth.oidc import FLOW_COOKIE, FLOW_MAX_AGE_S, OidcClient, OidcError
from feedback_intelligence.auth.password_policy import MIN_LENGTH, RECOMMENDED_LENGTH
from feedback_intelligence.auth.passwords import MAX_LENGTH
from feedback_intelligence.auth.people import People
from feedback_intelligence.auth.principal import CHAIN, ROLES, Grant, principal_of
from feedback_intelligence.auth.tokens import CSRF_COOKIE, SESSION_COOKIE
from feedback_intelligence.config.stores import STORE_MAX_CHARS
from feedback_intelligence.edge.identity import identity_of
from feedback_intelligence.edge.visitor import cookie_value
from feedback_intelligence.store.accounts import OPERATOR, By, fold_username
from feedback_intelligence.text.normalize import is_blank

log = logging.getLogger(__name__)
router = APIRouter(tags=["people"])


def _me(request: Request, p: People) -> MeOut:
    principal = principal_of(request.scope)
    rule = (
        PasswordRuleOut(minLength=MIN_LENGTH, recommendedLength=RECOMMENDED_LENGTH, maxLength=MAX_LENGTH)
        if p.mode == "local"
        else None
    )
    if principal is None:
        return MeOut(auth=p.mode, signedIn=False, passwordRule=rule)
    return MeOut(
        auth=p.mode,
        signedIn=True,
        username=principal.username,
        displayName=principal.display_name,
        grants=[GrantIn(role=g.role, store=g.store) for g in principal.grants],
        passwordRule=rule,
    )


def _session_cookies(response: Response, request: Request, token: str, p: People) -> None:
    secure = identity_of(request.scope).scheme == "https"
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=p.settings.session_max_age_s,
        path="/",
        secure=secure,
        httponly=True,
        samesite="lax",
    )
    from feedback_intelligence.auth.tokens import token_hash

    response.set_cookie(
        CSRF_COOKIE, p.csrf.for_key(token_hash(token)), path="/", secure=secure, httponly=False, samesite="strict"
    )


def _clear_cookies(response: Response) -> None:
    response.delete_cookie(SESSION_COOKIE, path="/")
    response.delete_cookie(CSRF_COOKIE, path="/")


@router.get("/signin", include_in_schema=False)
async def signin_page() -> Response:
    return page_response("signin.html")


@router.get("/account", include_in_schema=False)
async def account_page() -> Response:
    """The signed-in person's own page (the name in the top bar links it): who they are, their password."""
    return page_response("account.html")


@router.get(
    "/auth/me",
    response_model=MeOut,
    operation_id="getSignedIn",
    summary="Who is signed in (FI_AUTH and the person's role grants)",
    description="What the pages show in their top bar and the sign-in page starts from: `signedIn` false "
    "for an anonymous caller (and always under FI_AUTH=none).",
    responses=errors(429),
)
async def me(request: Request, p: PeopleDep) -> MeOut:
    return _me(request, p)


@router.post(
    "/auth/signin",
    response_model=SignedInOut,
    operation_id="signIn",
    summary="Sign in with a local account (FI_AUTH=local): sets the session cookie",
    description="A new session at every sign-in; the browser's earlier one is revoked. 401 `signin_failed` "
    "for a wrong name or password (the same answer for both); 429 `signin_throttled` after "
    "FI_LOGIN_RATE_LIMIT failures at one name from one address, FI_LOGIN_ADDRESS_RATE_LIMIT attempts from one "
    "address, or FI_LOGIN_NAME_RATE_LIMIT failures at one name from addresses its account never signed in "
    "from; 503 `busy` with `Retry-After` when every password check is taken (FI_PASSWORD_CHECK_SLOTS). "
    "The answer's `next` is where the page goes: the `next` it sent when that is a path of this service.",
    responses={
        **errors(400, 429, 503, s503="`busy` (reason `password_checks`): every password check stayed taken; retry."),
        401: {"description": "Wrong name or password."},
        404: {"model": ErrorsBody, "description": "`signin_unavailable`: FI_AUTH is not `local` here."},
    },
)
async def signin(body: SigninIn, request: Request, p: PeopleDep) -> Response:
    if p.mode != "local":
        # Off in this deployment is "not here" (404), not a broken rule of the request.
        raise InputError(
            [Problem(f"Sign-in with a password is off here (FI_AUTH={p.mode}).", "signin_unavailable")], 404
        )
    # SigninThrottled is 429 signin_throttled, PasswordWorkBusy 503 busy (api/errors.py)
    token = await p.sign_in_local(
        body.username,
        body.password,
        identity_of(request.scope).aggregate,  # what the edge counts a client by: an IPv6 /64, not one address
        cookie_value(request.scope, SESSION_COOKIE),
    )
    if token is None:
        # no name: a password typed into the name field would stay in the log (the audit row has the account)
        log.info("sign-in refused from %s", identity_of(request.scope).client_ip)
        return JSONResponse({"error": "signin_failed", "message": "Wrong user name or password."}, status_code=401)
    principal = await p.from_session_token(token)
    assert principal is not None
    request.scope["state"]["principal"] = principal
    signed_in = SignedInOut(**_me(request, p).model_dump(), next=safe_next(body.next))
    response = JSONResponse(signed_in.model_dump(mode="json"))
    _session_cookies(response, request, token, p)
    return response


@router.post(
    "/auth/signout",
    response_model=MeOut,
    operation_id="signOut",
    summary="Sign out: the session is revoked and its cookies cleared",
    description="Answers the same whether or not a session was there. Under FI_AUTH=proxy the proxy's own "
    "sign-out ends the person's session; this only clears the cookies.",
    responses=errors(429),
)
async def signout(request: Request, p: PeopleDep) -> Response:
    if p.enabled and p.mode != "proxy":
        await p.sign_out(cookie_value(request.scope, SESSION_COOKIE))
    response = JSONResponse(MeOut(auth=p.mode, signedIn=False).model_dump(mode="json"))
    _clear_cookies(response)
    return response


def _oidc(request: Request) -> OidcClient:
    client = getattr(request.app.state, "oidc", None)
    if client is None:
        raise InputError([Problem("Single sign-on is off here (FI_AUTH is not oidc).", "signin_unavailable")], 404)
    return client


def _redirect_uri(request: Request, p: People) -> str:
    if p.settings.oidc_redirect_url:
        return p.settings.oidc_redirect_url
    identity = identity_of(request.scope)
    host = request.headers.get("host", "localhost")
    return f"{identity.scheme}://{host}/auth/oidc/callback"


@router.get("/auth/oidc/login", include_in_schema=False)
async def oidc_login(request: Request, p: PeopleDep, next: str | None = None) -> Response:
    client = _oidc(request)
    try:
        url, flow = await client.begin(_redirect_uri(request, p), safe_next(next))
    except OidcError as exc:
        log.warning("OIDC sign-in could not start: %s", exc)
        return RedirectResponse("/signin?error=provider", status_code=303)
    response = RedirectResponse(url, status_code=303)
    secure = identity_of(request.scope).scheme == "https"
    response.set_cookie(
        FLOW_COOKIE, flow, max_age=FLOW_MAX_AGE_S, path="/auth/oidc/", secure=secure, httponly=True, samesite="lax"
    )
    return response


@router.get("/auth/oidc/callback", include_in_schema=False)
async def oidc_callback(request: Request, p: PeopleDep, code: str | None = None, state: str | None = None) -> Response:
    client = _oidc(request)
    try:
        flow = client.read_flow(request.cookies.get(FLOW_COOKIE))
        if not code or not state:
            raise OidcError(f"the provider answered without a code ({request.query_params.get('error')})")
        identity = await client.finish(flow, code, state)
    except OidcError as exc:
        log.warning("OIDC sign-in refused: %s", exc)
        response = RedirectResponse("/signin?error=sso", status_code=303)
        response.delete_cookie(FLOW_COOKIE, path="/auth/oidc/")
        return response
    settings = p.settings
    grants = p.grants_from_claims(
        identity.claims.get(settings.oidc_roles_claim), identity.claims.get(settings.oidc_stores_claim)
    )
    account_id = await p.store.upsert_external(
        "oidc", identity.subject, identity.username, identity.display_name, identity.email, grants
    )
    if account_id is None:
        return RedirectResponse("/signin?error=disabled", status_code=303)
    token = await p.open_session(account_id, cookie_value(request.scope, SESSION_COOKIE))
    response = RedirectResponse(safe_next(flow.get("next")), status_code=303)
    response.delete_cookie(FLOW_COOKIE, path="/auth/oidc/")
    _session_cookies(response, request, token, p)
    return response


@router.post(
    "/admin/users",
    status_code=201,
    response_model=UserCreated,
    operation_id="addUser",
    tags=["operator"],
    summary="Add a local account with its role grants (feedctl user add)",
    description="The first operator's bootstrap and every local account after it. Operator route.",
    responses={
        **errors(400, 413, 429, 503),
        409: {"description": "`username_taken`: the name, as stored (NFKC, case folded), is taken."},
    },
)
async def add_user(body: UserIn, request: Request, p: PeopleDep) -> Response:
    problems = [*username_problems(body.username), *password_problems(body.password, body.username)]
    grants: list[Grant] = []
    for grant in body.grants:
        checked = _grant(grant, p)
        if isinstance(checked, Grant):
            grants.append(checked)
        else:
            problems.append(checked)
    if problems:
        raise InputError(problems)
    account_id = await p.store.add_local(  # a name taken: 409 username_taken (api/errors.py)
        body.username,
        body.displayName or body.username,
        await p.hash_password(body.password),
        tuple(grants),
        by=changed_by(request),
        email=body.email,
    )
    body_out = UserCreated(id=account_id, username=fold_username(body.username))
    return JSONResponse(body_out.model_dump(), status_code=201)


def _grant(grant: GrantIn, p: People) -> Grant | str:
    """A grant as asked, or the rule it breaks; an operator is always of the chain, a store is one of this
    deployment's (FI_STORES when set, else FI_STORE_PATTERN)."""
    if grant.role not in ROLES:
        return Problem(f"role must be one of {', '.join(ROLES)}, got '{grant.role}'.", "role_invalid", field="grants")
    if is_blank(grant.store):  # the schema says the same (api/openapi.py)
        return Problem("store must be a store id or '*'.", "store_invalid", field="grants")
    if grant.store != CHAIN and (unknown := store_errors(grant.store, p.stores, field="grants")):
        return unknown[0]
    return Grant(grant.role, CHAIN if grant.role == "operator" else grant.store)


def changed_by(request: Request) -> By:
    """The operator making an account change: their account when signed in, else the token or the host."""
    principal = principal_of(request.scope)
    return By("account", principal.account_id, principal.username) if principal is not None else OPERATOR


async def _change_grant(username: str, grant: GrantIn, add: bool, request: Request, p: People) -> Response:
    checked = _grant(grant, p)
    if not isinstance(checked, Grant):
        raise InputError([checked])
    after = await p.store.change_grant(username, checked, add=add, by=changed_by(request))
    if after is None:
        return JSONResponse({"error": "not found", "id": username}, status_code=404)
    body = GrantsOut(username=fold_username(username), grants=[GrantIn(role=g.role, store=g.store) for g in after])
    return JSONResponse(body.model_dump(mode="json"))


_GRANT_RESPONSES = {**errors(400, 413, 429), 404: {"description": "No account of that name."}}


@router.post(
    "/admin/users/{username}/grants",
    response_model=GrantsOut,
    operation_id="grantRole",
    tags=["operator"],
    summary="Grant a role (of a store, or `*` the chain) to an account",
    description="A grant already held changes nothing. Written to the audit log (`account.grant`). Operator route.",
    responses=_GRANT_RESPONSES,
)
async def grant_role(username: str, body: GrantIn, request: Request, p: PeopleDep) -> Response:
    return await _change_grant(username, body, True, request, p)


@router.delete(
    "/admin/users/{username}/grants/{role}/{store}",
    response_model=GrantsOut,
    operation_id="revokeRole",
    tags=["operator"],
    summary="Revoke one role grant of an account",
    description="A grant not held changes nothing. Written to the audit log (`account.revoke`). A grant from "
    "single sign-on claims comes back at the person's next sign-in. Operator route.",
    responses=_GRANT_RESPONSES,
)
async def revoke_role(username: str, role: str, store: str, request: Request, p: PeopleDep) -> Response:
    if len(store) > STORE_MAX_CHARS:  # cut to fit GrantIn, it could become a store id it never named
        raise InputError(store_errors(store, p.stores, field="grants"))
    grant = GrantIn.model_validate({"role": role[:16], "store": store})
    return await _change_grant(username, grant, False, request, p)


@router.put(
    "/admin/users/{username}/disabled",
    response_model=DisabledOut,
    operation_id="setUserDisabled",
    tags=["operator"],
    summary="Disable an account, or enable it again (feedctl user disable | enable)",
    description="A disabled account cannot sign in (locally or by single sign-on) and its live sessions end at "
    "once; its items, cases and audit rows keep its name (accounts are never deleted). The same state again "
    "changes nothing. Written to the audit log (`account.disable`, `account.enable`). Operator route.",
    responses=_GRANT_RESPONSES,
)
async def set_user_disabled(username: str, body: DisabledIn, request: Request, p: PeopleDep) -> Response:
    after = await p.store.set_disabled(username, body.disabled, by=changed_by(request))
    p.accounts_changed()
    if after is None:
        return JSONResponse({"error": "not found", "id": username}, status_code=404)
    disabled, ended = after
    out = DisabledOut(username=fold_username(username), disabled=disabled, sessionsEnded=ended)
    return JSONResponse(out.model_dump())


def me_json(request: Request) -> dict[str, Any]:
    return _me(request, people(request)).model_dump(mode="json")
