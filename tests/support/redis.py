"""The shared Redis of the test machine (127.0.0.1:6379, used by every helper's suite at once): its
URL, a client fixture (tests/conftest.py) and names no other test run can collide with."""

from __future__ import annotations

import uuid

REDIS_URL = "redis://127.0.0.1:6379/0"


def unique_name(prefix: str) -> str:
    """A key prefix or gate name of this test alone: the Redis is shared by concurrent runs."""
    return f"{prefix}-{uuid.uuid4().hex[:12]}"
