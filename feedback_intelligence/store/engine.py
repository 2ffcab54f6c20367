"""How a store reaches its database: the engine, its pool and timeouts, SQLite's pragmas.

One engine per channel database, made here and nowhere else, so every store class over that database
(the feedback rows, the outbox, the structure queue, the accounts) shares its pool and its settings.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

#: A PostgreSQL that does not answer must not hold a request for asyncpg's default minute.
CONNECT_TIMEOUT_S = 5.0
#: A statement on a connection whose server went silent (no RST) gives up after this long.
COMMAND_TIMEOUT_S = 30.0


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")  # readers never block the writer
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA secure_delete=ON")  # an erased item's bytes are overwritten, not left in free pages
    cursor.close()


def create_engine_for(url: str, *, command_timeout_s: float | None = COMMAND_TIMEOUT_S) -> AsyncEngine:
    """The engine of a store. ``hide_parameters``: a failed statement's exception (and so a logged
    traceback) names the statement, never its values (a customer's text, a search's words).
    ``command_timeout_s=None`` (PostgreSQL): no limit on a statement, for migrations that build an index
    over a chain's table for minutes."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = create_async_engine(url, hide_parameters=True)
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        return engine
    return create_async_engine(
        url,
        hide_parameters=True,
        pool_size=10,
        max_overflow=10,
        pool_pre_ping=True,
        pool_timeout=10,
        connect_args={
            "timeout": CONNECT_TIMEOUT_S,
            "command_timeout": command_timeout_s,
            # asyncpg prepares every statement; after five runs PostgreSQL may keep a generic plan made
            # without the values, and our filters are skewed (a window of all time or of an hour, a word in
            # a sixth of the rows or in a hundred): the search's generic plan joined the whole timestamp
            # index to the trigram hits, 10-25x slower (bench/search_scale, ADR 0066). Plan each run.
            "server_settings": {"plan_cache_mode": "force_custom_plan"},
        },
    )
