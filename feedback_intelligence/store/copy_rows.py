"""A batch of new feedback rows into PostgreSQL by COPY (docs/adr/0037).

The rows are copied (binary, asyncpg's ``copy_records_to_table``) into a temporary table of the
connection, then moved with one ``INSERT … SELECT … ON CONFLICT (id) DO NOTHING RETURNING id`` that also
skips an erased id: the same outcome as ``INSERT … VALUES`` pages, for a third of PostgreSQL's CPU and
about half the wall time (benchmarks.md, "Bulk import"). All of it runs inside the caller's transaction,
on its connection.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from feedback_intelligence.store.schema import erased_items, feedback, feedback_alerts

#: The temporary table is the connection's, kept between transactions and emptied at each commit. Its
#: name carries the shape of ``feedback`` it was made from, so a pooled connection that outlived a
#: migration makes a new one instead of copying into the old shape.
_STAGING = f"feedback_in_{zlib.crc32(' '.join(c.name for c in feedback.columns).encode()):08x}"


async def _copy(conn: AsyncConnection, table: str, columns: list[str], rows: Sequence[Mapping[str, Any]]) -> None:
    """COPY through asyncpg's own connection under SQLAlchemy's. The caller has run a statement through
    ``conn`` first: SQLAlchemy opens its transaction at the first statement, and a COPY before it would
    run (and commit) on its own."""
    driver = (await conn.get_raw_connection()).driver_connection
    assert driver is not None  # a connection in a transaction is checked out
    await driver.copy_records_to_table(table, records=[tuple(row[c] for c in columns) for row in rows], columns=columns)


async def insert_new(conn: AsyncConnection, rows: Sequence[Mapping[str, Any]]) -> set[str]:
    """Insert ``rows`` (every row with the same columns) whose id is neither taken nor erased; returns the
    ids inserted. Columns a row leaves out take their server defaults, as in an ``INSERT``."""
    if not rows:
        return set()
    columns = list(rows[0])
    await conn.exec_driver_sql(
        f"CREATE TEMP TABLE IF NOT EXISTS {_STAGING} (LIKE {feedback.name} INCLUDING DEFAULTS) ON COMMIT DELETE ROWS"
    )
    await _copy(conn, _STAGING, columns, rows)
    names = ", ".join(f'"{c}"' for c in columns)
    inserted = await conn.exec_driver_sql(
        f"INSERT INTO {feedback.name} ({names}) SELECT {names} FROM {_STAGING} s "
        f"WHERE NOT EXISTS (SELECT 1 FROM {erased_items.name} e WHERE e.feedback_id = s.id) "
        "ON CONFLICT (id) DO NOTHING RETURNING id"
    )
    ids = {row.id for row in inserted}
    # the next batch of this transaction starts empty; the commit truncates (autovacuum skips temporary tables)
    await conn.exec_driver_sql(f"DELETE FROM {_STAGING}")
    return ids


async def insert_alert_rows(conn: AsyncConnection, rows: Sequence[Mapping[str, Any]]) -> None:
    """The alert child rows of items this transaction has just inserted (none of them can exist yet), after
    ``insert_new`` in the same transaction."""
    if rows:
        await _copy(conn, feedback_alerts.name, [c.name for c in feedback_alerts.columns], rows)
