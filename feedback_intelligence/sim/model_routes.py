"""Ollama's informational routes: ``/``, ``/api/version``, ``/api/tags`` and ``/api/ps``."""

from __future__ import annotations

import hashlib
import math
import time
from typing import Any

from feedback_intelligence.sim.asgi import Receive, Scope, Send, send_json, send_text
from feedback_intelligence.sim.config import SimConfig
from feedback_intelligence.sim.protocol import go_time, normalise_model_name
from feedback_intelligence.sim.scheduler import SimScheduler

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


class ModelRoutes:
    """What the server says about itself and its models; ``names_seen`` is shared with the completions,
    since Ollama lists a model under every name it has been asked for."""

    def __init__(self, config: SimConfig, scheduler: SimScheduler, names_seen: list[str]) -> None:
        self.config = config
        self.scheduler = scheduler
        self.names_seen = names_seen
        self._created = time.time()

    async def root(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send_text(send, 200, "Ollama is running", head=scope["method"] == "HEAD")

    async def version(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send_json(send, 200, {"version": self.config.version}, head=scope["method"] == "HEAD")

    def _model_entry(self, name: str) -> dict[str, Any]:
        return {
            "name": name,
            "model": name,
            "size": _MODEL_SIZE,
            "digest": hashlib.sha256(name.encode()).hexdigest(),
            "details": dict(_DETAILS),
        }

    async def tags(self, scope: Scope, receive: Receive, send: Send) -> None:
        names = [normalise_model_name(self.config.model)]
        names += [n for n in self.names_seen if n not in names]
        models = [{**self._model_entry(n), "modified_at": go_time(self._created)} for n in names]
        await send_json(send, 200, {"models": models}, head=scope["method"] == "HEAD")

    async def ps(self, scope: Scope, receive: Receive, send: Send) -> None:
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
        await send_json(send, 200, {"models": models})
