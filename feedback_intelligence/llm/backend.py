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
