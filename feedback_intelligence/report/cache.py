"""A channel's cached deterministic reports: a few windows, TTL, single flight, and an epoch that ingest bumps.

Every entry remembers the epoch it was generated under. It is stored only if the epoch did not
move during generation (compare-and-set), and served only while the epoch is still the same, so
a report never outlives an ingest — also when the epoch lives in a shared store and another
replica bumped it.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from feedback_intelligence.instants.clock import SYSTEM_CLOCK, Clock

Report = Any  # whatever the caller caches (the service keeps its deterministic report and items)
DEFAULT_ENTRIES = 8  # windows a manager flips between (today, 7, 30 days, a custom one) stay warm


class EpochSource(Protocol):
    """A channel's data version. In memory here; the store or Redis can back it across restarts/replicas."""

    async def current(self) -> int: ...

    async def bump(self) -> int: ...


class MemoryEpochSource:
    """Starts at 0 with the process (what the reference does)."""

    def __init__(self, start: int = 0) -> None:
        self._value = start

    async def current(self) -> int:
        return self._value

    async def bump(self) -> int:
        self._value += 1
        return self._value


@dataclass(frozen=True, slots=True)
class _Entry:
    key: str
    expires: float
    epoch: int
    report: Report


class ReportCache:
    def __init__(
        self,
        ttl_s: float,
        epochs: EpochSource | None = None,
        clock: Clock = SYSTEM_CLOCK,
        entries: int = DEFAULT_ENTRIES,
    ) -> None:
        self.ttl_s = ttl_s
        self.epochs: EpochSource = epochs or MemoryEpochSource()
        self._clock = clock
        self._max_entries = entries
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._lock = asyncio.Lock()

    async def get(self, key: str) -> Report | None:
        entry = self._entries.get(key)
        if entry is None or self._clock.monotonic() >= entry.expires:
            return None
        if await self.epochs.current() != entry.epoch:
            return None
        if key in self._entries:
            self._entries.move_to_end(key)
        return entry.report

    async def set(self, key: str, report: Report, epoch: int) -> bool:
        """Store ``report`` generated under ``epoch`` unless the epoch has moved since."""
        if self.ttl_s <= 0 or await self.epochs.current() != epoch:
            return False
        self._entries[key] = _Entry(key, self._clock.monotonic() + self.ttl_s, epoch, report)
        self._entries.move_to_end(key)
        while len(self._entries) > self._max_entries:
            self._entries.popitem(last=False)
        return True

    async def invalidate(self) -> int:
        """Bump the epoch and drop the entry; returns the new epoch."""
        epoch = await self.epochs.bump()
        self._entries.clear()
        return epoch

    async def epoch(self) -> int:
        return await self.epochs.current()

    async def get_or_create(
        self,
        key: str,
        factory: Callable[[], Awaitable[Report]],
        *,
        cacheable: Callable[[Report], bool] = lambda _report: True,
    ) -> Report:
        """The cached report for ``key``, or one generation at a time (double-checked under a lock).

        The returned dict may be shared between callers: treat it as read-only.
        """
        if self.ttl_s <= 0:
            return await factory()
        hit = await self.get(key)
        if hit is not None:
            return hit
        async with self._lock:
            hit = await self.get(key)
            if hit is not None:
                return hit
            epoch = await self.epochs.current()
            report = await factory()
            if cacheable(report):
                await self.set(key, report, epoch)
            return report
