"""The one clock: every piece of the product whose behaviour time decides takes a :class:`Clock`.

A breaker's cool-down, a stall verdict, a cached health report's age, a worker's pause, a lease's expiry,
the instant a row is saved: each reads the clock it was handed (``SYSTEM_CLOCK`` unless a test hands it a
:class:`ManualClock`), built once in the runtime builder (docs/adr/0051-one-clock.md). A test then moves
time with :meth:`ManualClock.advance` instead of sleeping past a threshold: the test is as fast on a busy
machine as on an idle one, and what it asserts no longer depends on the scheduler's mood.

Two readings, because they answer two questions: :meth:`Clock.now` is the calendar (what is written down,
compared with stored instants), :meth:`Clock.monotonic` measures intervals (never jumps with the wall clock).
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime:
        """The current instant, timezone-aware, in UTC."""
        ...

    def monotonic(self) -> float:
        """Seconds on a clock that only moves forward; only differences mean anything."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Pause for ``seconds`` on this clock (a cancellable await, like :func:`asyncio.sleep`)."""
        ...


class SystemClock:
    """The machine's clocks and the event loop's sleep."""

    def now(self) -> datetime:
        return datetime.now(UTC)

    def monotonic(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


SYSTEM_CLOCK: Clock = SystemClock()


def now_ms(clock: Clock = SYSTEM_CLOCK) -> int:
    """Whole milliseconds since the epoch: the unit of every ``*_ms`` column (a lease's expiry, an outbox
    row's next attempt, a session's last sight)."""
    return int(clock.now().timestamp() * 1000)


async def wait_or_pause(clock: Clock, event: asyncio.Event, seconds: float) -> bool:
    """Wait for ``event``, at most ``seconds`` on ``clock``; True when the event came first."""
    if event.is_set():
        return True
    waiter = asyncio.ensure_future(event.wait())
    pause = asyncio.ensure_future(clock.sleep(seconds))
    try:
        await asyncio.wait((waiter, pause), return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (waiter, pause):
            task.cancel()
        # Both wound down before returning (a manual clock's sleeper leaves it); a cancellation of the
        # caller meanwhile still reaches it: gather passes its own cancellation on.
        await asyncio.gather(waiter, pause, return_exceptions=True)
    return event.is_set()


#: 2027-01-15T08:00:00Z: a manual clock's default start, an instant no test's fixed data is near by chance.
MANUAL_START = datetime.fromtimestamp(1_800_000_000, UTC)


class ManualClock:
    """Time that moves only when the test says so (:meth:`advance`).

    :meth:`sleep` parks the caller until the clock has been advanced past its deadline: nothing sleeps
    for real, and :meth:`sleepers` lets a test wait (on an event) until the code under test has parked,
    so it advances time at the moment it means to.
    """

    def __init__(self, start: datetime = MANUAL_START) -> None:
        if start.tzinfo is None:
            raise ValueError("a clock's start is an aware instant")
        self._start = start.astimezone(UTC)
        self._elapsed = 0.0
        self._parked: list[tuple[float, int, asyncio.Event]] = []  # (deadline, order, wake) as a heap
        self._order = itertools.count()
        self._changed = asyncio.Event()

    def now(self) -> datetime:
        return self._start + timedelta(seconds=self._elapsed)

    def monotonic(self) -> float:
        return self._elapsed

    def time(self) -> float:
        """Seconds since the epoch, for a library that reads ``time.time`` (patched in by a test)."""
        return self.now().timestamp()

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)  # a real zero sleep: it yields to the loop and nothing more
            return
        wake = asyncio.Event()
        entry = (self._elapsed + seconds, next(self._order), wake)
        heapq.heappush(self._parked, entry)
        self._tell()
        try:
            await wake.wait()
        finally:
            if not wake.is_set():  # cancelled while parked
                self._parked.remove(entry)
                heapq.heapify(self._parked)
                self._tell()

    def advance(self, seconds: float) -> None:
        """Move time forward by ``seconds`` and wake every sleeper whose deadline has now passed."""
        if seconds < 0:
            raise ValueError("time does not go back")
        self._elapsed += seconds
        while self._parked and self._parked[0][0] <= self._elapsed:
            _, _, wake = heapq.heappop(self._parked)
            wake.set()
        self._tell()

    @property
    def parked(self) -> int:
        """How many sleepers wait for time to move."""
        return len(self._parked)

    async def sleepers(self, count: int = 1, *, timeout_s: float = 5.0) -> None:
        """Return once at least ``count`` callers are parked in :meth:`sleep`; TimeoutError after
        ``timeout_s`` real seconds (a test that waits for a sleeper that never comes fails loudly)."""
        async with asyncio.timeout(timeout_s):
            while len(self._parked) < count:
                self._changed.clear()
                await self._changed.wait()

    def _tell(self) -> None:
        self._changed.set()
