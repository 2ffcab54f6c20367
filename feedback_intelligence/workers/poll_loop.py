"""The background workers' loop: a few tasks, each taking one step after another until stopped.

Shared by the structure-later worker and the notify worker. A step does one unit of work and says how long
to pause before the next (None: go on at once). A pause ends early when :meth:`PollLoop.wake` is called (a
row was just saved here), so a worker answers at once and still finds what other replicas saved within one
poll. A store that cannot be reached pauses the task for a poll; the outage is logged once (one warning
line, no traceback) and its end once, however many polls it lasts and however many tasks meet it, so a
database cut for an hour is two lines in the log, not one a poll. A full disk, for workers that ask for
it, pauses it far longer and logs an error (space comes back only when an operator frees it). Any other
error is a bug: logged with its traceback, it must not end the worker for the life of the process.
:meth:`PollLoop.stop` cancels the tasks and waits for them, so a step in flight gives its work back (a
lease released or lapsing) before stop returns.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

from feedback_intelligence.instants.clock import SYSTEM_CLOCK, Clock, wait_or_pause
from feedback_intelligence.store.errors import StoreFull, StoreUnavailable

#: One step of task ``index``: how long to pause before the next (None: go on at once).
Step = Callable[[int], Awaitable[float | None]]


class PollLoop:
    """``tasks`` tasks named ``{name}-{index}``, each running ``step`` until :meth:`stop`.

    ``log`` is the worker's own logger, and ``name`` starts each of its lines, so the loop's lines read as
    the worker's. ``full_disk_pause_s`` (None: a full disk is one more outage) is the pause after a
    :class:`StoreFull`. The pauses are on ``clock``."""

    def __init__(
        self,
        name: str,
        step: Step,
        *,
        tasks: int,
        poll_s: float,
        log: logging.Logger,
        full_disk_pause_s: float | None = None,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        self.name = name
        self.step = step
        self.tasks = tasks
        self.poll_s = poll_s
        self.log = log
        self.full_disk_pause_s = full_disk_pause_s
        self.clock = clock
        self._wake = asyncio.Event()
        self._running: list[asyncio.Task[None]] = []
        self._stopping = False
        self._outage_since: float | None = None  # monotonic start of the outage being waited out

    def start(self) -> None:
        self._stopping = False
        self._running = [
            asyncio.create_task(self._run(index), name=f"{self.name}-{index}") for index in range(self.tasks)
        ]

    async def stop(self) -> None:
        """Cancel every task and wait for each to end (its step's own cleanup included)."""
        self._stopping = True
        for task in self._running:
            task.cancel()
        for task in self._running:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._running = []

    def wake(self) -> None:
        """End every task's pause now (work was just added here)."""
        self._wake.set()

    async def _run(self, index: int) -> None:
        while not self._stopping:
            pause = await self._step_once(index)
            if pause is None:
                continue
            self._wake.clear()
            await wait_or_pause(self.clock, self._wake, pause)

    async def _step_once(self, index: int) -> float | None:
        try:
            pause = await self.step(index)
        except StoreFull as exc:
            if self.full_disk_pause_s is None:
                return self._unavailable(exc)
            pause = self.full_disk_pause_s
            self.log.error("%s: the database is out of disk space, retrying in %g s: %s", self.name, pause, exc)
            return pause
        except StoreUnavailable as exc:
            return self._unavailable(exc)
        except Exception:  # a bug must not end the worker for the life of the process
            self.log.exception("%s: unexpected error", self.name)
            return self.poll_s
        if self._outage_since is not None:
            lasted_s = time.monotonic() - self._outage_since
            self._outage_since = None
            self.log.warning("%s: store answers again after %.0f s of outage", self.name, lasted_s)
        return pause

    def _unavailable(self, exc: StoreUnavailable) -> float:
        if self._outage_since is None:
            self._outage_since = time.monotonic()
            self.log.warning(
                "%s: store unavailable, retrying every %g s (one more line when it answers): %s",
                self.name,
                self.poll_s,
                exc,
            )
        else:
            self.log.debug("%s: store still unavailable: %s", self.name, exc)
        return self.poll_s
