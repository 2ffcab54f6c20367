"""Throwaway databases for tests and benchmarks: a SQLite file URL, or fresh databases on the local
PostgreSQL (``FI_PG_ADMIN_DSN``, default the trust-auth server on 127.0.0.1:5432)."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

PG_ADMIN_DSN = os.environ.get("FI_PG_ADMIN_DSN", "postgresql://postgres@127.0.0.1:5432/test")


@asynccontextmanager
async def postgres_database(prefix: str = "fi_test") -> AsyncIterator[str]:
    """Create a uniquely named database, yield its SQLAlchemy URL, drop it afterwards."""
    import asyncpg

    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(PG_ADMIN_DSN)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    server = PG_ADMIN_DSN.split("://", 1)[1].rsplit("/", 1)[0]
    try:
        yield f"postgresql+asyncpg://{server}/{name}"
    finally:
        admin = await asyncpg.connect(PG_ADMIN_DSN)
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()


@contextmanager
def postgres_pair(prefix: str = "fi_test") -> Iterator[tuple[str, str]]:
    """Two fresh databases (corpus, live) for synchronous callers such as process-level tests."""
    with asyncio.Runner() as runner:
        corpus, live = postgres_database(prefix), postgres_database(prefix)
        urls = (runner.run(corpus.__aenter__()), runner.run(live.__aenter__()))
        try:
            yield urls
        finally:
            runner.run(live.__aexit__(None, None, None))
            runner.run(corpus.__aexit__(None, None, None))


def sqlite_url(directory: Path, name: str = "feedback.db") -> str:
    return f"sqlite+aiosqlite:///{directory / name}"
