"""A simulated Ollama server: Ollama's HTTP API and scheduling, with a GPU that only sleeps.

A test and benchmark fixture, never a product backend. It answers ``/api/chat``, ``/api/generate``,
``/api/tags``, ``/api/ps``, ``/api/version`` and ``/`` closely enough for a real Ollama client, and
schedules like Ollama (see :mod:`feedback_intelligence.sim.scheduler`): ``parallel`` requests run at once,
further ones wait without bound on a loaded model, and only a cold or loading model turns requests away
(503, Ollama's "maximum pending requests exceeded") once ``max_queue`` are pending.

Extra routes for tests and benchmarks (not Ollama's): ``GET /sim/stats``, ``GET /sim/requests``,
``POST /sim/reset``, ``POST /sim/config``, ``POST /sim/unload``.

It is a plain ASGI app rather than a framework one so that it owns ``receive``: racing the work against
``http.disconnect`` is how a client that hangs up cancels its request (Ollama's 499) and frees its slot.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import json
import math
import time
from collections.abc import Awaitable, Callable, Coroutine, MutableMapping
from typing import Any

from feedback_intelligence.sim.config import SimConfig
from feedback_intelligence.sim.protocol import (
    BadRequest,
    CompletionRequest,
    done_fields,
    go_time,
    normalise_model_name,
    parse_completion,
)
from feedback_intelligence.sim.replies import json_reply, json_tokens, prose_tokens
from feedback_intelligence.sim.scheduler import SimBusy, SimScheduler
from feedback_intelligence.sim.stats import SimStats, Trace

__all__ = ["OllamaSim", "SimConfig", "create_sim_app", "serve_sim"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
Handler = Callable[[Scope, Receive, Send], Awaitable[None]]

_MODEL_SIZE = 1_300_000_000
_CONTEXT_LENGTH = 4096
_GO_FOREVER_S = (2**63 - 1) / 1e9  # Go's time.Duration(math.MaxInt64): "expires" ~292 years on
_DETAILS = {
    "parent_model": "",
    "format": "gguf",
    "family": "llama",
    "families": ["llama"],
    "parameter_size": "1.2B",
    "quantization_level": "Q4_K_M",
}
_JSON = b"application/json; charset=utf-8"

# POST /sim/config accepts the stats' camelCase names and SimConfig's own.
_CONFIG_FIELDS = {
    "parallel": "parallel",
    "maxQueue": "max_queue",
    "serviceMs": "service_ms",
    "probeMs": "probe_ms",
    "loadMs": "load_ms",
    "keepAliveS": "keep_alive_s",
    "tokensPerReply": "tokens_per_reply",
}


class OllamaSim:
    """The ASGI application. Its state lives on the instance, so build one per server or test."""

    def __init__(self, config: SimConfig) -> None:
        config.validate()
        self.config = config
        self.stats = SimStats()
        self.scheduler = SimScheduler(config, self.stats)
        self._created = time.time()
        self._names_seen: list[str] = []
        self._routes: dict[tuple[str, str], Handler] = {
            ("GET", "/"): self._root,
            ("HEAD", "/"): self._root,
            ("GET", "/api/version"): self._version,
            ("HEAD", "/api/version"): self._version,
            ("GET", "/api/tags"): self._tags,
            ("HEAD", "/api/tags"): self._tags,
            ("GET", "/api/ps"): self._ps,
            ("POST", "/api/chat"): self._chat,
            ("POST", "/api/generate"): self._generate,
            ("GET", "/sim/stats"): self._sim_stats,
            ("GET", "/sim/requests"): self._sim_requests,
            ("POST", "/sim/reset"): self._sim_reset,
            ("POST", "/sim/config"): self._sim_config,
            ("POST", "/sim/unload"): self._sim_unload,
        }

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        handler = self._routes.get((scope["method"], scope["path"]))
        if handler is None:
            await _send_text(send, 404, "404 page not found")  # gin's default answer
            return
        await handler(scope, receive, send)

    async def aclose(self) -> None:
        """Stop the scheduler's timers and loads (tests call this; uvicorn does via lifespan)."""
        await self.scheduler.aclose()

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    # -- Ollama's informational routes ---------------------------------------------------------------

    async def _root(self, scope: Scope, receive: Receive, send: Send) -> None:
        await _send_text(send, 200, "Ollama is running", head=scope["method"] == "HEAD")

    async def _version(self, scope: Scope, receive: Receive, send: Send) -> None:
        await _send_json(send, 200, {"version": self.config.version}, head=scope["method"] == "HEAD")

    def _model_entry(self, name: str) -> dict[str, Any]:
        return {
            "name": name,
            "model": name,
            "size": _MODEL_SIZE,
            "digest": hashlib.sha256(name.encode()).hexdigest(),
            "details": dict(_DETAILS),
        }

    async def _tags(self, scope: Scope, receive: Receive, send: Send) -> None:
        names = [normalise_model_name(self.config.model)]
        names += [n for n in self._names_seen if n not in names]
        models = [{**self._model_entry(n), "modified_at": go_time(self._created)} for n in names]
        await _send_json(send, 200, {"models": models}, head=scope["method"] == "HEAD")

    async def _ps(self, scope: Scope, receive: Receive, send: Send) -> None:
        runner = self.scheduler.runner
        models = []
        if runner is not None:  # Ollama lists a model that is still loading too
            if runner.expires_at is not None:
                expires = runner.expires_at
            elif math.isinf(runner.session_s):
                expires = time.time() + _GO_FOREVER_S
            else:  # in use or loading: Ollama estimates from the session duration
                expires = time.time() + runner.session_s
            for name in runner.names:
                entry = self._model_entry(normalise_model_name(name))
                entry.update(expires_at=go_time(expires), size_vram=_MODEL_SIZE, context_length=_CONTEXT_LENGTH)
                models.append(entry)
        await _send_json(send, 200, {"models": models})

    # -- completions -------------------------------------------------------------------------------

    async def _chat(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._completion("chat", receive, send)

    async def _generate(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._completion("generate", receive, send)

    async def _completion(self, endpoint: str, receive: Receive, send: Send) -> None:
        raw = await _read_body(receive)
        if raw is None:
            return  # gone before its body arrived
        try:
            request = parse_completion(endpoint, raw)
        except BadRequest as exc:
            await _send_json(send, 400, {"error": str(exc)})
            return
        if not self._model_known(request.model):
            await _send_json(send, 404, {"error": f"model '{request.model}' not found"})
            return
        name = normalise_model_name(request.model)
        if name not in self._names_seen:
            self._names_seen.append(name)
        work = self._load_or_unload(request, send) if request.empty else self._complete(request, send)
        await _cancel_on_disconnect(receive, work)

    def _model_known(self, model: str) -> bool:
        return self.config.accept_any_model or normalise_model_name(model) == normalise_model_name(self.config.model)

    async def _load_or_unload(self, request: CompletionRequest, send: Send) -> None:
        """An empty prompt loads the model (how Ollama is warmed up), or unloads it with ``keep_alive: 0``;
        neither takes a parallel slot, and neither counts as a completion."""
        self.stats.load_requests += 1
        if request.keep_alive_s == 0:
            self.scheduler.expire_runner()
            reason = "unload"
        else:
            try:
                runner = await self.scheduler.get_runner(request.model, request.keep_alive_s)
            except SimBusy as exc:
                await _send_json(send, 503, {"error": str(exc)})
                return
            self.scheduler.finished(runner)
            reason = "load"
        await _send_json(send, 200, {**self._head(request, ""), "done": True, "done_reason": reason})

    async def _complete(self, request: CompletionRequest, send: Send) -> None:
        trace = self.stats.arrive(request.endpoint, request.stream)
        try:
            try:
                runner = await self.scheduler.get_runner(request.model, request.keep_alive_s)
            except SimBusy as exc:
                self.stats.finished(trace, "rejected_busy")
                await _send_json(send, 503, {"error": str(exc)})
                return
            try:
                await self._serve(request, trace, send)
            finally:
                self.scheduler.finished(runner)
        except asyncio.CancelledError:
            self.stats.finished(trace, "cancelled")  # Ollama logs these as 499
            raise

    async def _serve(self, request: CompletionRequest, trace: Trace, send: Send) -> None:
        """Hold a slot for the service time: the whole reply at the end, or token by token when streaming."""
        load_s = time.monotonic() - trace.arrival  # Ollama's load_duration: time spent getting the runner
        slots = self.scheduler.slots
        await slots.acquire()
        try:
            self.stats.started(trace, slots.in_use)
            service_s = self._service_s(request)
            tokens, reason = self._reply(request)
            if request.stream:
                await self._stream(request, trace, send, tokens, reason, service_s, load_s)
                self.stats.finished(trace, "completed")
                return
            await asyncio.sleep(service_s)
        finally:
            slots.release()
        self.stats.finished(trace, "completed")
        stats = _done_stats(request, trace, reason, load_s, service_s, tokens)
        await _send_json(send, 200, {**self._head(request, "".join(tokens)), **stats})

    async def _stream(
        self,
        request: CompletionRequest,
        trace: Trace,
        send: Send,
        tokens: list[str],
        reason: str,
        service_s: float,
        load_s: float,
    ) -> None:
        """NDJSON chunks spread evenly over the service time; headers go with the first chunk, as Ollama's
        do, so a client waiting for a slot sees nothing until generation starts."""
        loop = asyncio.get_running_loop()
        begin = loop.time()
        for i, token in enumerate(tokens):
            delay = begin + service_s * (i + 1) / len(tokens) - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            if i == 0:
                await send(
                    {
                        "type": "http.response.start",
                        "status": 200,
                        "headers": [(b"content-type", b"application/x-ndjson")],
                    }
                )
            await send({"type": "http.response.body", "body": _line(self._chunk(request, token)), "more_body": True})
        stats = _done_stats(request, trace, reason, load_s, service_s, tokens)
        await send({"type": "http.response.body", "body": _line({**self._head(request, ""), **stats})})

    def _service_s(self, request: CompletionRequest) -> float:
        if request.num_predict == 1 and self.config.probe_ms is not None:
            return self.config.probe_ms / 1000
        return self.config.service_ms / 1000

    def _reply(self, request: CompletionRequest) -> tuple[list[str], str]:
        """Chunks of the reply and its done_reason. JSON replies are never cut short, so they always parse."""
        if request.format is not None:
            return json_tokens(json_reply(request.format)), "stop"
        count = self.config.tokens_per_reply
        if request.num_predict is not None and 0 < request.num_predict < count:
            return prose_tokens(request.num_predict), "length"
        return prose_tokens(count), "stop"

    @staticmethod
    def _head(request: CompletionRequest, content: str) -> dict[str, Any]:
        head: dict[str, Any] = {"model": request.model, "created_at": go_time()}
        if request.endpoint == "chat":
            head["message"] = {"role": "assistant", "content": content}
        else:
            head["response"] = content
        return head

    def _chunk(self, request: CompletionRequest, token: str) -> dict[str, Any]:
        return {**self._head(request, token), "done": False}

    # -- simulator controls ------------------------------------------------------------------------

    def stats_view(self) -> dict[str, Any]:
        scheduler = self.scheduler
        return {
            **self.stats.counters(),
            "inFlight": scheduler.slots.in_use,
            "waitingForSlot": scheduler.slots.waiting,
            "pendingQueue": scheduler.pending_queue,
            "loaded": scheduler.loaded,
            "loading": scheduler.loading,
            "config": self._config_view(),
        }

    def _config_view(self) -> dict[str, Any]:
        c = self.config
        return {
            "parallel": c.parallel,
            "maxQueue": c.max_queue,
            "serviceMs": c.service_ms,
            "probeMs": c.probe_ms,
            "loadMs": c.load_ms,
            "keepAliveS": c.keep_alive_s,
            "tokensPerReply": c.tokens_per_reply,
            "model": c.model,
        }

    async def _sim_stats(self, scope: Scope, receive: Receive, send: Send) -> None:
        await _send_json(send, 200, self.stats_view())

    async def _sim_requests(self, scope: Scope, receive: Receive, send: Send) -> None:
        await _send_json(send, 200, self.stats.request_records())

    async def _sim_reset(self, scope: Scope, receive: Receive, send: Send) -> None:
        await _read_body(receive)
        self.stats.reset(in_flight=self.scheduler.slots.in_use)
        await _send_json(send, 200, self.stats_view())

    async def _sim_unload(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Force the model cold: at once when idle, else as soon as its last request ends."""
        await _read_body(receive)
        self.scheduler.expire_runner()
        await _send_json(send, 200, self.stats_view())

    async def _sim_config(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Change timings or parallelism at run time; applies to requests that start service afterwards."""
        raw = await _read_body(receive)
        try:
            changes = json.loads(raw or b"{}")
            if not isinstance(changes, dict):
                raise ValueError("expected a JSON object")
            updates: dict[str, Any] = {}
            for key, value in changes.items():
                name = _CONFIG_FIELDS.get(key) or str(key)
                if name not in _CONFIG_FIELDS.values():
                    raise ValueError(f"unknown setting {key!r}")
                updates[name] = _config_value(name, value)
            candidate = dataclasses.replace(self.config, **updates)
            candidate.validate()
        except (ValueError, TypeError) as exc:
            await _send_json(send, 400, {"error": str(exc)})
            return
        for name, value in updates.items():
            setattr(self.config, name, value)
        self.scheduler.slots.set_capacity(self.config.parallel)
        await _send_json(send, 200, self._config_view())


def _config_value(name: str, value: Any) -> Any:
    if name == "probe_ms" and value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{name} must be a number")
    if name == "keep_alive_s":
        return float(value)
    if isinstance(value, float) and not value.is_integer():
        raise ValueError(f"{name} must be a whole number")
    return int(value)


# -- ASGI plumbing -----------------------------------------------------------------------------------


def _done_stats(request: CompletionRequest, trace: Trace, reason: str, load_s: float, service_s: float,
                tokens: list[str]) -> dict[str, Any]:
    """The closing fields Ollama puts on a finished reply (durations and token counts)."""
    return done_fields(
        reason,
        total_s=time.monotonic() - trace.arrival,
        load_s=load_s,
        prompt_tokens=request.prompt_tokens,
        eval_tokens=len(tokens),
        service_s=service_s,
    )


async def _read_body(receive: Receive) -> bytes | None:
    """The whole request body, or ``None`` if the client disconnected first."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


async def _wait_for_disconnect(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def _cancel_on_disconnect(receive: Receive, work: Coroutine[Any, Any, None]) -> None:
    """Run ``work`` until it ends or the client hangs up, whichever comes first; a hang-up cancels it,
    which frees its queue place or slot at once. Servers report ``http.disconnect`` only once the body
    has been read, so this runs after :func:`_read_body`."""
    task = asyncio.ensure_future(work)
    watcher = asyncio.ensure_future(_wait_for_disconnect(receive))
    try:
        await asyncio.wait({task, watcher}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if not task.done():
            task.cancel()
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
        with contextlib.suppress(asyncio.CancelledError):
            await task
    if not task.cancelled():
        task.result()  # the work's own failure, if any, surfaces as the server's 500


def _line(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


async def _send_json(send: Send, status: int, payload: Any, *, head: bool = False) -> None:
    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    await _send(send, status, _JSON, body, head)


async def _send_text(send: Send, status: int, text: str, *, head: bool = False) -> None:
    await _send(send, status, b"text/plain; charset=utf-8", text.encode(), head)


async def _send(send: Send, status: int, content_type: bytes, body: bytes, head: bool) -> None:
    headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if head else body})


# -- entry points ------------------------------------------------------------------------------------


def create_sim_app(config: SimConfig) -> OllamaSim:
    """A fresh simulated Ollama (an ASGI app). It works on a copy of ``config``: run-time changes through
    ``POST /sim/config`` do not leak into the caller's object."""
    return OllamaSim(dataclasses.replace(config))


def serve_sim(config: SimConfig, host: str = "127.0.0.1", port: int = 11434) -> None:
    """Serve the simulated Ollama until interrupted: one uvicorn worker (the scheduler's state is
    in-process), warnings only."""
    import uvicorn

    uvicorn.run(
        create_sim_app(config),
        host=host,
        port=port,
        workers=1,
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=2,
    )
