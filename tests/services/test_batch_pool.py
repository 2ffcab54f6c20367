"""The batch pool's worker processes (services/batch_pool.py, docs/adr/0074): the same batches stored
through the pool and in the service's own thread leave the same bytes in every table; a worker killed
before or during a batch loses none of it."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sqlite3
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from feedback_intelligence.derivation import DomainDeriver
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.instants.clock import ManualClock
from feedback_intelligence.services.batch_pool import BatchPool
from feedback_intelligence.services.batch_work import WORKER_NICENESS
from feedback_intelligence.services.channels import CORPUS, Channel
from feedback_intelligence.services.ingest import IngestService
from feedback_intelligence.store.feedback_store import FeedbackStore
from tests.services.batches import eval_and_demo_batch
from tests.support.databases import migrated_url

pytestmark = pytest.mark.process

TABLES = ("feedback", "feedback_alerts", "feedback_daily", "theme_daily", "feedback_hourly")


@pytest.fixture
async def pool(retail: Domain) -> AsyncIterator[BatchPool]:
    made = BatchPool(retail, 2)
    yield made
    await made.aclose()


async def _channel(tmp_path: Path, name: str, domain: Domain) -> Channel:
    store = FeedbackStore(migrated_url(tmp_path, name), name=CORPUS, derive=DomainDeriver(domain))
    await store.migrate()
    return Channel(CORPUS, store)


def _dump(path: Path) -> dict[str, list[tuple[object, ...]]]:
    with sqlite3.connect(path) as db:
        return {table: db.execute(f"SELECT * FROM {table} ORDER BY 1, 2, 3").fetchall() for table in TABLES}


async def test_the_pool_stores_every_byte_the_service_thread_stores(
    retail: Domain, tmp_path: Path, pool: BatchPool
) -> None:
    batch = eval_and_demo_batch(retail, "b")
    later = [replace(c, id=f"h{c.id}") for c in batch if c.structure_later][:150]  # the rules' structure is final
    results = {}
    for name, service_pool in (("thread.db", None), ("pool.db", pool)):
        channel = await _channel(tmp_path, name, retail)
        service = IngestService(retail, None, clock=ManualClock(), pool=service_pool)  # type: ignore[arg-type]
        try:
            outcomes = await service.ingest_batch(channel, batch)
            outcomes += await service.ingest_batch(channel, later, history=True, by_model=False)
        finally:
            await channel.store.aclose()
        results[name] = ([(o.record, o.result) for o in outcomes], _dump(tmp_path / name))

    (thread_outcomes, thread_rows), (pool_outcomes, pool_rows) = results["thread.db"], results["pool.db"]
    assert len(pool.worker_pids()) == 2  # the batch was split over both
    own = os.getpriority(os.PRIO_PROCESS, 0)
    assert {os.getpriority(os.PRIO_PROCESS, pid) for pid in pool.worker_pids()} == {min(19, own + WORKER_NICENESS)}
    assert pool_outcomes == thread_outcomes
    assert [result for _, result in pool_outcomes[: len(batch)]].count("duplicate") == 2
    for table in TABLES:
        assert pool_rows[table] == thread_rows[table], table
    assert len(pool_rows["feedback"]) == sum(result == "stored" for _, result in pool_outcomes) > len(batch)
    assert len(pool_rows["feedback_alerts"]) > 20


async def test_a_killed_worker_loses_no_batch(
    retail: Domain, tmp_path: Path, pool: BatchPool, caplog: pytest.LogCaptureFixture
) -> None:
    channel = await _channel(tmp_path, "kill.db", retail)
    service = IngestService(retail, None, pool=pool)  # type: ignore[arg-type]
    batch = [replace(c, structure_later=True, accepted_structure=None) for c in eval_and_demo_batch(retail, "k")]
    sent: set[str] = set()

    async def store(size: int) -> None:
        part = [replace(c, id=f"{len(sent)}-{c.id}") for c in batch[:size]]
        sent.update(c.id for c in part)
        outcomes = await service.ingest_batch(channel, part)
        assert [o.result for o in outcomes].count("stored") == len({c.id for c in part})

    try:
        await store(250)  # starts the workers
        first = pool.worker_pids()
        for pid in first:  # killed between batches
            os.kill(pid, signal.SIGKILL)
        with caplog.at_level(logging.WARNING, logger="feedback_intelligence.services.batch_pool"):
            await store(250)
            assert "a batch worker died" in caplog.text
            caplog.clear()

            await store(250)  # a new pool
            second = pool.worker_pids()
            assert second and not set(second) & set(first)
            assert not caplog.text

            during = asyncio.create_task(store(len(batch)))  # ~0.5 s of rules a worker
            await asyncio.sleep(0.15)
            os.kill(second[0], signal.SIGKILL)  # killed in the middle of its part
            await during
            assert "a batch worker died" in caplog.text
        assert await channel.store.count() == len(sent)
        assert await channel.store.stale_count() == 0  # every row with its derived columns
    finally:
        await channel.store.aclose()
