"""The one test clock: time that moves only when the test says so.

Callable (``clock()``, for code that takes ``clock=``) and with ``time()`` (for code that reads
``time.time`` through a patched module); the ``clock`` fixture in tests/conftest.py hands one out.
"""

from __future__ import annotations


class Clock:
    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def time(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
