"""The in-process fake backend, shipped once for tests and benchmarks (never wired by settings).

A real gate and a real runner sit in front of it; only the GPU is replaced. One class covers what
tests need of a backend: scripted replies in order, a reply computed from the request, a failure, a
call held until the test lets it go (a frozen GPU, ``kill -STOP``), and a record of what arrived.
For a backend over HTTP, use ``sim-ollama`` (``feedback_intelligence/sim``) instead.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable

from feedback_intelligence.llm.backend import BackendInfo, Completion, CompletionRequest, Readiness

# A reply: the text, an exception to raise, or a function of the request giving either (or awaiting text).
Step = str | BaseException | Callable[[CompletionRequest], "str | BaseException | Awaitable[str]"]


class FakeBackend:
    """Answers ``steps`` in order, then ``reply`` for every further call (no reply: the call fails the
    test, it was not scripted). While ``hold`` is an unset event, every call waits for it."""

    def __init__(
        self,
        *steps: Step,
        reply: Step | None = None,
        hold: asyncio.Event | None = None,
        kind: str = "fake",
        model: str = "fake",
        base_url: str | None = None,
        readiness: Readiness = Readiness.READY,
    ) -> None:
        self.steps = list(steps)
        self.reply = reply
        self.hold = hold
        self.kind = kind
        self.model = model
        self.base_url = base_url
        self.ready = readiness
        self.requests: list[CompletionRequest] = []
        self.arrived = asyncio.Event()  # set by the first call
        self.running = 0

    @property
    def calls(self) -> int:
        return len(self.requests)

    @property
    def prompts(self) -> list[str]:
        """The last message of every request, in arrival order."""
        return [r.messages[-1].content for r in self.requests if r.messages]

    def freeze(self) -> asyncio.Event:
        """Hold every call from now on until the returned event is set (a GPU that stopped)."""
        self.hold = asyncio.Event()
        return self.hold

    def thaw(self) -> None:
        """Let every held call (and every later one) go."""
        if self.hold is not None:
            self.hold.set()

    async def start(self) -> None:
        return None

    async def complete(self, request: CompletionRequest) -> Completion:
        self.requests.append(request)
        self.arrived.set()
        self.running += 1
        try:
            if self.hold is not None:
                await self.hold.wait()
            await asyncio.sleep(0)  # a real call always yields to the loop
            step = self.steps.pop(0) if self.steps else self.reply
            if step is None:
                raise AssertionError("the backend was called more often than scripted")
            answer = step(request) if callable(step) else step
            if inspect.isawaitable(answer):
                answer = await answer
            if isinstance(answer, BaseException):
                raise answer
            prompt_chars = sum(len(m.content) for m in request.messages)
            return Completion(text=answer, prompt_tokens=prompt_chars // 4, completion_tokens=10)
        finally:
            self.running -= 1

    async def readiness(self) -> Readiness:
        return self.ready

    async def info(self) -> BackendInfo:
        return BackendInfo(kind=self.kind, model=self.model, base_url=self.base_url, parallelism=1)

    async def aclose(self) -> None:
        return None
