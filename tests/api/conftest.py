"""Fixtures of the API tests."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from feedback_intelligence.devtools.databases import postgres_database


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def databases(request: pytest.FixtureRequest) -> AsyncIterator[dict[str, str]]:
    """The app's two channel databases: its SQLite defaults under the test's folder, or two fresh
    PostgreSQL databases of their own (uniquely named, dropped afterwards)."""
    if request.param == "sqlite":
        yield {}
        return
    async with postgres_database("fi_import") as corpus, postgres_database("fi_import") as live:
        yield {"database_url": corpus, "live_database_url": live}
