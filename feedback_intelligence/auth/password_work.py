"""Argon2 work off the event loop: a few checks at once, at a low CPU priority, shed when full.

A password check costs tens of milliseconds of CPU on purpose. On the event loop, ten wrong sign-ins
at once stalled every desk for seconds; in threads at the same priority they would still take the
cores from the loop. Here the caller pays: at most ``slots`` checks run, in threads whose scheduling
priority is lowered (Linux keeps a nice value per thread, and Argon2's own lane threads inherit it),
and a check that finds no free slot within ``wait_s`` is refused at once with :class:`PasswordWorkBusy`
(503 + ``Retry-After``), the gate's rule for the GPU: shed, not queue (docs/adr/0001).
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")

#: The check threads' nice value, the lowest: the loop (nice 0) weighs ~70× more with the scheduler.
LOW_PRIORITY_NICE = 19
RETRY_AFTER_S = 1


class PasswordWorkBusy(Exception):
    """Every slot stayed taken for the whole wait: answer 503 with ``Retry-After``."""

    def __init__(self, retry_after_s: int = RETRY_AFTER_S) -> None:
        super().__init__(retry_after_s)
        self.retry_after_s = retry_after_s


def _lower_this_threads_priority() -> None:
    if sys.platform != "linux":  # elsewhere setpriority(PRIO_PROCESS, …) names the whole process
        return
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), LOW_PRIORITY_NICE)
    except OSError as exc:  # a container without the right to renice: the slots still bound the work
        log.debug("password threads keep their priority: %s", exc)


class PasswordWork:
    def __init__(self, slots: int, wait_s: float = 0.5) -> None:
        self.slots = slots
        self.wait_s = wait_s
        self._free = asyncio.Semaphore(slots)
        self._pool = ThreadPoolExecutor(
            max_workers=slots, thread_name_prefix="fi-password", initializer=_lower_this_threads_priority
        )

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[Slot]:
        """A slot for one check, or :class:`PasswordWorkBusy` when none frees within ``wait_s``.

        Taken before the account is even read, so a shed attempt costs the service almost nothing."""
        try:
            async with asyncio.timeout(self.wait_s):
                await self._free.acquire()
        except TimeoutError:
            raise PasswordWorkBusy() from None
        held = Slot(self._pool, self._free.release)
        try:
            yield held
        finally:
            held.give_back()

    async def run(self, work: Callable[..., T], *args: object) -> T:
        """``work(*args)`` in a check thread, in a slot of its own."""
        async with self.slot() as held:
            return await held.run(work, *args)


class Slot:
    """One taken slot: runs its check in the pool and frees itself when the thread is done."""

    def __init__(self, pool: ThreadPoolExecutor, release: Callable[[], None]) -> None:
        self._pool = pool
        self._release = release
        self._running: asyncio.Future[Any] | None = None

    async def run(self, work: Callable[..., T], *args: object) -> T:
        running = asyncio.get_running_loop().run_in_executor(self._pool, work, *args)
        self._running = running
        return await asyncio.shield(running)

    def give_back(self) -> None:
        # A caller that stops waiting (its client hung up) frees the slot when the thread is done, not
        # before: otherwise a further check would queue inside the pool behind a thread still hashing.
        if self._running is not None and not self._running.done():
            self._running.add_done_callback(lambda _: self._release())
        else:
            self._release()
