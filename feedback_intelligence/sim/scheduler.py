"""Ollama's scheduling, reproduced: where a request waits, and when it is turned away.

From ollama/ollama ``server/sched.go`` and the runner's semaphore (``llm/server.go``), and the Ollama
maintainers' own account of its queueing and ``OLLAMA_MAX_QUEUE``:

* ``GetRunner`` drops every request into ``pendingReqCh``, a channel of ``OLLAMA_MAX_QUEUE`` places; when
  it is full the request fails at once with ``ErrMaxQueue`` (HTTP 503).
* One scheduler goroutine drains that channel. For a loaded model it hands the runner over at once
  (``useLoadedRunner``), so the channel stays empty: a warm model never answers 503.
* For a cold model it starts the load and takes the next request, which blocks it on the loading runner's
  lock until the load ends. So while a model loads, the requests it can admit are the one that started
  the load, the one the scheduler holds, and ``max_queue`` more in the channel; the rest get 503.
* A request that has the runner then waits for one of ``OLLAMA_NUM_PARALLEL`` slots on a FIFO semaphore,
  without any bound: ``OLLAMA_MAX_QUEUE`` plays no part here.
* The runner counts the requests using it; when the count drops to zero, a timer of the last request's
  ``keep_alive`` starts (0 unloads at once, negative never). A new request stops the timer.
* A client that goes away leaves the slot queue (or its slot) at once. A cancelled request still in the
  pending channel keeps its place until the scheduler drains it (it skips dead ones), as in Ollama.

The single scheduler goroutine is modelled synchronously: asyncio runs one thing at a time, and a handover
that Ollama does in microseconds happens here at admission, so an asyncio burst cannot overflow the
pending queue of a warm model through an artefact of the event loop.

Simplifications: one simulated model (every accepted name shares it), unloading is instant, and a load
runs to completion even if the request that started it goes away (Ollama would abort that load).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections import deque
from dataclasses import dataclass, field

from feedback_intelligence.sim.config import SimConfig
from feedback_intelligence.sim.stats import SimStats

#: Ollama's ``ErrMaxQueue`` text, two spaces included.
ERR_MAX_QUEUE = "server busy, please try again.  maximum pending requests exceeded"


class SimBusy(Exception):
    """The pending queue is full (Ollama's ``ErrMaxQueue``)."""


class FifoSlots:
    """The runner's parallel slots: a first-come, first-served semaphore with no bound on its waiters,
    whose capacity can change at run time (``POST /sim/config``)."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.in_use = 0
        self._waiters: deque[asyncio.Future[None]] = deque()

    @property
    def waiting(self) -> int:
        return sum(1 for w in self._waiters if not w.done())

    async def acquire(self) -> None:
        if self.in_use < self.capacity and not self._waiters:
            self.in_use += 1
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.release()  # granted just before the cancel landed: hand it on
            else:
                with contextlib.suppress(ValueError):
                    self._waiters.remove(waiter)
            raise

    def release(self) -> None:
        self.in_use -= 1
        self._wake()

    def set_capacity(self, capacity: int) -> None:
        self.capacity = capacity
        self._wake()

    def _wake(self) -> None:
        while self._waiters and self.in_use < self.capacity:
            waiter = self._waiters.popleft()
            if waiter.done():
                continue
            waiter.set_result(None)
            self.in_use += 1


@dataclass(eq=False)
class Runner:
    """The loaded (or loading) model: Ollama's ``runnerRef``."""

    session_s: float
    names: list[str]
    loading: bool = True
    ref_count: int = 1  # the request that started the load holds it
    loaded_at: float | None = None  # wall clock
    expires_at: float | None = None  # wall clock, set when the idle timer starts
    expire_handle: asyncio.TimerHandle | None = None


@dataclass(eq=False)
class PendingRequest:
    """A request waiting for the runner; cancelling its future is how the client's departure shows."""

    model: str
    keep_alive_s: float | None
    future: asyncio.Future[Runner] = field(default_factory=lambda: asyncio.get_running_loop().create_future())


class SimScheduler:
    def __init__(self, config: SimConfig, stats: SimStats) -> None:
        self.config = config
        self.stats = stats
        self.slots = FifoSlots(config.parallel)
        self.runner: Runner | None = None
        self._held: PendingRequest | None = None  # the request the scheduler holds while a load runs
        self._pending: deque[PendingRequest] = deque()  # Ollama's pendingReqCh, max_queue places
        self._load_tasks: set[asyncio.Task[None]] = set()

    # -- state for /sim/stats ----------------------------------------------------------------------

    @property
    def loaded(self) -> bool:
        return self.runner is not None and not self.runner.loading

    @property
    def loading(self) -> bool:
        return self.runner is not None and self.runner.loading

    @property
    def pending_queue(self) -> int:
        """Places taken in the bounded pending queue (cancelled requests included until drained)."""
        return len(self._pending)

    # -- scheduling --------------------------------------------------------------------------------

    async def get_runner(self, model: str, keep_alive_s: float | None) -> Runner:
        """Wait for the model; raise :class:`SimBusy` when a cold or loading model's queue is full.

        The caller must call :meth:`finished` with the runner once its request is over."""
        request = PendingRequest(model, keep_alive_s)
        runner = self.runner
        if runner is None:
            self._start_load(request)
        elif not runner.loading:
            self._use_loaded_runner(runner, request)
        elif self._held is None:
            self._held = request
        elif len(self._pending) < self.config.max_queue:
            self._pending.append(request)
        else:
            raise SimBusy(ERR_MAX_QUEUE)
        try:
            return await request.future
        except asyncio.CancelledError:
            if request.future.done() and not request.future.cancelled():
                self.finished(request.future.result())  # handed over just before the cancel landed
            raise

    def finished(self, runner: Runner) -> None:
        """A request let go of the runner; the last one out starts the keep-alive timer."""
        runner.ref_count -= 1
        if runner is not self.runner or runner.ref_count > 0:
            return
        if runner.session_s <= 0:
            self._expire(runner)
        elif math.isinf(runner.session_s):
            runner.expires_at = None
        else:
            self._cancel_timer(runner)
            loop = asyncio.get_running_loop()
            runner.expire_handle = loop.call_later(runner.session_s, self._expire, runner)
            runner.expires_at = time.time() + runner.session_s

    def expire_runner(self) -> None:
        """Unload as soon as the model is idle (Ollama's ``expireRunner``: ``keep_alive: 0``, ``/sim/unload``)."""
        runner = self.runner
        if runner is None:
            return
        self._cancel_timer(runner)
        runner.session_s = 0.0
        runner.expires_at = time.time()
        if runner.ref_count <= 0:
            self._expire(runner)

    def _use_loaded_runner(self, runner: Runner, request: PendingRequest) -> None:
        runner.ref_count += 1
        self._cancel_timer(runner)
        runner.expires_at = None
        if request.keep_alive_s is not None:
            runner.session_s = request.keep_alive_s
        if request.model not in runner.names:
            runner.names.append(request.model)
        request.future.set_result(runner)

    def _start_load(self, request: PendingRequest) -> None:
        session = request.keep_alive_s if request.keep_alive_s is not None else self.config.keep_alive_s
        if session < 0:
            session = math.inf  # OLLAMA_KEEP_ALIVE below zero: never unload
        runner = Runner(session_s=session, names=[request.model])
        self.runner = runner
        self.stats.loads += 1
        task = asyncio.get_running_loop().create_task(self._load(runner, request))
        self._load_tasks.add(task)
        task.add_done_callback(self._load_tasks.discard)

    async def _load(self, runner: Runner, starter: PendingRequest) -> None:
        if self.config.load_ms > 0:
            await asyncio.sleep(self.config.load_ms / 1000)
        runner.loading = False
        runner.loaded_at = time.time()
        # Hand over in Ollama's order: the starter, the held request, then the pending queue (skipping
        # requests whose client left); the futures resolve in this order, so slots are taken in it too.
        starter_alive = not starter.future.done()
        if starter_alive:
            starter.future.set_result(runner)
        waiting = [self._held, *self._pending] if self._held is not None else list(self._pending)
        self._held = None
        self._pending.clear()
        for request in waiting:
            if not request.future.done():
                self._use_loaded_runner(runner, request)
        if not starter_alive:
            self.finished(runner)

    def _expire(self, runner: Runner) -> None:
        if runner is not self.runner or runner.ref_count > 0:
            return  # reused since the timer was set; the next idle moment decides
        self._cancel_timer(runner)
        self.runner = None

    @staticmethod
    def _cancel_timer(runner: Runner) -> None:
        if runner.expire_handle is not None:
            runner.expire_handle.cancel()
            runner.expire_handle = None

    async def aclose(self) -> None:
        """Stop timers and loads (server shutdown, test teardown)."""
        if self.runner is not None:
            self._cancel_timer(self.runner)
        tasks = list(self._load_tasks)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
