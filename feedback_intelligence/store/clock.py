"""The store's clock: whole milliseconds since the epoch, the unit of every ``*_ms`` column (a lease's
expiry, an outbox row's next attempt, a session's last sight)."""

from __future__ import annotations

import time


def now_ms() -> int:
    return int(time.time() * 1000)
