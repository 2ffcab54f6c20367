"""Ollama's completion routes, ``/api/chat`` and ``/api/generate``: scheduling, slot time, streaming.

A completion waits for the model (see :mod:`feedback_intelligence.sim.scheduler`), holds a parallel
slot for the configured service time, and answers either at the end or token by token when streaming.
What it says comes from the script when one is set (:mod:`feedback_intelligence.sim.script`), else
from :mod:`feedback_intelligence.sim.replies`.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

from feedback_intelligence.sim.asgi import Receive, Send, cancel_on_disconnect, ndjson_line, read_body, send_json
from feedback_intelligence.sim.batching import BatchingGpu
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
from feedback_intelligence.sim.script import ReplyScript
from feedback_intelligence.sim.stats import SimStats, Trace


@dataclass(frozen=True, slots=True)
class Generated:
    """A whole reply, as another API than Ollama's words it (sim/openai_api.py)."""

    tokens: list[str]
    reason: str  # "stop" | "length"
    load_s: float  # waiting for the model
    service_s: float  # in a slot or on the batching GPU


class Completions:
    def __init__(
        self, config: SimConfig, stats: SimStats, scheduler: SimScheduler, script: ReplyScript, names_seen: list[str]
    ) -> None:
        self.config = config
        self.stats = stats
        self.scheduler = scheduler
        self.script = script
        self.names_seen = names_seen
        self.gpu = BatchingGpu(config.batching) if config.batching is not None else None

    async def handle(self, endpoint: str, receive: Receive, send: Send) -> None:
        raw = await read_body(receive)
        if raw is None:
            return  # gone before its body arrived
        try:
            request = parse_completion(endpoint, raw)
        except BadRequest as exc:
            await send_json(send, 400, {"error": str(exc)})
            return
        if not self._model_known(request.model):
            await send_json(send, 404, {"error": f"model '{request.model}' not found"})
            return
        name = normalise_model_name(request.model)
        if name not in self.names_seen:
            self.names_seen.append(name)
        work = self._load_or_unload(request, send) if request.empty else self._complete(request, send)
        await cancel_on_disconnect(receive, work)

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
                await send_json(send, 503, {"error": str(exc)})
                return
            self.scheduler.finished(runner)
            reason = "load"
        await send_json(send, 200, {**_head(request, ""), "done": True, "done_reason": reason})

    async def _complete(self, request: CompletionRequest, send: Send) -> None:
        trace = self.stats.arrive(request.endpoint, request.stream)
        try:
            try:
                runner = await self.scheduler.get_runner(request.model, request.keep_alive_s)
            except SimBusy as exc:
                self.stats.finished(trace, "rejected_busy")
                await send_json(send, 503, {"error": str(exc)})
                return
            try:
                await self._serve(request, trace, send)
            finally:
                self.scheduler.finished(runner)
        except asyncio.CancelledError:
            self.stats.finished(trace, "cancelled")  # Ollama logs these as 499
            raise

    async def generate(self, request: CompletionRequest) -> Generated:
        """The whole reply to ``request``, scheduled as Ollama's completions are (the model, then a slot or
        the batching GPU), counted in the stats; raises :class:`SimBusy` as they answer 503."""
        trace = self.stats.arrive(request.endpoint, request.stream)
        try:
            try:
                runner = await self.scheduler.get_runner(request.model, request.keep_alive_s)
            except SimBusy:
                self.stats.finished(trace, "rejected_busy")
                raise
            try:
                load_s = time.monotonic() - trace.arrival
                tokens, reason = self._reply(request)
                if self.gpu is not None:
                    self.stats.started(trace, self.gpu.running + 1)
                    started = time.monotonic()
                    await self.gpu.generate(request.prompt_tokens, len(tokens))
                    service_s = time.monotonic() - started
                else:
                    await self.scheduler.slots.acquire()
                    try:
                        self.stats.started(trace, self.scheduler.slots.in_use)
                        service_s = self._service_s(request)
                        await asyncio.sleep(service_s)
                    finally:
                        self.scheduler.slots.release()
            finally:
                self.scheduler.finished(runner)
        except asyncio.CancelledError:
            self.stats.finished(trace, "cancelled")
            raise
        self.stats.finished(trace, "completed")
        return Generated(tokens, reason, load_s, service_s)

    async def _serve(self, request: CompletionRequest, trace: Trace, send: Send) -> None:
        """Hold a slot for the service time: the whole reply at the end, or token by token when streaming."""
        load_s = time.monotonic() - trace.arrival  # Ollama's load_duration: time spent getting the runner
        if self.gpu is not None:
            await self._serve_batched(self.gpu, request, trace, send, load_s)
            return
        slots = self.scheduler.slots
        await slots.acquire()
        try:
            self.stats.started(trace, slots.in_use)
            service_s = self._service_s(request)
            tokens, reason = self._reply(request)
            if request.stream:
                await _stream(request, trace, send, tokens, reason, service_s, load_s)
                self.stats.finished(trace, "completed")
                return
            await asyncio.sleep(service_s)
        finally:
            slots.release()
        self.stats.finished(trace, "completed")
        stats = _done_stats(request, trace, reason, load_s, service_s, tokens)
        await send_json(send, 200, {**_head(request, "".join(tokens)), **stats})

    async def _serve_batched(
        self, gpu: BatchingGpu, request: CompletionRequest, trace: Trace, send: Send, load_s: float
    ) -> None:
        """On the batching GPU: one step per reply token, at the pace of everything running on it. A
        streamed reply comes whole at the end (its pacing is the plain mode's)."""
        tokens, reason = self._reply(request)
        self.stats.started(trace, gpu.running + 1)
        started = time.monotonic()
        await gpu.generate(request.prompt_tokens, len(tokens))
        service_s = time.monotonic() - started
        self.stats.finished(trace, "completed")
        stats = _done_stats(request, trace, reason, load_s, service_s, tokens)
        await send_json(send, 200, {**_head(request, "".join(tokens)), **stats})

    def _service_s(self, request: CompletionRequest) -> float:
        if _is_probe(request) and self.config.probe_ms is not None:
            return self.config.probe_ms / 1000
        return self.config.service_ms / 1000

    def _reply(self, request: CompletionRequest) -> tuple[list[str], str]:
        """Chunks of the reply and its done_reason. Scripted and JSON replies are never cut short: a test
        wants the exact words, and a JSON reply must always parse."""
        scripted = None if _is_probe(request) else self.script.reply_for(request.text)
        if scripted is not None:
            return json_tokens(scripted), "stop"
        if request.format is not None:
            return json_tokens(json_reply(request.format)), "stop"
        count = self.config.tokens_per_reply
        if request.num_predict is not None and 0 < request.num_predict < count:
            return prose_tokens(request.num_predict), "length"
        return prose_tokens(count), "stop"


def _is_probe(request: CompletionRequest) -> bool:
    return request.num_predict == 1


def _head(request: CompletionRequest, content: str) -> dict[str, Any]:
    head: dict[str, Any] = {"model": request.model, "created_at": go_time()}
    if request.endpoint == "chat":
        head["message"] = {"role": "assistant", "content": content}
    else:
        head["response"] = content
    return head


async def _stream(
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
        chunk = {**_head(request, token), "done": False}
        await send({"type": "http.response.body", "body": ndjson_line(chunk), "more_body": True})
    stats = _done_stats(request, trace, reason, load_s, service_s, tokens)
    await send({"type": "http.response.body", "body": ndjson_line({**_head(request, ""), **stats})})


def _done_stats(
    request: CompletionRequest, trace: Trace, reason: str, load_s: float, service_s: float, tokens: list[str]
) -> dict[str, Any]:
    """The closing fields Ollama puts on a finished reply (durations and token counts)."""
    return done_fields(
        reason,
        total_s=time.monotonic() - trace.arrival,
        load_s=load_s,
        prompt_tokens=request.prompt_tokens,
        eval_tokens=len(tokens),
        service_s=service_s,
    )
