"""Any OpenAI-compatible ``/v1/chat/completions`` server (vLLM, llama.cpp server, LM Studio)."""

from __future__ import annotations

from typing import Any

import httpx

from feedback_intelligence.llm.backend import BackendInfo, Completion, CompletionRequest, Readiness
from feedback_intelligence.llm.errors import LlmFailure
from feedback_intelligence.llm.http_errors import post_json


class OpenAICompatibleBackend:
    kind = "openai"

    def __init__(self, base_url: str, model: str | None, *, api_key: str | None = None, slots: int = 2) -> None:
        root = base_url.rstrip("/")
        self.base_url = root[: -len("/v1")] if root.endswith("/v1") else root
        self.model = model or "default"
        self._schema_style = "json_schema"
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
        body = await self._post_with_schema(payload, request.json_schema)
        try:
            text = body["choices"][0]["message"]["content"] or ""
        except (KeyError, IndexError, TypeError) as exc:
            raise LlmFailure(f"reply had no choices[0].message.content: {str(body)[:200]}") from exc
        usage = body.get("usage") or {}
        return Completion(
            text=str(text),
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
        )

    async def _post_with_schema(self, payload: dict[str, Any], schema: dict[str, Any] | None) -> dict[str, Any]:
        """Structured output as OpenAI words it (``json_schema``); servers that only know the older
        ``json_object`` + ``schema`` form (llama-cpp-python's server) are detected once and remembered."""
        if schema is None:
            return await post_json(self._client, "/v1/chat/completions", payload, "OpenAI-compatible server")
        if self._schema_style == "json_schema":
            # Not "strict": strict mode rejects optional fields and length limits that our schemas use.
            payload["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "reply", "schema": schema, "strict": False},
            }
            try:
                return await post_json(self._client, "/v1/chat/completions", payload, "OpenAI-compatible server")
            except LlmFailure as exc:
                if "response_format" not in str(exc):
                    raise
                self._schema_style = "json_object"
        payload["response_format"] = {"type": "json_object", "schema": schema}
        return await post_json(self._client, "/v1/chat/completions", payload, "OpenAI-compatible server")

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
