"""The background re-derivation pass: rows whose derived columns are missing (after migration 0005) or
were written by another derivation (a lexicon, guard or rule change) are re-derived, 500 a transaction,
in every replica at start-up (ADR 0024 section 2). ``feedctl rederive`` runs the same batches in the foreground.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from feedback_intelligence.instants.clock import SYSTEM_CLOCK, Clock
from feedback_intelligence.services.channels import Channel
from feedback_intelligence.store.errors import StoreUnavailable

log = logging.getLogger(__name__)

RETRY_S = 30.0  # a database that went away meanwhile: try again after this long


async def rederive_channels(
    channels: Sequence[Channel], *, retry_s: float = RETRY_S, clock: Clock = SYSTEM_CLOCK
) -> dict[str, int]:
    """Re-derive every stale row of each channel, pausing ``retry_s`` on ``clock`` while a database is away;
    returns rows re-derived per channel."""
    done: dict[str, int] = {}
    for channel in channels:
        while True:
            try:
                done[channel.name] = await channel.store.rederive_all()
                break
            except StoreUnavailable as exc:
                log.warning("re-derivation of %s paused: %s; again in %g s", channel.name, exc.detail, retry_s)
                await clock.sleep(retry_s)
        if done[channel.name]:
            log.info("re-derived %d %s row(s)", done[channel.name], channel.name)
    return done


class RederivePass:
    """The start-up pass as one background task, cancelled at shutdown."""

    def __init__(self, channels: Sequence[Channel], *, clock: Clock = SYSTEM_CLOCK) -> None:
        self.channels = list(channels)
        self.clock = clock
        self.task: asyncio.Task[dict[str, int]] | None = None

    def start(self) -> None:
        if self.task is None:
            self.task = asyncio.create_task(rederive_channels(self.channels, clock=self.clock), name="rederive")
            self.task.add_done_callback(_log_failure)

    async def stop(self) -> None:
        if self.task is not None and not self.task.done():
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)


def _log_failure(task: asyncio.Task[dict[str, int]]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("re-derivation pass failed", exc_info=task.exception())
