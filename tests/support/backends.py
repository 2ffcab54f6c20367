"""In-process backends for tests that need a backend to behave a particular way."""

from __future__ import annotations

import asyncio

from feedback_intelligence.llm.backend import BackendInfo, Completion, CompletionRequest, Readiness


class FreezableBackend:
    """Answers at once until frozen; a frozen backend never finishes a call (kill -STOP) until thawed."""

    kind = "freezable"

    def __init__(self) -> None:
        self.frozen = False
        self.calls = 0
        self.thaw = asyncio.Event()

    async def complete(self, request: CompletionRequest) -> Completion:
        self.calls += 1
        if self.frozen:
            await self.thaw.wait()
        return Completion(text="ok")

    async def readiness(self) -> Readiness:
        return Readiness.READY

    async def info(self) -> BackendInfo:
        return BackendInfo(kind=self.kind, model="m", base_url=None)
