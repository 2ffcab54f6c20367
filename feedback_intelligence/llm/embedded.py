"""llama.cpp embedded through llama-cpp-python: the no-setup default backend.

Each engine runs in a child process of its own (docs/adr/0019-engine-out-of-process.md), one per
gate slot, so the engine's parallelism equals the gate's by construction and a native crash, a kill
or an out-of-memory ends one call, never the service. A supervisor task per engine restarts its child
with bounded backoff (``engine.supervisor``). A cancelled caller asks its child to stop at the next
token, and the engine is handed out again only once the child has really stopped.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from feedback_intelligence.llm.backend import BackendInfo, Completion, CompletionRequest, EngineStatus, Readiness
from feedback_intelligence.llm.engine.child import CallFailed, EngineChild, EngineExited, worker_command
from feedback_intelligence.llm.engine.model_file import PACKAGED_MODEL_DISTRIBUTION, resolve_model_path
from feedback_intelligence.llm.engine.protocol import Complete
from feedback_intelligence.llm.engine.supervisor import RestartPolicy, describe_exit, exit_cause, likely_cause
from feedback_intelligence.llm.errors import LlmEngineCrashed, LlmFailure, LlmUnavailable, LlmWarming
from feedback_intelligence.metrics import Metrics

log = logging.getLogger(__name__)


@dataclass(eq=False)
class _Engine:
    """One slot's engine: the child serving it now (if any) and its history."""

    name: str
    state: str = "loading"
    child: EngineChild | None = None
    busy: bool = False
    restarts: int = 0
    failures: int = 0  # consecutive: exits since the last answered call
    last_exit: str | None = None
    reason: str | None = None


