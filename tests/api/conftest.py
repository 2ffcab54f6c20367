"""Fixtures of the API tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
import pytest_asyncio

from feedback_intelligence.devtools.databases import postgres_database
from tests.support.kinds import DATABASE_KINDS


@asynccontextmanager
async def channel_databases(kind: str) -> AsyncIterator[dict[str, str]]:
    """The app's two channel databases: its SQLite defaults under the settings' folder, or two fresh
    PostgreSQL databases of their own (uniquely named, dropped afterwards)."""
    if kind == "sqlite":
        yield {}
        return
    async with postgres_database("fi_import") as corpus, postgres_database("fi_import") as live:
        yield {"database_url": corpus, "live_database_url": live}


@pytest.fixture(params=DATABASE_KINDS)
async def databases(request: pytest.FixtureRequest) -> AsyncIterator[dict[str, str]]:
    async with channel_databases(request.param) as urls:
        yield urls


@pytest_asyncio.fixture(scope="module", loop_scope="module", params=DATABASE_KINDS)
async def module_databases(request: pytest.FixtureRequest) -> AsyncIterator[dict[str, str]]:
    """As ``databases``, shared by a module's tests that only read (their fixture is module-scoped too)."""
    async with channel_databases(request.param) as urls:
        yield urls
