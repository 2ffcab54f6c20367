"""Bulk import, a batch at a time per process: admitted within a short wait, or shed (docs/adr/0043).

A batch's checks, rules and derivation are Python CPU work, run in worker threads so the event loop
is free meanwhile. But threads take turns at the interpreter lock, and the loop is one more contender:
with four batches working at once it waited for its turn behind four threads, again for every callback
it ran, and ``/livez`` stalled for up to seconds. Behind one thread it waits at most a switch interval
(5 ms) per turn. One process has one core's worth of Python anyway, so a second batch working beside
the first gains no throughput (docs/benchmarks.md, "Bulk import").

So at most ``slots`` batches are stored at once in one process (``FI_BATCH_SLOTS``, 1). A batch that
finds no free slot within ``wait_s`` is refused at once with :class:`BatchesBusy` (``503`` with
``Retry-After``) before any of its items is checked; nothing of it is stored and the client sends it
again (its ids make that safe) — the gate's rule for the GPU, shed, not queue (docs/adr/0001).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from feedback_intelligence.metrics import Metrics

T = TypeVar("T")

#: The longest a batch waits for a slot before it is shed: the LLM gate's and the password checks' wait.
WAIT_S = 0.5
RETRY_AFTER_S = 1


class BatchesBusy(Exception):
    """Every batch slot stayed taken for the whole wait: answer 503 with ``Retry-After``."""

    def __init__(self, retry_after_s: int = RETRY_AFTER_S) -> None:
        super().__init__(retry_after_s)
        self.retry_after_s = retry_after_s


class BatchSlots:
    def __init__(self, slots: int, metrics: Metrics, wait_s: float = WAIT_S) -> None:
        self.slots = slots
        self.wait_s = wait_s
        self.metrics = metrics
        self._free = asyncio.Semaphore(slots)

    async def run(self, work: Callable[[], Awaitable[T]]) -> T:
        """``work()`` (one batch: its checks, rules, derivation and transaction) in a slot of its own, or
        :class:`BatchesBusy` when none frees within ``wait_s``.

        The slot is given back when the work is done, not when the caller stops waiting (a server shutting
        down): the batch's transaction commits or rolls back either way, and no further batch may start
        its CPU work beside a thread still running."""
        try:
            async with asyncio.timeout(self.wait_s):
                await self._free.acquire()
        except TimeoutError:
            self.metrics.batch_sheds.inc()
            raise BatchesBusy() from None
        self.metrics.batches_in_use.inc()
        running = asyncio.ensure_future(work())
        running.add_done_callback(self._give_back)
        return await asyncio.shield(running)

    def _give_back(self, _: asyncio.Future[Any]) -> None:
        self.metrics.batches_in_use.dec()
        self._free.release()
