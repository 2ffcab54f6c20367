"""Throwaway databases: a SQLite file in a temp dir, or a fresh database on the local PostgreSQL."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import asyncpg

PG_ADMIN_DSN = "postgresql://postgres@127.0.0.1:5432/test"


@asynccontextmanager
async def postgres_database() -> AsyncIterator[str]:
    """Create a uniquely named database, yield its SQLAlchemy URL, drop it afterwards."""
    name = f"fi_test_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(PG_ADMIN_DSN)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    try:
        yield f"postgresql+asyncpg://postgres@127.0.0.1:5432/{name}"
    finally:
        admin = await asyncpg.connect(PG_ADMIN_DSN)
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()


def sqlite_url(directory: Path, name: str = "feedback.db") -> str:
    return f"sqlite+aiosqlite:///{directory / name}"
