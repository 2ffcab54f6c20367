"""How failures become HTTP answers: clear 4xx for bad input, honest 503 for a busy GPU, never a 500."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import JSONResponse, Response
from starlette.routing import Match

from feedback_intelligence.api.disconnect import ClientDisconnected
from feedback_intelligence.api.problems import Problem, codes_of
from feedback_intelligence.auth.password_work import PasswordWorkBusy
from feedback_intelligence.auth.people import SigninThrottled
from feedback_intelligence.llm.errors import LlmBusy, LlmFailure
from feedback_intelligence.services.batch_slots import BatchesBusy
from feedback_intelligence.store.errors import (
    AccountNotLocal,
    CaseTransitionInvalid,
    DuplicateId,
    Erased,
    StaleCaseRevision,
    StaleRevision,
    StoreFull,
    StoreRefusal,
    StoreUnavailable,
    UsernameTaken,
)

log = logging.getLogger(__name__)

CLIENT_CLOSED_REQUEST = 499  # nginx's code; nobody reads it, it only shows in logs


class InputError(Exception):
    """Rule violations in a request: answered 400 {"errors": [...], "codes": [...]}, each message naming its
    rule and each code letting a page translate it (:mod:`feedback_intelligence.api.problems`)."""

    def __init__(self, errors: list[str], status_code: int = 400) -> None:
        self.errors = errors
        self.status_code = status_code
        super().__init__("; ".join(errors))


class NotFound(Exception):
    """No item with this id: answered 404 ``{"error": "not found", "id": …}`` (``NotFoundBody``)."""

    def __init__(self, feedback_id: str) -> None:
        self.feedback_id = feedback_id
        super().__init__(f"no item {feedback_id!r}")


class StoreForbidden(Exception):
    """A read of a store outside the caller's grants (api/scope.py): 403 ``store_forbidden``; ``store``
    None for a read that answers for the whole chain at once."""

    def __init__(self, store: str | None) -> None:
        super().__init__(store)
        self.store = store


def error_response(status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(body, status_code=status, headers=headers)


def shed_response(reason: str, retry_after_s: int, message: str) -> JSONResponse:
    """503 ``busy``: work shed after a bounded wait (the GPU's slots, password checks, batches), never queued."""
    return error_response(
        503,
        {"error": "busy", "reason": reason, "retryAfterSeconds": retry_after_s, "message": message},
        {"Retry-After": str(retry_after_s)},
    )


def busy_response(exc: LlmBusy) -> JSONResponse:
    return shed_response(exc.reason, exc.retry_after_s, "The language model is busy right now; try again shortly.")


def llm_failure_response(exc: LlmFailure, retry_after_s: int = 5) -> JSONResponse:
    log.warning("LLM failure answered 503: %s", exc)  # the detail (addresses included) for the operator
    return error_response(
        503,
        {
            "error": "llm_unavailable",
            "detail": exc.public,
            "retryAfterSeconds": retry_after_s,
            "message": "The language model could not answer; try again later.",
        },
        {"Retry-After": str(retry_after_s)},
    )


STORE_RETRY_AFTER_S = 5
STORE_FULL_RETRY_AFTER_S = 60


def store_unavailable_response(exc: StoreUnavailable) -> JSONResponse:
    """503 for the store's unavailability family: ``store_full`` (an operator must free space, so a long
    Retry-After) or ``store_unavailable`` (try again shortly); nothing was saved either way."""
    if isinstance(exc, StoreFull):
        return error_response(
            503,
            {
                "error": "store_full",
                "store": exc.store,
                "detail": f"the {exc.store} database has no room left (disk full)",
                "retryAfterSeconds": STORE_FULL_RETRY_AFTER_S,
                "message": "The feedback database is out of disk space; nothing was saved. "
                "An operator must free space before saves work again.",
            },
            {"Retry-After": str(STORE_FULL_RETRY_AFTER_S)},
        )
    return error_response(
        503,
        {
            "error": "store_unavailable",
            "store": exc.store,
            "detail": f"the {exc.store} database cannot be reached",
            "retryAfterSeconds": STORE_RETRY_AFTER_S,
            "message": "The feedback database cannot be reached right now; nothing was saved, try again shortly.",
        },
        {"Retry-After": str(STORE_RETRY_AFTER_S)},
    )


def problems_response(status: int, problems: list[Problem]) -> JSONResponse:
    """The documented ``{"errors": [...], "codes": [...]}`` shape with another status than 400."""
    return error_response(status, {"errors": problems, "codes": codes_of(list(problems))})


def _stale_revision(exc: StaleRevision) -> JSONResponse:
    return error_response(
        412,
        {"error": "revision_mismatch", "id": exc.feedback_id, "revision": exc.current},
        {"ETag": f'"{exc.current}"'},
    )


def _account_not_local(exc: AccountNotLocal) -> JSONResponse:
    message = f"'{exc.username}' signs in through {exc.auth_source} (FI_AUTH): its password is not kept here."
    return error_response(409, {"error": "account_not_local", "message": message})


#: The store's refusals and their answers: each one the caller's to resolve, never a fault. A refusal
#: missing here is one no route lets through (``CaseNotFound``: the case service answers it by the ref);
#: should one arrive, it is answered as the bug it is (tests/api/test_store_errors.py pins the table).
REFUSALS: dict[type[StoreRefusal], Callable[[Any], JSONResponse]] = {
    DuplicateId: lambda exc: error_response(409, {"error": "duplicate id", "id": exc.feedback_id}),  # a retried save
    Erased: lambda exc: error_response(410, {"error": "erased", "id": exc.feedback_id}),  # a tombstone (ADR 0024)
    StaleRevision: _stale_revision,
    StaleCaseRevision: lambda exc: problems_response(412, [Problem(str(exc), "revision_stale", revision=exc.current)]),
    CaseTransitionInvalid: lambda exc: problems_response(
        409, [Problem(str(exc), "case_transition_invalid", state=exc.state, action=exc.action)]
    ),
    UsernameTaken: lambda exc: error_response(409, {"error": "username_taken", "username": exc.username}),
    AccountNotLocal: _account_not_local,
}


def _describe(error: dict[str, Any]) -> Problem:
    location = [str(p) for p in error.get("loc", ()) if p not in ("body", "query", "path")]
    where = ".".join(location)
    if error.get("type") == "json_invalid":
        return Problem(
            f"body is not valid JSON: {error.get('ctx', {}).get('error', error.get('msg'))}", "body_not_json"
        )
    if not where and error.get("type") in ("model_attributes_type", "dict_type", "missing"):
        return Problem("body must be a JSON object (content-type: application/json)", "body_not_object")
    message = error.get("msg", "invalid value")
    if error.get("type") == "missing":
        return Problem(f"{where}: {message}", "field_missing", field=where)
    if error.get("type") == "value_error":  # our own rules (text normalisation, bounds): the rule itself
        message = message.removeprefix("Value error, ")
        code = getattr(error.get("ctx", {}).get("error"), "code", "field_invalid")
        return Problem(f"{where}: {message}" if where else f"body: {message}", code, field=where or "body")
    return Problem(f"{where}: {message}" if where else f"body: {message}", "field_invalid", field=where or "body")


def describe_errors(errors: Sequence[Any]) -> list[Problem]:
    """pydantic's errors as the rules they broke (one batch item's, or a whole request's)."""
    return [_describe(e) for e in errors]


def allowed_methods(request: Request) -> list[str]:
    """Every method some route of the app serves on the request's path."""
    methods: set[str] = set()
    for route in request.app.router.routes:
        match, _ = route.matches(request.scope)  # PARTIAL: the path is this route's, the method is not
        if match is not Match.NONE:
            methods |= set(getattr(route, "methods", None) or ())
    return sorted(methods)


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> Response:
        problems = describe_errors(exc.errors())
        return error_response(400, {"errors": problems, "codes": codes_of(list(problems))})

    @app.exception_handler(InputError)
    async def _input(_: Request, exc: InputError) -> Response:
        return error_response(exc.status_code, {"errors": exc.errors, "codes": codes_of(exc.errors)})

    @app.exception_handler(NotFound)
    async def _not_found(_: Request, exc: NotFound) -> Response:
        return error_response(404, {"error": "not found", "id": exc.feedback_id})

    @app.exception_handler(StoreForbidden)
    async def _store_forbidden(_: Request, exc: StoreForbidden) -> Response:  # api/scope.py
        return error_response(
            403,
            {
                "error": "store_forbidden",
                "store": exc.store,
                "message": "Your roles do not reach this store's feedback."
                if exc.store
                else "This answers for the whole chain; your roles reach only your stores.",
            },
        )

    @app.exception_handler(StoreRefusal)
    async def _refused(request: Request, exc: StoreRefusal) -> Response:
        answer = REFUSALS.get(type(exc))
        if answer is None:
            log.error("%s %s: a store refusal with no answer: %r", request.method, request.url.path, exc)
            return error_response(500, {"error": "internal error"})
        return answer(exc)

    @app.exception_handler(LlmBusy)
    async def _busy(_: Request, exc: LlmBusy) -> Response:
        return busy_response(exc)

    @app.exception_handler(SigninThrottled)
    async def _signin_throttled(_: Request, exc: SigninThrottled) -> Response:  # auth/people.py, ADR 0042
        return error_response(
            429,
            {
                "error": "signin_throttled",
                "retryAfterSeconds": exc.retry_after_s,
                "message": f"Too many sign-in attempts; try again in {exc.retry_after_s} s.",
            },
            {"Retry-After": str(exc.retry_after_s)},
        )

    @app.exception_handler(PasswordWorkBusy)
    async def _password_busy(_: Request, exc: PasswordWorkBusy) -> Response:  # auth/password_work.py
        return shed_response("password_checks", exc.retry_after_s, "Too many sign-ins at once; try again in a moment.")

    @app.exception_handler(BatchesBusy)
    async def _batches_busy(_: Request, exc: BatchesBusy) -> Response:  # services/batch_slots.py
        return shed_response(
            "batches",
            exc.retry_after_s,
            "Other batches are being stored; send this one again in a moment (nothing of it was stored).",
        )

    @app.exception_handler(LlmFailure)
    async def _failure(_: Request, exc: LlmFailure) -> Response:
        return llm_failure_response(exc)

    @app.exception_handler(StoreUnavailable)
    async def _store(request: Request, exc: StoreUnavailable) -> Response:
        log.warning("%s %s: %s", request.method, request.url.path, exc)
        return store_unavailable_response(exc)

    @app.exception_handler(ClientDisconnected)
    async def _gone(_: Request, __: ClientDisconnected) -> Response:
        return Response(status_code=CLIENT_CLOSED_REQUEST)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        detail = exc.detail if isinstance(exc.detail, str) else "error"
        body: dict[str, Any] = {"error": detail}
        headers = dict(getattr(exc, "headers", None) or {})
        if exc.status_code == 400:  # FastAPI's "error parsing the body": bad input, in the documented 400 shape
            problems = [Problem(detail, "body_not_json")]
            body = {"errors": problems, "codes": codes_of(list(problems))}
        elif exc.status_code == 405:
            # Starlette's Allow names the methods of the first route on the path only; a path served by
            # two routes (GET and POST /feedback) must name both (RFC 9110, 15.5.6).
            headers["Allow"] = ", ".join(allowed_methods(request))
        return error_response(exc.status_code, body, headers or None)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> Response:
        # A bug, not the client's fault: log it loudly, answer without internals.
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return error_response(500, {"error": "internal error"})
