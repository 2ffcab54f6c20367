"""The one small protocol every LLM backend implements."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True, slots=True)
class ChatMessage:
    role: str  # "system" | "user" | "assistant"
    content: str


@dataclass(frozen=True, slots=True)
class CompletionRequest:
    messages: list[ChatMessage]
    max_tokens: int
    temperature: float = 0.0
    json_schema: dict[str, Any] | None = None
    # The gate enforces the deadline by cancellation; backends use it to size their own timeouts.
    deadline_s: float = 120.0


@dataclass(frozen=True, slots=True)
class Completion:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0


class Readiness(StrEnum):
    READY = "ready"  # the server answers and the model is loaded
    WARMING = "warming"  # the server answers, the model is not (yet) loaded
    DOWN = "down"  # nothing answers


@dataclass(slots=True)
class BackendInfo:
    kind: str
    model: str
    base_url: str | None
    parallelism: int | None = None  # what the backend itself says it runs at once, when it can tell
    extra: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class LlmBackend(Protocol):
    """Turns messages into text. Raises LlmBusy (backend shed) or LlmFailure subclasses."""

    kind: str

    async def start(self) -> None: ...

    async def complete(self, request: CompletionRequest) -> Completion: ...

    async def readiness(self) -> Readiness:
        """A cheap check that never occupies the GPU (no completion)."""
        ...

    async def info(self) -> BackendInfo: ...

    async def aclose(self) -> None: ...


@dataclass(frozen=True, slots=True)
class EngineStatus:
    """One engine process of a backend that runs its own (the embedded one): for /health, the
    operator's board and the metrics."""

    name: str
    state: str  # "loading" | "running" | "restarting" | "crash_loop" | "stopped"
    pid: int | None
    rss_bytes: int | None
    restarts: int
    last_exit: str | None = None  # how the last child ended: "killed by SIGSEGV"
    reason: str | None = None  # while not running: the likely cause, for an operator

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "state": self.state,
            "pid": self.pid,
            "rssBytes": self.rss_bytes,
            "restarts": self.restarts,
            "lastExit": self.last_exit,
            "reason": self.reason,
        }


@runtime_checkable
class SupervisedEngines(Protocol):
    """A backend whose engines are processes of its own, supervised and restarted."""

    def engines(self) -> list[EngineStatus]: ...
