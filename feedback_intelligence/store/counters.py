"""Named counters in the channel database; ``version`` moves with every change a report could show, so
caches (the report's, the live view's) key on it, across restarts and replicas."""

from __future__ import annotations

from sqlalchemy import insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from feedback_intelligence.store.schema import counters

VERSION_COUNTER = "version"


async def bump(conn: AsyncConnection, name: str) -> int:
    """Increment a named counter inside the caller's transaction (created at 1 on first use), so the
    change and the tick that announces it commit together; returns the new value."""
    increment = update(counters).where(counters.c.name == name).values(value=counters.c.value + 1)
    if (await conn.execute(increment)).rowcount == 0:
        try:
            async with conn.begin_nested():
                await conn.execute(insert(counters).values(name=name, value=1))
        except IntegrityError:  # another writer created it meanwhile
            await conn.execute(increment)
    return await read(conn, name)


async def read(conn: AsyncConnection, name: str) -> int:
    """The counter's value (0 before its first bump)."""
    return int(await conn.scalar(select(counters.c.value).where(counters.c.name == name)) or 0)
