"""``feedctl rederive``: stale rows of both channel databases get their derived columns, in a real process."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from feedback_intelligence.derivation import DomainDeriver
from feedback_intelligence.devtools.databases import sqlite_url
from feedback_intelligence.devtools.processes import REPO
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.records import StoredFeedback, Structure
from feedback_intelligence.store.feedback_store import FeedbackStore

pytestmark = pytest.mark.process  # starts a real feedctl

TS = "2026-11-01T08:00:00.0000000+00:00"


async def _fill(url: str, n: int) -> None:
    bare = FeedbackStore(url)  # no deriver: rows as they stand after migration 0005
    await bare.migrate()
    for k in range(n):
        structure = Structure("hevi", "mansikat", "low", "complaint", "fi")
        await bare.insert(StoredFeedback(f"r{k}", "desk", "Homeiset mansikat", TS, TS, structure))
    await bare.aclose()


async def _stale(url: str) -> int:
    store = FeedbackStore(url, derive=DomainDeriver(load_domain("retail")))
    try:
        return await store.stale_count()
    finally:
        await store.aclose()


def test_rederive_writes_every_stale_row_of_both_channels(tmp_path: Path) -> None:
    corpus, live = sqlite_url(tmp_path, "corpus.db"), sqlite_url(tmp_path, "live.db")
    asyncio.run(_fill(corpus, 3))
    asyncio.run(_fill(live, 2))
    assert asyncio.run(_stale(corpus)) == 3
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "FI_DATABASE_URL": corpus,
        "FI_LIVE_DATABASE_URL": live,
        "FI_DOMAIN": "retail",
    }
    result = subprocess.run(
        [sys.executable, "-m", "feedback_intelligence", "rederive", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"rederived": {"live": 2, "corpus": 3}}
    assert asyncio.run(_stale(corpus)) == 0 and asyncio.run(_stale(live)) == 0


async def _tamper_and_count(url: str) -> tuple[int, int]:
    """Rows written past the service (a COPY load, a restore): the rollups no longer count them."""
    from sqlalchemy import func, select, text

    from feedback_intelligence.store.schema import feedback_daily

    store = FeedbackStore(url)
    try:
        async with store.engine.begin() as conn:
            await conn.execute(text("DELETE FROM feedback_daily"))
        async with store.engine.connect() as conn:
            before = int(await conn.scalar(select(func.coalesce(func.sum(feedback_daily.c["items"]), 0))) or 0)
        return before, await store.count()
    finally:
        await store.aclose()


async def _counted(url: str) -> int:
    from sqlalchemy import func, select

    from feedback_intelligence.store.schema import feedback_daily

    store = FeedbackStore(url)
    try:
        async with store.engine.connect() as conn:
            return int(await conn.scalar(select(func.sum(feedback_daily.c["items"]))) or 0)
    finally:
        await store.aclose()


def test_rollups_rebuild_counts_rows_written_past_the_service_again(tmp_path: Path) -> None:
    corpus, live = sqlite_url(tmp_path, "corpus.db"), sqlite_url(tmp_path, "live.db")
    asyncio.run(_fill(corpus, 4))
    asyncio.run(_fill(live, 1))
    assert asyncio.run(_tamper_and_count(corpus)) == (0, 4)
    env = {**os.environ, "PYTHONPATH": str(REPO), "FI_DATABASE_URL": corpus, "FI_LIVE_DATABASE_URL": live}
    result = subprocess.run(
        [sys.executable, "-m", "feedback_intelligence", "rollups", "rebuild", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    rebuilt = json.loads(result.stdout)["rebuilt"]
    assert rebuilt["corpus"]["feedback_daily"] == 1  # four rows of one day and one key
    assert asyncio.run(_counted(corpus)) == 4 and asyncio.run(_counted(live)) == 1
