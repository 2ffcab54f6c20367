"""Synchronise tests on observable state, with a bounded deadline (never a fixed sleep)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable


async def until(predicate: Callable[[], Awaitable[bool]], timeout_s: float = 5.0, what: str = "condition") -> None:
    """Yield to the loop until ``predicate`` holds; fail loudly after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while not await predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")
        await asyncio.sleep(0.001)
