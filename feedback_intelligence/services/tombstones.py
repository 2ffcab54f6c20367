"""An erased id is refused by every channel, not only by the one it was erased in (ADR 0039).

The channels are two databases, so a tombstone is copied into each (``store/tombstones.py``): a save, a
batch or a COPY then asks its own database alone. Two moments write the copies:

- :func:`spread`, by an erasure, into the other channels *before* the erasure's own transaction: should
  that transaction then fail, the id is refused a moment early (and the retried erasure completes);
  the other order would let a re-import bring the item back in between;
- :func:`share`, at start-up, every channel's tombstones into every other channel: the erasures made
  before tombstones were shared, and a spread that an outage cut short.
"""

from __future__ import annotations

from collections.abc import Sequence

from feedback_intelligence.services.channels import Channel
from feedback_intelligence.store.tombstones import Tombstone


async def spread(channels: Sequence[Channel], tombstone: Tombstone) -> None:
    """Refuse ``tombstone``'s id in ``channels`` (the ones the item was not erased in)."""
    for channel in channels:
        await channel.store.add_tombstones([tombstone])


async def share(channels: Sequence[Channel]) -> int:
    """Give every channel the tombstones of all; returns how many copies it wrote."""
    held = {channel.name: await channel.store.list_tombstones() for channel in channels}
    written = 0
    for channel in channels:
        mine = {t.feedback_id for t in held[channel.name]}
        missing = {t.feedback_id: t for name, theirs in held.items() if name != channel.name for t in theirs}
        added = [t for feedback_id, t in sorted(missing.items()) if feedback_id not in mine]
        if added:
            await channel.store.add_tombstones(added)
            written += len(added)
    return written
