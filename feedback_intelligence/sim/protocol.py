"""Ollama's request bodies, checked the way Ollama checks them, and its response shapes.

Error texts follow Ollama's (Go's ``encoding/json`` and ``time`` wording where Ollama passes those on), so a
client's error handling meets what it would meet in production.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from feedback_intelligence.sim.durations import DurationError, parse_keep_alive
from feedback_intelligence.sim.replies import count_words

FORMAT_ERROR = 'invalid format: expected "json" or a valid JSON schema'

_GO_TYPES = {dict: "object", list: "array", str: "string", bool: "bool", int: "number", float: "number"}


class BadRequest(Exception):
    """Answered with HTTP 400 ``{"error": ...}``."""


@dataclass
class CompletionRequest:
    endpoint: str  # "chat" | "generate"
    model: str
    stream: bool
    keep_alive_s: float | None
    num_predict: int | None
    format: Any  # None, "json" or a schema dict
    prompt_tokens: int
    empty: bool  # nothing to answer: a load (or, with keep_alive 0, an unload) request
    text: str = ""  # every prompt text of the request, joined: what a scripted reply matches on


def _go_type(value: Any) -> str:
    return "null" if value is None else _GO_TYPES.get(type(value), type(value).__name__)


def parse_completion(endpoint: str, raw: bytes) -> CompletionRequest:
    """Validate a ``/api/chat`` or ``/api/generate`` body; raise :class:`BadRequest` as Ollama would."""
    go_type = "api.ChatRequest" if endpoint == "chat" else "api.GenerateRequest"
    if not raw.strip():
        raise BadRequest("missing request body")
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadRequest(f"invalid JSON body: {exc}") from exc
    if not isinstance(body, dict):
        raise BadRequest(f"json: cannot unmarshal {_go_type(body)} into Go value of type {go_type}")

    def field_error(name: str, value: Any, want: str) -> BadRequest:
        struct = go_type.removeprefix("api.")
        return BadRequest(
            f"json: cannot unmarshal {_go_type(value)} into Go struct field {struct}.{name} of type {want}"
        )

    model = body.get("model")
    if model is not None and not isinstance(model, str):
        raise field_error("model", model, "string")
    if not model:
        raise BadRequest("model is required")

    stream = body.get("stream")
    if stream is not None and not isinstance(stream, bool):
        raise field_error("stream", stream, "bool")

    try:
        keep_alive_s = parse_keep_alive(body.get("keep_alive"))
    except DurationError as exc:
        raise BadRequest(str(exc)) from exc

    options = body.get("options")
    if options is not None and not isinstance(options, dict):
        raise field_error("options", options, "map[string]interface {}")
    num_predict = (options or {}).get("num_predict")
    if num_predict is not None:
        if isinstance(num_predict, float) and num_predict.is_integer():
            num_predict = int(num_predict)
        if isinstance(num_predict, bool) or not isinstance(num_predict, int):
            raise BadRequest(f'option "num_predict" must be of type integer, got {_go_type(num_predict)}')

    fmt = body.get("format")
    if fmt == "":
        fmt = None
    if fmt is not None and fmt != "json" and not isinstance(fmt, dict):
        raise BadRequest(FORMAT_ERROR)

    if endpoint == "chat":
        messages = body.get("messages")
        if messages is None:
            messages = []
        if not isinstance(messages, list):
            raise field_error("messages", messages, "[]api.Message")
        texts: list[str] = []
        for message in messages:
            if not isinstance(message, dict):
                raise field_error("messages", message, "api.Message")
            for key in ("role", "content"):
                value = message.get(key)
                if value is not None and not isinstance(value, str):
                    raise field_error(f"messages.{key}", value, "string")
            texts.append(message.get("content") or "")
        empty = not messages
    else:
        prompt = body.get("prompt")
        system = body.get("system")
        for name, value in (("prompt", prompt), ("system", system)):
            if value is not None and not isinstance(value, str):
                raise field_error(name, value, "string")
        texts = [system or "", prompt or ""]
        empty = not prompt

    return CompletionRequest(
        endpoint=endpoint,
        model=model,
        stream=True if stream is None else stream,  # Ollama streams unless told otherwise
        keep_alive_s=keep_alive_s,
        num_predict=num_predict,
        format=fmt,
        prompt_tokens=count_words(*texts),
        empty=empty,
        text="\n".join(t for t in texts if t),
    )


def normalise_model_name(name: str) -> str:
    """``llama3.2`` and ``llama3.2:latest`` name the same model, as in Ollama."""
    last = name.rsplit("/", 1)[-1]
    return name if ":" in last else f"{name}:latest"


def go_time(ts: float | None = None) -> str:
    """A timestamp as Go's ``time.Time`` marshals it in UTC (RFC 3339 with fractional seconds)."""
    moment = datetime.fromtimestamp(time.time() if ts is None else ts, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def done_fields(
    done_reason: str,
    *,
    total_s: float,
    load_s: float,
    prompt_tokens: int,
    eval_tokens: int,
    service_s: float,
) -> dict[str, Any]:
    """The statistics Ollama appends to a finished reply; durations in nanoseconds.

    Prompt evaluation is shown as the first tenth of the service time, generation as the rest."""
    return {
        "done_reason": done_reason,
        "done": True,
        "total_duration": int(total_s * 1e9),
        "load_duration": int(load_s * 1e9),
        "prompt_eval_count": prompt_tokens,
        "prompt_eval_duration": int(service_s * 0.1 * 1e9),
        "eval_count": eval_tokens,
        "eval_duration": int(service_s * 0.9 * 1e9),
    }
