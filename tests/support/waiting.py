"""Synchronise tests on observable state, with a bounded deadline (never a fixed sleep): the one wait helper.

:func:`wait_for` is for tests inside the event loop (it yields to the loop between looks); :func:`wait_for_sync`
is its twin for tests that drive real processes from plain code (HTTP status reads, files, sockets).
Each returns the seconds the wait took, and fails naming ``what`` it waited for.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable


async def wait_for(
    predicate: Callable[[], Awaitable[bool] | bool],
    timeout_s: float = 5.0,
    what: str = "condition",
    poll_s: float = 0.001,
) -> float:
    """Yield to the loop until ``predicate`` (a plain or an async function) holds; fail loudly after
    ``timeout_s``."""
    started = time.monotonic()
    while not await _holds(predicate):
        if time.monotonic() - started > timeout_s:
            raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")
        await asyncio.sleep(poll_s)
    return time.monotonic() - started


def wait_for_sync(
    predicate: Callable[[], bool], timeout_s: float = 10.0, what: str = "condition", poll_s: float = 0.02
) -> float:
    """Look again every ``poll_s`` until ``predicate`` holds; fail loudly after ``timeout_s``."""
    started = time.monotonic()
    while not predicate():
        if time.monotonic() - started > timeout_s:
            raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")
        time.sleep(poll_s)
    return time.monotonic() - started


async def _holds(predicate: Callable[[], Awaitable[bool] | bool]) -> bool:
    answer = predicate()
    return bool(await answer if inspect.isawaitable(answer) else answer)
