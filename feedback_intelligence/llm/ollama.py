"""Ollama over its HTTP API (``/api/chat``)."""

from __future__ import annotations

import logging
from typing import Any

import httpx

from feedback_intelligence.llm.backend import BackendInfo, Completion, CompletionRequest, Readiness
from feedback_intelligence.llm.errors import LlmFailure
from feedback_intelligence.llm.http_errors import post_json, raise_for_backend_status, transport_failure

log = logging.getLogger(__name__)

DEFAULT_MODEL = "llama3.2:1b"


def canonical_model_name(name: str) -> str:
    """Ollama's own reading of a model name: without a tag it means ``:latest`` (``llama3`` is
    ``llama3:latest``; ``registry:5000/llama3`` too, the registry's port is not a tag)."""
    last = name.rsplit("/", 1)[-1]
    return name if ":" in last else f"{name}:latest"


class OllamaBackend:
    kind = "ollama"

    def __init__(self, base_url: str, model: str | None, *, keep_alive: str = "30m", slots: int = 2) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model or DEFAULT_MODEL
        self.keep_alive = keep_alive
        self.slots = slots
        # No read timeout of our own: the gate's deadline cancels the request, and a cancelled
        # request closes its connection, which Ollama treats as a cancel (its 499).
        self._client = httpx.AsyncClient(
            base_url=self.base_url,
            timeout=httpx.Timeout(None, connect=5.0),
            limits=httpx.Limits(max_connections=max(4, slots * 4)),
        )

    async def start(self) -> None:
        log.warning(
            "Ollama backend at %s: the gate admits %d call(s) at once. Ollama runs only "
            "OLLAMA_NUM_PARALLEL requests per loaded model (its default is 1) and queues every further "
            "request without bound, so run Ollama with OLLAMA_NUM_PARALLEL=%d (FI_LLM_SLOTS) or the gate "
            "cannot keep its promise.",
            self.base_url,
            self.slots,
            self.slots,
        )

    async def complete(self, request: CompletionRequest) -> Completion:
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "stream": False,
            "think": False,
            "keep_alive": self.keep_alive,
            "options": {"num_predict": request.max_tokens, "temperature": request.temperature},
        }
        if request.json_schema is not None:
            payload["format"] = request.json_schema
        body = await post_json(self._client, "/api/chat", payload, "Ollama")
        try:
            text = body["message"]["content"]
        except (KeyError, TypeError) as exc:
            raise LlmFailure(f"Ollama reply had no message content: {str(body)[:200]}") from exc
        return Completion(
            text=str(text),
            prompt_tokens=int(body.get("prompt_eval_count") or 0),
            completion_tokens=int(body.get("eval_count") or 0),
        )

    async def readiness(self) -> Readiness:
        """``/api/tags`` answering means the server is up; ``/api/ps`` says whether the model is loaded."""
        try:
            tags = await self._client.get("/api/tags", timeout=3.0)
            if tags.status_code >= 400:
                return Readiness.DOWN
            ps = await self._client.get("/api/ps", timeout=3.0)
        except httpx.HTTPError:
            return Readiness.DOWN
        try:
            models = ps.json().get("models", [])
            loaded = {canonical_model_name(str(m.get(key))) for m in models for key in ("name", "model") if m.get(key)}
        except (ValueError, AttributeError, TypeError):
            return Readiness.WARMING
        return Readiness.READY if canonical_model_name(self.model) in loaded else Readiness.WARMING

    async def warm(self) -> None:
        """Load the model and keep it loaded (an empty generate, as Ollama documents)."""
        try:
            response = await self._client.post(
                "/api/generate", json={"model": self.model, "keep_alive": self.keep_alive}
            )
        except httpx.TransportError as exc:
            raise transport_failure(exc, "Ollama", self.base_url) from exc
        raise_for_backend_status(response, "Ollama")

    async def info(self) -> BackendInfo:
        # Ollama does not report OLLAMA_NUM_PARALLEL over its API: parallelism stays unknown.
        return BackendInfo(kind=self.kind, model=self.model, base_url=self.base_url, parallelism=None)

    async def aclose(self) -> None:
        await self._client.aclose()
