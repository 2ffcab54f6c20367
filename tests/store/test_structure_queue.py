"""The structure-later queue in the store: leases, expiry and takeover, conditional finish, backlog.

On SQLite and PostgreSQL; two stores on one database stand for two replicas.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from feedback_intelligence.devtools.databases import postgres_database
from feedback_intelligence.instants.clock import now_ms
from feedback_intelligence.records import StoredFeedback
from feedback_intelligence.store.feedback_store import FeedbackStore
from feedback_intelligence.store.structure_queue import StructureQueue
from tests.support.databases import migrated_url
from tests.support.kinds import DATABASE_KINDS
from tests.support.later_rows import MODEL, PROPOSAL, later


@pytest.fixture(params=DATABASE_KINDS)
async def url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    if request.param == "sqlite":
        yield migrated_url(tmp_path)
    else:
        async with postgres_database() as pg_url:
            yield pg_url


@pytest.fixture
async def stores(url: str) -> AsyncIterator[tuple[FeedbackStore, FeedbackStore]]:
    first, second = FeedbackStore(url, name="live"), FeedbackStore(url, name="live")
    await first.migrate()
    yield first, second
    await first.aclose()
    await second.aclose()


async def test_a_pending_row_is_claimed_once_finished_once_and_ticks_the_version(
    stores: tuple[FeedbackStore, FeedbackStore],
) -> None:
    store, _ = stores
    await store.insert(later("a", 1), bump="version")
    await store.insert(
        StoredFeedback(
            id="settled",
            source="desk",
            text="t",
            timestamp="2026-11-30T10:00:00.0000000+00:00",
            created_at="2026-11-30T10:00:00.0000000+00:00",
            structure=MODEL,
        )
    )
    queue = StructureQueue(store)
    assert (await queue.backlog()).items == 1

    claim = await queue.claim("w1", lease_s=30)
    assert claim is not None and claim.item.id == "a" and claim.item.pending and claim.item.structure_attempts == 1
    assert await queue.claim("w2", lease_s=30) is None  # held: nobody else gets it
    version_before = await store.read_counter()

    assert (
        await queue.finish(claim, MODEL, structure_failed=False, salvage_notes=[], needs_review=False, review_flags=[])
        == version_before + 1
    )
    row = await store.get("a")
    assert row is not None and not row.pending and row.structure == MODEL and row.to_json()["pending"] is False
    assert (
        await queue.finish(
            claim, PROPOSAL, structure_failed=True, salvage_notes=["late"], needs_review=False, review_flags=[]
        )
        is None
    )  # settled: a second finish changes nothing
    assert (await store.get("a")) == row
    assert (await queue.backlog()).items == 0


async def test_claims_go_oldest_first(stores: tuple[FeedbackStore, FeedbackStore]) -> None:
    store, _ = stores
    for id_, created in (("newer", 5), ("oldest", 1), ("middle", 3)):
        await store.insert(later(id_, created))
    queue = StructureQueue(store)
    claimed = [(await queue.claim(f"w{i}", lease_s=30)) for i in range(3)]
    assert [c.item.id for c in claimed if c] == ["oldest", "middle", "newer"]
    backlog = await queue.backlog()
    assert backlog.items == 3 and backlog.oldest_created_at == "2026-11-30T10:00:01.0000000+00:00"


async def test_a_lapsed_lease_is_taken_over_and_the_old_holder_can_no_longer_write(
    stores: tuple[FeedbackStore, FeedbackStore],
) -> None:
    first, second = stores
    await first.insert(later("a", 1))
    dead, alive = StructureQueue(first), StructureQueue(second)
    lost = await dead.claim("dead-replica", lease_s=30)
    assert lost is not None
    assert await alive.claim("alive", lease_s=30) is None
    # 31 s later (the holder died and stopped renewing) the other replica may claim it.
    taken = await alive.claim("alive", lease_s=30, at_ms=now_ms() + 31_000)
    assert taken is not None and taken.item.id == "a" and taken.item.structure_attempts == 2
    assert await dead.renew(lost, 30) is None
    assert (
        await dead.finish(lost, PROPOSAL, structure_failed=True, salvage_notes=[], needs_review=False, review_flags=[])
        is None
    )
    assert (
        await alive.finish(taken, MODEL, structure_failed=False, salvage_notes=[], needs_review=False, review_flags=[])
        is not None
    )
    row = await first.get("a")
    assert row is not None and row.structure == MODEL and not row.structure_failed


async def test_release_refunds_a_shed_and_delays_a_failure(stores: tuple[FeedbackStore, FeedbackStore]) -> None:
    store, _ = stores
    await store.insert(later("a", 1))
    queue = StructureQueue(store)
    claim = await queue.claim("w", lease_s=30)
    assert claim is not None
    assert await queue.release(claim, retry_in_s=0, refund_attempt=True)
    again = await queue.claim("w", lease_s=30, at_ms=now_ms() + 1)
    assert again is not None and again.item.structure_attempts == 1  # the shed did not count

    assert await queue.release(again, retry_in_s=60, refund_attempt=False)
    assert await queue.claim("w", lease_s=30) is None  # backing off
    third = await queue.claim("w", lease_s=30, at_ms=now_ms() + 61_000)
    assert third is not None and third.item.structure_attempts == 2


async def test_an_operator_restructure_settles_a_pending_row_and_voids_the_lease(
    stores: tuple[FeedbackStore, FeedbackStore],
) -> None:
    store, _ = stores
    await store.insert(later("a", 1))
    queue = StructureQueue(store)
    claim = await queue.claim("w", lease_s=30)
    assert claim is not None
    await store.update_structure(
        "a", MODEL, structure_failed=False, salvage_notes=[], needs_review=False, review_flags=[]
    )
    assert (
        await queue.finish(
            claim, PROPOSAL, structure_failed=True, salvage_notes=[], needs_review=False, review_flags=[]
        )
        is None
    )
    row = await store.get("a")
    assert row is not None and row.structure == MODEL and not row.pending


async def test_concurrent_claimers_on_two_stores_never_share_a_row(
    stores: tuple[FeedbackStore, FeedbackStore],
) -> None:
    first, second = stores
    for i in range(30):
        await first.insert(later(f"r{i:02d}", i))
    queues = [StructureQueue(first), StructureQueue(second)]
    taken: list[str] = []

    async def claimer(n: int) -> None:
        queue = queues[n % 2]
        while (claim := await queue.claim(f"w{n}-{uuid.uuid4().hex}", lease_s=30)) is not None:
            taken.append(claim.item.id)
            await asyncio.sleep(0)

    await asyncio.gather(*(claimer(n) for n in range(6)))
    assert sorted(taken) == [f"r{i:02d}" for i in range(30)]  # every row, each exactly once
