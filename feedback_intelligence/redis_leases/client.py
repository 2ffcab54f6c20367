"""The one way this project opens Redis: a client that reconnects when a pooled connection died.

After a Redis restart every pooled connection is dead, and redis-py (given a URL) does not retry by
default: the first command on each fails with "Connection closed by server" although Redis answers
again. That failure cost the gate a ``503 gate_unavailable`` and, on a release, leaked an in-flight
place until its lease ran out (ADR 0023). Here a command that fails on a connection error or timeout
is sent again on a fresh connection, twice at most, a few milliseconds apart, so a Redis that is up
answers and a Redis that is down still fails fast (the gate sheds, the edge fails open).

A retried command may run twice if only its reply was lost; every lease script is idempotent for
that reason (acquiring or releasing the same lease id twice holds or frees one place).
"""

from __future__ import annotations

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

RETRIES = 2
BACKOFF_BASE_S = 0.01
BACKOFF_CAP_S = 0.1


def connect(url: str, timeout_s: float) -> aioredis.Redis:
    """A client for ``url`` whose commands time out after ``timeout_s`` and survive a dead pooled connection."""
    return aioredis.from_url(
        url,
        socket_timeout=timeout_s,
        socket_connect_timeout=timeout_s,
        retry=Retry(ExponentialWithJitterBackoff(base=BACKOFF_BASE_S, cap=BACKOFF_CAP_S), RETRIES),
        retry_on_error=[RedisConnectionError, RedisTimeoutError],
    )
