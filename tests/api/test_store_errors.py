"""The store's errors answered once (api/errors.py): each refusal by its row of ``REFUSALS``, the
unavailability family by one handler, and a refusal without a row as the bug it is."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from feedback_intelligence.api.errors import REFUSALS, install_error_handlers
from feedback_intelligence.store import errors
from feedback_intelligence.store.errors import StoreError, StoreRefusal

#: Refusals no route lets through: the case service answers a missing case by its ref (404).
ANSWERED_ELSEWHERE = {errors.CaseNotFound}


def _app(exc: Exception) -> FastAPI:
    app = FastAPI()
    install_error_handlers(app)

    @app.get("/raise")
    async def raising() -> None:
        raise exc

    return app


async def _answer(exc: Exception) -> httpx.Response:
    transport = httpx.ASGITransport(app=_app(exc), raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        return await client.get("/raise")


def test_every_refusal_has_its_answer_or_is_answered_elsewhere() -> None:
    refusals = {
        value
        for value in vars(errors).values()
        if isinstance(value, type) and issubclass(value, StoreRefusal) and value is not StoreRefusal
    }
    assert set(REFUSALS) == refusals - ANSWERED_ELSEWHERE


@pytest.mark.parametrize(
    ("exc", "status", "body", "headers"),
    [
        (errors.DuplicateId("a-1"), 409, {"error": "duplicate id", "id": "a-1"}, {}),
        (errors.Erased("a-1"), 410, {"error": "erased", "id": "a-1"}, {}),
        (
            errors.StaleRevision("a-1", 3),
            412,
            {"error": "revision_mismatch", "id": "a-1", "revision": 3},
            {"etag": '"3"'},
        ),
        (
            errors.StaleCaseRevision(4),
            412,
            {
                "errors": ["the case changed meanwhile (revision 4)"],
                "codes": [{"code": "revision_stale", "revision": 4}],
            },
            {},
        ),
        (
            errors.CaseTransitionInvalid("handled", "acknowledge"),
            409,
            {
                "errors": ["a case that is handled cannot be acknowledged"],
                "codes": [{"code": "case_transition_invalid", "state": "handled", "action": "acknowledge"}],
            },
            {},
        ),
        (errors.UsernameTaken("kaisa"), 409, {"error": "username_taken", "username": "kaisa"}, {}),
        (
            errors.AccountNotLocal("kaisa", "oidc"),
            409,
            {
                "error": "account_not_local",
                "message": "'kaisa' signs in through oidc (FI_AUTH): its password is not kept here.",
            },
            {},
        ),
    ],
    ids=lambda value: type(value).__name__ if isinstance(value, StoreError) else None,
)
async def test_a_refusal_is_answered_by_its_row(
    exc: StoreError, status: int, body: dict[str, object], headers: dict[str, str]
) -> None:
    answer = await _answer(exc)
    assert answer.status_code == status and answer.json() == body
    assert {name: answer.headers[name] for name in headers} == headers


async def test_the_unavailability_family_is_503_with_its_own_code_and_retry_after() -> None:
    down = await _answer(errors.StoreUnavailable("live", "connection refused"))
    full = await _answer(errors.StoreFull("live", "database or disk is full"))
    assert (down.status_code, down.json()["error"], down.headers["retry-after"]) == (503, "store_unavailable", "5")
    assert (full.status_code, full.json()["error"], full.headers["retry-after"]) == (503, "store_full", "60")
    assert "refused" not in down.text  # the driver's words are the operator's (logged), never the client's


async def test_a_refusal_without_an_answer_is_a_500_and_says_nothing_of_it() -> None:
    answer = await _answer(errors.CaseNotFound("a-1"))
    assert answer.status_code == 500 and answer.json() == {"error": "internal error"}
