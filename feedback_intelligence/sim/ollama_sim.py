"""A simulated Ollama server: Ollama's HTTP API and scheduling, with a GPU that only sleeps.

A test and benchmark fixture, never a product backend. It answers ``/api/chat``, ``/api/generate``,
``/api/tags``, ``/api/ps``, ``/api/version`` and ``/`` closely enough for a real Ollama client (and, as
Ollama does, the OpenAI chat-completions API: :mod:`~feedback_intelligence.sim.openai_api`), and
schedules like Ollama (see :mod:`feedback_intelligence.sim.scheduler`): ``parallel`` requests run at once,
further ones wait without bound on a loaded model, and only a cold or loading model turns requests away
(503, Ollama's "maximum pending requests exceeded") once ``max_queue`` are pending.

This module is the router: it builds the parts on one shared state and sends each request to its
handler. The parts: :mod:`~feedback_intelligence.sim.model_routes` (what the server says about its
models), :mod:`~feedback_intelligence.sim.completions` (chat and generate), the replies
(:mod:`~feedback_intelligence.sim.replies`, :mod:`~feedback_intelligence.sim.script`) and the control
API under ``/sim/`` (:mod:`~feedback_intelligence.sim.control`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from feedback_intelligence.sim.asgi import Handler, Receive, Scope, Send, send_text
from feedback_intelligence.sim.completions import Completions
from feedback_intelligence.sim.config import SimConfig
from feedback_intelligence.sim.control import SimControl
from feedback_intelligence.sim.model_routes import ModelRoutes
from feedback_intelligence.sim.openai_api import OpenAIRoutes
from feedback_intelligence.sim.scheduler import SimScheduler
from feedback_intelligence.sim.script import ReplyScript, ScriptedReply
from feedback_intelligence.sim.stats import SimStats

__all__ = ["OllamaSim", "SimConfig", "create_sim_app", "serve_sim"]


class OllamaSim:
    """The ASGI application. Its state lives on the instance, so build one per server or test."""

    def __init__(self, config: SimConfig, replies: list[ScriptedReply] | None = None) -> None:
        config.validate()
        self.config = config
        self.stats = SimStats()
        self.scheduler = SimScheduler(config, self.stats)
        self.script = ReplyScript(replies)
        names_seen: list[str] = []
        models = ModelRoutes(config, self.scheduler, names_seen)
        completions = Completions(config, self.stats, self.scheduler, self.script, names_seen)
        self.gpu = completions.gpu  # the batching GPU, when there is one (a neighbour may share it)
        self.control = SimControl(config, self.stats, self.scheduler, self.script)
        openai = OpenAIRoutes(config, completions)

        async def chat(scope: Scope, receive: Receive, send: Send) -> None:
            await completions.handle("chat", receive, send)

        async def generate(scope: Scope, receive: Receive, send: Send) -> None:
            await completions.handle("generate", receive, send)

        control = self.control
        self._routes: dict[tuple[str, str], Handler] = {
            ("GET", "/"): models.root,
            ("HEAD", "/"): models.root,
            ("GET", "/api/version"): models.version,
            ("HEAD", "/api/version"): models.version,
            ("GET", "/api/tags"): models.tags,
            ("HEAD", "/api/tags"): models.tags,
            ("GET", "/api/ps"): models.ps,
            ("POST", "/api/chat"): chat,
            ("POST", "/api/generate"): generate,
            ("POST", "/v1/chat/completions"): openai.chat,
            ("GET", "/v1/models"): openai.models,
            ("GET", "/sim/stats"): control.stats_route,
            ("GET", "/sim/requests"): control.requests,
            ("POST", "/sim/reset"): control.reset,
            ("POST", "/sim/config"): control.set_config,
            ("POST", "/sim/unload"): control.unload,
            ("GET", "/sim/replies"): control.replies,
            ("POST", "/sim/replies"): control.set_replies,
        }

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        handler = self._routes.get((scope["method"], scope["path"]))
        if handler is None:
            await send_text(send, 404, "404 page not found")  # gin's default answer
            return
        await handler(scope, receive, send)

    def stats_view(self) -> dict[str, Any]:
        return self.control.stats_view()

    async def aclose(self) -> None:
        """Stop the scheduler's timers and loads (tests call this; uvicorn does via lifespan)."""
        await self.scheduler.aclose()
        if self.gpu is not None:
            await self.gpu.aclose()

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return


def create_sim_app(config: SimConfig, replies: list[ScriptedReply] | None = None) -> OllamaSim:
    """A fresh simulated Ollama (an ASGI app). It works on a copy of ``config``: run-time changes through
    ``POST /sim/config`` do not leak into the caller's object. ``replies`` is the initial reply script."""
    return OllamaSim(dataclasses.replace(config), replies)


def serve_sim(
    config: SimConfig, host: str = "127.0.0.1", port: int = 11434, replies: list[ScriptedReply] | None = None
) -> None:
    """Serve the simulated Ollama until interrupted: one uvicorn worker (the scheduler's state is
    in-process), warnings only."""
    import uvicorn

    uvicorn.run(
        create_sim_app(config, replies),
        host=host,
        port=port,
        workers=1,
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=2,
    )
