"""POST /interpret: the desk's preview of a structure. Sheds with 503 when the GPU is busy."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict

from feedback_intelligence.api.deps import runtime
from feedback_intelligence.api.disconnect import cancel_on_disconnect
from feedback_intelligence.api.errors import InputError
from feedback_intelligence.api.runtime import Runtime
from feedback_intelligence.api.validation import text_errors

router = APIRouter(tags=["desk"])


class InterpretRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")
    text: str


class InterpretResponse(BaseModel):
    structure: dict[str, Any] | None
    failed: bool
    salvaged: bool
    notes: list[str]
    alertCategories: list[str]


class ErrorsBody(BaseModel):
    errors: list[str]


class BusyBody(BaseModel):
    error: str
    retryAfterSeconds: int
    reason: str | None = None
    detail: str | None = None
    message: str | None = None


@router.post(
    "/interpret",
    response_model=InterpretResponse,
    responses={
        400: {"model": ErrorsBody, "description": "a rule of the text was broken"},
        413: {"model": ErrorsBody, "description": "body over the size cap"},
        503: {"model": BusyBody, "description": "LLM busy (shed) or unavailable; see Retry-After"},
    },
)
async def interpret(body: InterpretRequest, request: Request, rt: Runtime = Depends(runtime)) -> dict[str, Any]:
    errors = text_errors(body.text, rt.settings.input_max_chars)
    if errors:
        raise InputError(errors)
    result = await cancel_on_disconnect(request, rt.interpret.interpret(body.text))
    return result.to_json()
