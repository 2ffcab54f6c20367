"""A channel is one feedback store with its own change counter: the corpus, or the clerks' live desk.

The counter lives in the channel's database, so it survives restarts (the reference resets it to 0)
and every replica sharing the database sees the same value: it is both ``/live/version`` and the
epoch that invalidates cached reports.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from feedback_intelligence.store.feedback_store import FeedbackStore

CORPUS = "corpus"
LIVE = "live"


@dataclass
class Channel:
    name: str
    store: FeedbackStore
    _listeners: list[Callable[[int], Awaitable[None]]] = field(default_factory=list)

    async def version(self) -> int:
        return await self.store.read_counter()

    async def changed(self) -> int:
        """Record that the channel's data changed; returns the new version."""
        version = await self.store.bump_counter()
        for listener in self._listeners:
            await listener(version)
        return version

    def on_change(self, listener: Callable[[int], Awaitable[None]]) -> None:
        self._listeners.append(listener)


class ChannelEpochs:
    """The channel's change counter seen as the report cache's epoch (shared, persistent)."""

    def __init__(self, channel: Channel) -> None:
        self.channel = channel

    async def current(self) -> int:
        return await self.channel.version()

    async def bump(self) -> int:
        return await self.channel.changed()
