"""Any OpenAI-compatible ``/v1/chat/completions`` server (vLLM, llama.cpp server, LM Studio)."""

from __future__ import annotations

from typing import Any

import httpx

from feedback_intelligence.llm.backend import BackendInfo, Completion, CompletionRequest, Readiness
from feedback_intelligence.llm.errors import LlmFailure
from feedback_intelligence.llm.http_errors import raise_for_backend_status, transport_failure


class OpenAICompatibleBackend:
    kind = "openai"

    def __init__(self, base_url: str, model: str | None, *, api_key: str | None = None, slots: int = 2) -> None:
        root = base_url.rstrip("/")
        self.base_url = root[: -len("/v1")] if root.endswith("/v1") else root
        self.model = model or "default"
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.AsyncClient(
            base_url=self.base_url,
            headers=headers,
            timeout=httpx.Timeout(None, connect=5.0),
            limits=httpx.Limits(max_connections=max(4, slots * 4)),
        )

    async def start(self) -> None:
        return None

    async def complete(self, request: CompletionRequest) -> Completion:
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "stream": False,
        }
        if request.json_schema is not None:
            payload["response_format"] = {
                "type": "json_schema",
                # Not "strict": strict mode rejects optional fields and length limits that our schemas use.
                "json_schema": {"name": "reply", "schema": request.json_schema, "strict": False},
            }
        try:
            response = await self._client.post("/v1/chat/completions", json=payload)
        except httpx.TransportError as exc:
            raise transport_failure(exc, "OpenAI-compatible server", self.base_url) from exc
        raise_for_backend_status(response, "OpenAI-compatible server")
        try:
            body = response.json()
            text = body["choices"][0]["message"]["content"] or ""
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise LlmFailure(f"reply had no choices[0].message.content: {response.text[:200]}") from exc
        usage = body.get("usage") or {}
        return Completion(
            text=str(text),
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
        )

    async def readiness(self) -> Readiness:
        """llama.cpp server answers ``/health`` 503 while loading; others at least list ``/v1/models``."""
        try:
            health = await self._client.get("/health", timeout=3.0)
            if health.status_code == 200:
                return Readiness.READY
            if health.status_code == 503:
                return Readiness.WARMING
            models = await self._client.get("/v1/models", timeout=3.0)
        except httpx.HTTPError:
            return Readiness.DOWN
        return Readiness.READY if models.status_code == 200 else Readiness.DOWN

    async def info(self) -> BackendInfo:
        parallelism = None
        try:
            props = await self._client.get("/props", timeout=3.0)
            if props.status_code == 200:
                parallelism = props.json().get("total_slots")
        except (httpx.HTTPError, ValueError, AttributeError):
            parallelism = None
        return BackendInfo(kind=self.kind, model=self.model, base_url=self.base_url, parallelism=parallelism)

    async def aclose(self) -> None:
        await self._client.aclose()
