"""Mapping of HTTP-level outcomes of a backend server onto the LLM error vocabulary."""

from __future__ import annotations

from typing import Any

import httpx

from feedback_intelligence.llm.errors import LlmBusy, LlmFailure, LlmTransportFailure, LlmUnavailable


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
    raise LlmFailure(
        f"{backend} answered {response.status_code}: {detail}",
        public=f"the language model backend answered HTTP {response.status_code}",
    )


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
    return LlmTransportFailure(f"{backend} transport error: {exc.__class__.__name__}: {exc}")


async def post_json(client: httpx.AsyncClient, path: str, payload: dict[str, Any], backend: str) -> dict[str, Any]:
    """POST and return the JSON reply, every failure already translated (busy, unreachable, broken)."""
    try:
        response = await client.post(path, json=payload)
    except httpx.TransportError as exc:
        raise transport_failure(exc, backend, str(client.base_url)) from exc
    raise_for_backend_status(response, backend)
    try:
        body = response.json()
    except ValueError as exc:
        raise LlmFailure(
            f"{backend} replied with something that is not JSON: {response.text[:200]}",
            public="the language model backend replied with something that is not JSON",
        ) from exc
    if not isinstance(body, dict):
        raise LlmFailure(f"{backend} replied with JSON that is not an object: {response.text[:200]}")
    return body
