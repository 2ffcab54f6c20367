"""Mapping of HTTP-level outcomes of a backend server onto the LLM error vocabulary."""

from __future__ import annotations

import httpx

from feedback_intelligence.llm.errors import LlmBusy, LlmFailure, LlmUnavailable


def raise_for_backend_status(response: httpx.Response, backend: str) -> None:
    """A backend's own "busy" (503, 429) is a shed like the gate's; anything else non-2xx fails."""
    if response.status_code < 400:
        return
    detail = _error_text(response)
    if response.status_code in (429, 503):
        retry_after = response.headers.get("retry-after", "")
        raise LlmBusy(
            "backend_busy",
            int(retry_after) if retry_after.isdigit() else 1,
            f"{backend} is busy ({response.status_code}): {detail}",
        )
    raise LlmFailure(f"{backend} answered {response.status_code}: {detail}")


def _error_text(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:200]
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict):
            return str(error.get("message", error))[:200]
        if error:
            return str(error)[:200]
    return str(body)[:200]


def transport_failure(exc: httpx.TransportError, backend: str, base_url: str) -> LlmFailure:
    if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
        return LlmUnavailable(f"{backend} at {base_url} is unreachable: {exc.__class__.__name__}")
    return LlmFailure(f"{backend} transport error: {exc.__class__.__name__}: {exc}")
