"""A scripted backend: answers from a list, records what reached it. Sits behind a real gate."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from feedback_intelligence.gate.gate import LlmGate
from feedback_intelligence.gate.local import LocalSlotPool
from feedback_intelligence.gate.pooled import PooledSlotPool
from feedback_intelligence.llm.backend import BackendInfo, Completion, CompletionRequest, Readiness
from feedback_intelligence.prompting.runner import PromptRunner

Step = str | BaseException | Callable[[CompletionRequest], Awaitable[str]]


class ScriptedBackend:
    kind = "scripted"

    def __init__(self, *steps: Step) -> None:
        self.steps = list(steps)
        self.requests: list[CompletionRequest] = []

    @property
    def prompts(self) -> list[str]:
        return [r.messages[-1].content for r in self.requests]

    async def start(self) -> None:
        return None

    async def complete(self, request: CompletionRequest) -> Completion:
        self.requests.append(request)
        if not self.steps:
            raise AssertionError("the backend was called more often than scripted")
        step = self.steps.pop(0)
        await asyncio.sleep(0)
        if isinstance(step, BaseException):
            raise step
        text = step if isinstance(step, str) else await step(request)
        return Completion(text=text, prompt_tokens=len(request.messages[-1].content) // 4, completion_tokens=10)

    async def readiness(self) -> Readiness:
        return Readiness.READY

    async def info(self) -> BackendInfo:
        return BackendInfo(kind=self.kind, model="scripted", base_url=None, parallelism=1)

    async def aclose(self) -> None:
        return None


def make_runner(
    backend: object, *, slots: int = 1, acquire_timeout_s: float = 0.5, call_timeout_s: float = 5.0
) -> PromptRunner:
    gate = LlmGate(
        PooledSlotPool.single(LocalSlotPool(slots, background_reserve=0)),
        acquire_timeout_s=acquire_timeout_s,
        call_timeout_s=call_timeout_s,
    )
    return PromptRunner(gate, backend)  # type: ignore[arg-type]
