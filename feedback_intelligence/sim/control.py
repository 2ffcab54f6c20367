"""The simulator's own control API for tests and benchmarks (not Ollama's).

``GET /sim/stats``, ``GET /sim/requests``, ``POST /sim/reset``, ``POST /sim/config``,
``POST /sim/unload``, and ``GET``/``POST /sim/replies`` (the reply script, see
:mod:`feedback_intelligence.sim.script`).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from feedback_intelligence.sim.asgi import Receive, Scope, Send, read_body, send_json
from feedback_intelligence.sim.config import SimConfig
from feedback_intelligence.sim.scheduler import SimScheduler
from feedback_intelligence.sim.script import ReplyScript, ScriptError, parse_entries
from feedback_intelligence.sim.stats import SimStats

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


class SimControl:
    def __init__(self, config: SimConfig, stats: SimStats, scheduler: SimScheduler, script: ReplyScript) -> None:
        self.config = config
        self.stats = stats
        self.scheduler = scheduler
        self.script = script

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

    async def stats_route(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send_json(send, 200, self.stats_view())

    async def requests(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send_json(send, 200, self.stats.request_records())

    async def reset(self, scope: Scope, receive: Receive, send: Send) -> None:
        await read_body(receive)
        self.stats.reset(in_flight=self.scheduler.slots.in_use)
        await send_json(send, 200, self.stats_view())

    async def unload(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Force the model cold: at once when idle, else as soon as its last request ends."""
        await read_body(receive)
        self.scheduler.expire_runner()
        await send_json(send, 200, self.stats_view())

    async def set_config(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Change timings or parallelism at run time; applies to requests that start service afterwards."""
        raw = await read_body(receive)
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
            await send_json(send, 400, {"error": str(exc)})
            return
        for name, value in updates.items():
            setattr(self.config, name, value)
        self.scheduler.slots.set_capacity(self.config.parallel)
        await send_json(send, 200, self._config_view())

    async def replies(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send_json(send, 200, self.script.view())

    async def set_replies(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Replace the reply script with a JSON array of entries (``[]`` clears it); applies to replies
        chosen afterwards."""
        raw = await read_body(receive)
        try:
            entries = parse_entries(json.loads(raw or b"null"))
        except (ValueError, UnicodeDecodeError) as exc:  # ScriptError is a ValueError
            message = str(exc) if isinstance(exc, ScriptError) else f"invalid JSON body: {exc}"
            await send_json(send, 400, {"error": message})
            return
        self.script.replace(entries)
        await send_json(send, 200, self.script.view())


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
