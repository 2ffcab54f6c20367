"""A channel is one feedback store with its own change counter: the corpus, or the clerks' live desk.

The counter lives in the channel's database, so it survives restarts (the reference resets it to 0)
and every replica sharing the database sees the same value: it is both ``/live/version`` and the
epoch that invalidates cached reports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from feedback_intelligence.records import StoredFeedback
from feedback_intelligence.store.audit import AuditEntry
from feedback_intelligence.store.counters import VERSION_COUNTER
from feedback_intelligence.store.derived_rows import ReadyRows
from feedback_intelligence.store.feedback_store import FeedbackStore, SaveHook

CORPUS = "corpus"
LIVE = "live"
INBOX = "inbox"  # not a database: the management view's report over both channels (ADR 0034)


@dataclass
class Channel:
    name: str
    store: FeedbackStore
    on_save: SaveHook | None = None  # what commits with a new row: its case and notifications (alert_intake)
    after_save: Callable[[], None] | None = None  # after the commit: wake this replica's notify worker

    async def version(self) -> int:
        return await self.store.read_counter()

    async def insert(self, record: StoredFeedback) -> int:
        """Store a new row and move the version in one transaction; returns the new version."""
        version = await self.store.insert(record, bump=VERSION_COUNTER, also=self.on_save)
        assert version is not None
        if self.after_save is not None:
            self.after_save()
        return version

    async def insert_batch(
        self, records: list[StoredFeedback], *, history: bool = False, ready: ReadyRows | None = None
    ) -> set[str]:
        """Store new rows in one transaction, skipping taken ids, each stored row with what commits with it
        (``on_save``, as a single insert); the version moves once when any landed. Returns the ids stored.
        ``history``: a backfill, whose rows start nothing (no case, no notification; ADR 0059). ``ready``:
        the records' rows made in a worker process (``FeedbackStore.insert_batch``)."""
        also = None if history else self.on_save
        inserted = await self.store.insert_batch(records, bump=VERSION_COUNTER, also=also, ready=ready)
        if inserted and self.after_save is not None:
            self.after_save()
        return inserted

    async def correct(
        self, feedback_id: str, values: dict[str, Any], *, expected_revision: int | None, entries: list[AuditEntry]
    ) -> int | None:
        """Write a correction with its audit rows; a correction is a save (ADR 0041): the corrected row goes
        through ``on_save`` in the same transaction, as a new row does. Returns the new revision, None when
        the row is gone (``FeedbackStore.correct``)."""
        revision = await self.store.correct(
            feedback_id, values, expected_revision=expected_revision, entries=entries, also=self.on_save
        )
        if revision is not None and self.after_save is not None:
            self.after_save()
        return revision

    async def changed(self) -> int:
        """Record that the channel's data changed; returns the new version."""
        return await self.store.bump_counter()


class ChannelEpochs:
    """The channel's change counter seen as the report cache's epoch (shared, persistent)."""

    def __init__(self, channel: Channel) -> None:
        self.channel = channel

    async def current(self) -> int:
        return await self.channel.version()

    async def bump(self) -> int:
        return await self.channel.changed()


class InboxEpochs:
    """The inbox's data version: the sum of its channels' counters. Each only grows, so the sum moves on
    every change of either, and a cached inbox report never outlives a desk save or an import."""

    def __init__(self, channels: list[Channel]) -> None:
        self.channels = channels

    async def current(self) -> int:
        return sum([await channel.version() for channel in self.channels])

    async def bump(self) -> int:
        await self.channels[0].changed()  # any one tick moves the sum
        return await self.current()
