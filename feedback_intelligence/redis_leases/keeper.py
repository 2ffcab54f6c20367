"""One keep-alive loop per holder: renews every lease it holds, a third of the lease time apart."""

from __future__ import annotations

import asyncio
import logging

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from feedback_intelligence.redis_leases.scripts import RENEW

log = logging.getLogger(__name__)


class LeaseKeeper:
    """Keeps the leases a process holds alive until they are dropped.

    ``hold`` after a lease was granted, ``drop`` before it is released. Renewal runs in one task that
    exists only while something is held. A renewal that fails (Redis away) is logged and retried on the
    next round; a lease found already lost is logged and forgotten. Neither is fatal to the work the
    lease covers: at worst another holder gets the place a little early.
    """

    def __init__(self, redis: aioredis.Redis, lease_ms: int, *, what: str) -> None:
        self.lease_ms = lease_ms
        self.what = what
        self._renew = redis.register_script(RENEW)
        self._held: set[tuple[str, str]] = set()  # (lease set key, lease id)
        self._task: asyncio.Task[None] | None = None

    def hold(self, key: str, lease_id: str) -> None:
        self._held.add((key, lease_id))
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._keep_alive(), name=f"{self.what}-renewer")

    def drop(self, key: str, lease_id: str) -> None:
        self._held.discard((key, lease_id))

    @property
    def held(self) -> int:
        return len(self._held)

    async def _keep_alive(self) -> None:
        while self._held:
            await asyncio.sleep(self.lease_ms / 3000)
            for key, lease_id in list(self._held):
                try:
                    renewed = await self._renew(keys=[key], args=[lease_id, self.lease_ms])
                except RedisError as exc:
                    log.warning("could not renew %s %s: %s", self.what, lease_id[:8], exc)
                    continue
                if not renewed:
                    log.warning("%s %s expired before renewal (Redis lag?)", self.what, lease_id[:8])
                    self._held.discard((key, lease_id))

    def stop(self) -> None:
        """Stop renewing without releasing anything: what a replica that died does."""
        if self._task is not None:
            self._task.cancel()

    async def aclose(self) -> None:
        # Forget the leases first: redis-py can swallow a cancel that lands inside a command, and the loop
        # then ends at its next turn instead of renewing forever.
        self._held.clear()
        self.stop()
        if self._task is not None:
            await asyncio.wait({self._task}, timeout=self.lease_ms / 3000 + 1.0)