class EmbeddedBackend:
    kind = "embedded"

    def __init__(
        self,
        model: str | None,
        *,
        slots: int = 2,
        context_tokens: int = 2048,
        threads: int | None = None,
        name: str = "default",
        metrics: Metrics | None = None,
        policy: RestartPolicy | None = None,
    ) -> None:
        self._configured_model = model
        self.slots = slots
        self.context_tokens = context_tokens
        self.threads = threads or max(1, (os.cpu_count() or 2) // slots)
        self.name = name
        self.metrics = metrics
        self.policy = policy or RestartPolicy()
        self.model_path: Path | None = None
        self._model_error: LlmUnavailable | None = None
        self._engines = [_Engine(f"engine-{index}") for index in range(slots)]
        self._idle: deque[_Engine] = deque()
        self._changed = asyncio.Event()
        self._supervisors: list[asyncio.Task[None]] = []
        self._closing = False

    async def start(self) -> None:
        """Start every engine's supervisor: the service answers (``warming``) while the children load."""
        try:
            self.model_path = resolve_model_path(self._configured_model)
        except LlmUnavailable as exc:
            self._model_error = exc
            log.error("embedded backend: %s", exc)
            return
        for engine in self._engines:
            self._track(engine)
            self._supervisors.append(asyncio.create_task(self._supervise(engine), name=f"supervise-{engine.name}"))

    def _command(self) -> list[str]:
        assert self.model_path is not None
        return worker_command(self.model_path, context_tokens=self.context_tokens, threads=self.threads)

    async def _supervise(self, engine: _Engine) -> None:
        while not self._closing:
            child = EngineChild(f"{self.name}/{engine.name}", self._command())
            try:
                ready = await child.start()
            except EngineExited as exc:
                self._exited(engine, exc.returncode, exc.fatal, before_ready=True)
                await asyncio.sleep(self.policy.delay_s(engine.failures))
                continue
            log.info(
                "%s/%s ready (pid %d, %.1f s to load and answer a first token): %s",
                self.name,
                engine.name,
                ready.pid,
                ready.load_seconds,
                ready.system_info,
            )
            engine.child, engine.state, engine.reason = child, "running", None
            self._set_up(engine, True)
            self._idle.append(engine)
            self._notify()
            try:
                returncode = await child.wait_exit()
            except asyncio.CancelledError:
                await child.stop()
                raise
            if engine in self._idle:
                self._idle.remove(engine)
            engine.child = None
            self._set_up(engine, False)
            if self._closing:
                break
            self._exited(engine, returncode, child.fatal, before_ready=False)
            self._notify()
            await asyncio.sleep(self.policy.delay_s(engine.failures))

    def _exited(self, engine: _Engine, returncode: int | None, fatal: str | None, *, before_ready: bool) -> None:
        engine.failures += 1
        engine.restarts += 1
        engine.last_exit = describe_exit(returncode)
        engine.reason = likely_cause(returncode, fatal, before_ready=before_ready)
        looping = self.policy.crash_loop(engine.failures)
        engine.state = "crash_loop" if looping else "restarting"
        if self.metrics is not None:
            self.metrics.engine_restarts.labels(self.name, engine.name, exit_cause(returncode)).inc()
            self.metrics.engine_crash_loop.labels(self.name, engine.name).set(1 if looping else 0)
        delay = self.policy.delay_s(engine.failures)
        if looping:
            log.error(
                "%s/%s is in a crash loop (%d exits without an answer in between; retrying every %.0f s): %s",
                self.name,
                engine.name,
                engine.failures,
                delay,
                engine.reason,
            )
        else:
            log.error(
                "%s/%s %s; restarting in %.1f s: %s", self.name, engine.name, engine.last_exit, delay, engine.reason
            )

    def _track(self, engine: _Engine) -> None:
        if self.metrics is None:
            return

        def rss() -> float:
            return float(engine.child.rss_bytes() or 0) if engine.child is not None else 0.0

        self.metrics.engine_rss.labels(self.name, engine.name).set_function(rss)
        self.metrics.engine_up.labels(self.name, engine.name).set(0)
        self.metrics.engine_crash_loop.labels(self.name, engine.name).set(0)

    def _set_up(self, engine: _Engine, up: bool) -> None:
        if self.metrics is not None:
            self.metrics.engine_up.labels(self.name, engine.name).set(1 if up else 0)

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def _take(self) -> _Engine:
        """An idle engine. Waits only for an engine that is finishing its previous call (a cancelled one
        stops at its next token); never for one that is restarting: that is a fast failure, no queue."""
        while True:
            if self._idle:
                engine = self._idle.popleft()
                engine.busy = True
                return engine
            if not any(engine.busy and engine.child is not None for engine in self._engines):
                raise self._not_serving()
            await self._changed.wait()

    def _give_back(self, engine: _Engine, child: EngineChild) -> None:
        engine.busy = False
        if engine.child is child and child.returncode is None:
            self._idle.append(engine)
        self._notify()

    def _not_serving(self) -> LlmFailure:
        if self._model_error is not None:
            return self._model_error
        states = {engine.state for engine in self._engines}
        if "loading" in states:
            return LlmWarming("the embedded model is still loading")
        reasons = "; ".join(f"{e.name}: {e.reason}" for e in self._engines if e.reason)
        if states == {"crash_loop"}:
            return LlmUnavailable(
                f"every embedded engine is in a crash loop: {reasons}",
                public="the embedded language model engine keeps crashing (see the service log)",
            )
        return LlmWarming(
            f"the embedded engine is restarting: {reasons}", public="the embedded language model engine is restarting"
        )

    async def complete(self, request: CompletionRequest) -> Completion:
        engine = await self._take()
        child = engine.child
        assert child is not None
        call = Complete(
            id=0,
            messages=[{"role": m.role, "content": m.content} for m in request.messages],
            max_tokens=request.max_tokens,
            temperature=request.temperature,
            json_schema=request.json_schema,
        )
        try:
            done = await child.complete(call, on_finished=lambda: self._give_back(engine, child))
        except EngineExited as exc:
            raise LlmEngineCrashed(f"{self.name}/{engine.name}: {exc}") from exc
        except CallFailed as exc:
            raise LlmFailure(f"llama.cpp generation failed: {exc}") from exc
        engine.failures = 0  # it answered: the next exit starts the backoff afresh
        return Completion(text=done.text, completion_tokens=done.completion_tokens)

    async def wait_loaded(self) -> None:
        """Until every engine has started (or the first has failed to): for tools and tests."""
        while True:
            if self._model_error is not None:
                raise self._model_error
            states = {engine.state for engine in self._engines}
            if states == {"running"}:
                return
            if "loading" not in states:
                raise self._not_serving()
            await self._changed.wait()

    async def readiness(self) -> Readiness:
        states = {engine.state for engine in self._engines}
        if self._model_error is not None or states <= {"crash_loop", "stopped"}:
            return Readiness.DOWN
        return Readiness.READY if "running" in states else Readiness.WARMING

    def engines(self) -> list[EngineStatus]:
        return [
            EngineStatus(
                name=engine.name,
                state=engine.state,
                pid=engine.child.pid if engine.child is not None else None,
                rss_bytes=engine.child.rss_bytes() if engine.child is not None else None,
                restarts=engine.restarts,
                last_exit=engine.last_exit,
                reason=engine.reason,
            )
            for engine in self._engines
        ]

    async def info(self) -> BackendInfo:
        running = [e for e in self._engines if e.state == "running"]
        system = next((e.child.info.system_info for e in running if e.child and e.child.info), None)
        return BackendInfo(
            kind=self.kind,
            model=str(self.model_path or self._configured_model or PACKAGED_MODEL_DISTRIBUTION),
            base_url=None,
            parallelism=self.slots if len(running) == self.slots else None,
            extra={
                "threadsPerEngine": self.threads,
                "contextTokens": self.context_tokens,
                "engines": [row.to_json() for row in self.engines()],
                "systemInfo": system,
            },
        )

    async def aclose(self) -> None:
        self._closing = True
        children = [engine.child for engine in self._engines if engine.child is not None]
        for task in self._supervisors:
            task.cancel()
        await asyncio.gather(*self._supervisors, return_exceptions=True)
        await asyncio.gather(*(child.stop() for child in children), return_exceptions=True)
        for engine in self._engines:
            engine.state, engine.child = "stopped", None
