"""The OpenAI chat-completions API on the simulated server: ``POST /v1/chat/completions`` and
``GET /v1/models``, as vLLM, ``llama-server`` and Ollama's own OpenAI-compatible routes answer them.

A completion is scheduled as the Ollama routes' are (:meth:`Completions.generate`: the model, then a slot or
the batching GPU), and answered in OpenAI's shape: ``choices[0].message.content``, ``finish_reason``
(``stop``, or ``length`` when ``max_tokens`` cut it) and ``usage`` (``completion_tokens`` is the reply's
tokens, what the gate feeds its adaptive limit). Structured output comes as OpenAI words it
(``response_format`` of type ``json_schema``) or as llama-cpp-python's older ``json_object`` with a
``schema``. ``stream: true`` answers server-sent events, all of them once the reply is whole (the
batching mode's pacing, sim/completions.py).

Errors are OpenAI's: ``{"error": {"message", "type", "param", "code"}}``; 400 for a body that is not a
request, 404 for a model the server does not serve, 503 "overloaded" with ``Retry-After`` when the
server's own queue is full (a cold model's pending requests past ``max_queue``, or on the batching GPU
``max_queue`` sequences already waiting beyond its ``max_seqs``).
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

from feedback_intelligence.sim.asgi import Receive, Scope, Send, cancel_on_disconnect, read_body, send_json
from feedback_intelligence.sim.completions import Completions, Generated
from feedback_intelligence.sim.config import SimConfig
from feedback_intelligence.sim.protocol import CompletionRequest, normalise_model_name
from feedback_intelligence.sim.replies import count_words
from feedback_intelligence.sim.scheduler import SimBusy

RETRY_AFTER_S = 1
OVERLOADED = "The server is currently overloaded, please try again later."


class OpenAIError(Exception):
    """Answered as OpenAI answers an error: ``status`` and ``{"error": {...}}``."""

    def __init__(self, status: int, message: str, kind: str, param: str | None = None, code: str | None = None):
        super().__init__(message)
        self.status = status
        self.body = {"error": {"message": message, "type": kind, "param": param, "code": code}}


def invalid(message: str, param: str | None = None) -> OpenAIError:
    return OpenAIError(400, message, "invalid_request_error", param)


def _response_format(body: dict[str, Any]) -> Any:
    """The sim's ``format`` (None, ``"json"`` or a schema) from OpenAI's ``response_format``."""
    fmt = body.get("response_format")
    if fmt is None:
        return None
    if not isinstance(fmt, dict) or fmt.get("type") not in ("text", "json_object", "json_schema"):
        raise invalid(
            "Invalid value for 'response_format.type': expected 'text', 'json_object' or 'json_schema'.",
            "response_format",
        )
    if fmt["type"] == "text":
        return None
    if fmt["type"] == "json_object":
        schema = fmt.get("schema")
        return schema if isinstance(schema, dict) else "json"
    inner = fmt.get("json_schema")
    if not isinstance(inner, dict) or not isinstance(inner.get("name"), str):
        raise invalid("Missing required parameter: 'response_format.json_schema.name'.", "response_format")
    schema = inner.get("schema")
    return schema if isinstance(schema, dict) else "json"


def parse_chat(raw: bytes) -> CompletionRequest:
    """Check a ``/v1/chat/completions`` body as an OpenAI-compatible server does (raises :class:`OpenAIError`)."""
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise invalid(
            "We could not parse the JSON body of your request. The API expects a JSON payload, "
            f"but what was sent was not valid JSON: {exc}"
        ) from exc
    if not isinstance(body, dict):
        raise invalid("The request body must be a JSON object.")
    model = body.get("model")
    if not model or not isinstance(model, str):
        raise invalid("you must provide a model parameter", "model")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise invalid("Missing required parameter: 'messages'.", "messages")
    texts: list[str] = []
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise invalid(f"Missing required parameter: 'messages[{i}].role'.", f"messages[{i}].role")
        content = message.get("content")
        if content is not None and not isinstance(content, str):
            raise invalid(f"Invalid type for 'messages[{i}].content': expected a string.", f"messages[{i}].content")
        texts.append(content or "")
    stream = body.get("stream", False)
    if not isinstance(stream, bool):
        raise invalid("Invalid type for 'stream': expected a boolean.", "stream")
    limit = body.get("max_completion_tokens", body.get("max_tokens"))
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise invalid("Invalid 'max_tokens': expected an integer of at least 1.", "max_tokens")
    return CompletionRequest(
        endpoint="openai",
        model=model,
        stream=stream,
        keep_alive_s=None,
        num_predict=limit,
        format=_response_format(body),
        prompt_tokens=count_words(*texts),
        empty=False,
        text="\n".join(t for t in texts if t),
    )


class OpenAIRoutes:
    """The OpenAI-compatible routes over the same completions (and GPU) as the Ollama ones."""

    def __init__(self, config: SimConfig, completions: Completions) -> None:
        self.config = config
        self.completions = completions
        self._created = int(time.time())

    def _model_known(self, model: str) -> bool:
        return self.config.accept_any_model or normalise_model_name(model) == normalise_model_name(self.config.model)

    async def models(self, scope: Scope, receive: Receive, send: Send) -> None:
        entry = {"id": self.config.model, "object": "model", "created": self._created, "owned_by": "sim"}
        await send_json(send, 200, {"object": "list", "data": [entry]})

    async def chat(self, scope: Scope, receive: Receive, send: Send) -> None:
        raw = await read_body(receive)
        if raw is None:
            return  # gone before its body arrived
        try:
            request = parse_chat(raw)
            if not self._model_known(request.model):
                missing = f"The model `{request.model}` does not exist."
                raise OpenAIError(404, missing, "invalid_request_error", "model", "model_not_found")
        except OpenAIError as exc:
            await send_json(send, exc.status, exc.body)
            return
        await cancel_on_disconnect(receive, self._complete(request, send))

    async def _complete(self, request: CompletionRequest, send: Send) -> None:
        gpu = self.completions.gpu
        try:
            if gpu is not None and gpu.running + gpu.queued >= gpu.config.max_seqs + self.config.max_queue:
                stats = self.completions.stats
                stats.finished(stats.arrive("openai", request.stream), "rejected_busy")
                raise SimBusy(OVERLOADED)
            generated = await self.completions.generate(request)
        except SimBusy:
            await _send_error(send, OpenAIError(503, OVERLOADED, "server_error"), retry_after=True)
            return
        ident = f"chatcmpl-{uuid.uuid4().hex[:24]}"
        if request.stream:
            await _send_events(send, request, generated, ident)
            return
        await send_json(send, 200, _reply(request, generated, ident))


def _usage(request: CompletionRequest, generated: Generated) -> dict[str, int]:
    completion = len(generated.tokens)
    return {
        "prompt_tokens": request.prompt_tokens,
        "completion_tokens": completion,
        "total_tokens": request.prompt_tokens + completion,
    }


def _reply(request: CompletionRequest, generated: Generated, ident: str) -> dict[str, Any]:
    return {
        "id": ident,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "".join(generated.tokens)},
                "logprobs": None,
                "finish_reason": generated.reason,
            }
        ],
        "usage": _usage(request, generated),
    }


async def _send_error(send: Send, error: OpenAIError, *, retry_after: bool) -> None:
    body = json.dumps(error.body, separators=(",", ":")).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if retry_after:
        headers.append((b"retry-after", str(RETRY_AFTER_S).encode()))
    await send({"type": "http.response.start", "status": error.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _send_events(send: Send, request: CompletionRequest, generated: Generated, ident: str) -> None:
    """``chat.completion.chunk`` events, one per token, the last with ``finish_reason`` and ``usage``, then
    ``[DONE]``."""
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]})
    created = int(time.time())

    def event(delta: dict[str, Any], reason: str | None, **extra: Any) -> bytes:
        chunk = {
            "id": ident,
            "object": "chat.completion.chunk",
            "created": created,
            "model": request.model,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": reason}],
            **extra,
        }
        return b"data: " + json.dumps(chunk, ensure_ascii=False, separators=(",", ":")).encode() + b"\n\n"

    body = [event({"role": "assistant", "content": ""}, None)]
    body += [event({"content": token}, None) for token in generated.tokens]
    body.append(event({}, generated.reason, usage=_usage(request, generated)))
    body.append(b"data: [DONE]\n\n")
    for chunk in body:
        await send({"type": "http.response.body", "body": chunk, "more_body": True})
    await send({"type": "http.response.body", "body": b""})
