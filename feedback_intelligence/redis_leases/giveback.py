"""Giving back, once Redis answers again, what could not be given back while it was away.

A Redis that restarts with persistence still holds the gate leases, queue places and in-flight places
that were held when it stopped. A release sent while it was down fails even after the client's
reconnects, and left alone the slot or place would stay taken until its lease lapsed
(``FI_REDIS_LEASE_S``): seconds of a gate with fewer slots right after Redis is back (ADR 0023). So the
give-back is sent again every :data:`RETRY_S` until Redis takes it or the thing has lapsed anyway.
Every give-back script is idempotent, so a retry whose first reply was lost frees nothing twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)

RETRY_S = 0.25  # how often a give-back that failed even after reconnecting is sent again


class GiveBacks:
    """Background retries of failed releases, one task each, cancelled on :meth:`aclose`."""

    def __init__(self, what: str) -> None:
        self.what = what
        self._tasks: set[asyncio.Task[None]] = set()

    def retry(
        self,
        send: Callable[[], Awaitable[object]],
        lapses_in_s: float,
        *,
        settled: Callable[[], bool] = lambda: False,
        then: Callable[[], None] = lambda: None,
    ) -> None:
        """Send ``send()`` again until it succeeds, ``settled()`` says another path gave it back, or
        ``lapses_in_s`` passed (the lease is gone by itself); ``then()`` runs after, whichever ended it."""

        async def again() -> None:
            try:
                for _ in range(max(1, int(lapses_in_s / RETRY_S))):
                    await asyncio.sleep(RETRY_S)
                    if settled():
                        return
                    try:
                        await send()
                    except Exception as exc:  # still away: the next round tries again
                        log.debug("%s give-back failed again: %s", self.what, exc)
                        continue
                    return
            finally:
                then()

        task = asyncio.create_task(again(), name=f"{self.what}-give-back")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    @property
    def pending(self) -> int:
        return len(self._tasks)

    async def aclose(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
