"""The correction rollup (ADR 0065): saved proposals and corrected fields per day, store, backend, model and
field, kept equal to a rebuild through saves, a batch, erasure and a model's restructure; read by store."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, text

from feedback_intelligence.derivation import DomainDeriver
from feedback_intelligence.devtools.databases import postgres_database
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.records import Correction, Proposer, StoredFeedback, Structure
from feedback_intelligence.store import audit, rollups
from feedback_intelligence.store.feedback_store import FeedbackStore
from feedback_intelligence.store.schema import correction_daily
from tests.store.test_rollups import _upgrade_to
from tests.support.databases import migrated_url
from tests.support.kinds import DATABASE_KINDS

DOMAIN = load_domain("retail")
GPU = Proposer("gpu1", "qwen2.5:7b")


def at(day: int) -> str:
    return f"2026-11-{day:02d}T10:00:00.0000000+00:00"


def saved(n: int, day: int, fields: tuple[str, ...] = (), *, store: str | None = "s1", **kw: Any) -> StoredFeedback:
    return StoredFeedback(
        id=f"c{n:03d}",
        source="desk",
        text=f"maito oli vanhaa {n}",
        timestamp=at(day),
        created_at=at(day),
        structure=Structure("maito_kylma", "maito", "medium", "complaint", "fi", None),
        corrections=tuple(Correction(name, "x", "y") for name in fields) or None,
        store=store,
        proposal=kw.pop("proposal", GPU),
        **kw,
    )


@pytest.fixture(params=DATABASE_KINDS)
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[FeedbackStore]:
    if request.param == "sqlite":
        s = FeedbackStore(migrated_url(tmp_path), derive=DomainDeriver(DOMAIN))
        await s.migrate()
        yield s
        await s.aclose()
    else:
        async with postgres_database("fi_corrections") as url:
            s = FeedbackStore(url, derive=DomainDeriver(DOMAIN))
            await s.migrate()
            yield s
            await s.aclose()


async def kept(store: FeedbackStore) -> dict[tuple[Any, ...], int]:
    """The rollup's rows, asserted equal to what a rebuild from the rows makes."""
    async with store.engine.connect() as conn:
        await conn.begin()
        now = {tuple(r)[:-1]: int(r[-1]) for r in (await conn.execute(select(correction_daily))).all()}
        await rollups.rebuild(conn)
        again = {tuple(r)[:-1]: int(r[-1]) for r in (await conn.execute(select(correction_daily))).all()}
        await conn.rollback()
    assert now == again
    return now


async def totals(store: FeedbackStore, stores: list[str] | None = None) -> dict[tuple[str | None, str, str], int]:
    tallies = await store.correction_tallies(by_day=False, stores=stores)
    return {(t.store, t.backend, t.field): t.items for t in tallies}


async def test_saves_erasure_and_a_model_restructure_keep_the_rollup_equal_to_a_rebuild(store: FeedbackStore) -> None:
    await store.insert(saved(1, 2, ("category", "theme")))
    await store.insert(saved(2, 2, ("theme",)))
    await store.insert(saved(3, 3))
    await store.insert(saved(4, 3, ("category",), store="s2", proposal=Proposer("unknown", "unknown")))
    await store.insert(saved(5, 3, proposal=None))  # no proposal saved (an import): not counted
    await store.insert_batch([saved(n, 4, ("severity",)) for n in range(10, 14)])
    await kept(store)
    assert await totals(store) == {
        ("s1", "gpu1", ""): 7,
        ("s1", "gpu1", "category"): 1,
        ("s1", "gpu1", "theme"): 2,
        ("s1", "gpu1", "severity"): 4,
        ("s2", "unknown", ""): 1,
        ("s2", "unknown", "category"): 1,
    }
    assert await totals(store, ["s2"]) == {("s2", "unknown", ""): 1, ("s2", "unknown", "category"): 1}
    by_day = await store.correction_tallies("2026-11-02", "2026-11-02", stores=["s1"])
    assert {(t.day, t.field): t.items for t in by_day} == {
        ("2026-11-02", ""): 2,
        ("2026-11-02", "category"): 1,
        ("2026-11-02", "theme"): 2,
    }

    entry = audit.AuditEntry(at(30), "e1", "operator", None, None, "item.erase", "c001")
    assert await store.erase("c001", entry, expected_revision=None)
    # a model's structure replaces the person's: the entry no longer counts as a saved proposal
    failed = {"structure_failed": False, "salvage_notes": [], "needs_review": False, "review_flags": []}
    await store.update_structure("c002", Structure("hevi", "kuitti", "low", "praise", "fi", None), **failed)
    rows = await kept(store)
    assert await totals(store, ["s1"]) == {("s1", "gpu1", ""): 5, ("s1", "gpu1", "severity"): 4}
    assert not any(key[0] == "2026-11-02" for key in rows), "a day its last entries left keeps no row"
    got = await store.get("c003")
    assert got is not None and got.proposal == GPU


async def test_migration_0021_counts_the_desks_earlier_saves_as_unknown(tmp_path: Path) -> None:
    store = FeedbackStore(f"sqlite+aiosqlite:///{tmp_path / 'old.db'}")
    try:
        async with store.engine.begin() as conn:
            await conn.run_sync(_upgrade_to, "0020")
            insert = (
                "INSERT INTO feedback (id, source, text, timestamp, created_at, structure_json, model_failed, "
                "structure_due, store, corrected_fields) VALUES (:id, :source, 'x', :ts, :ts, :s, :failed, false, "
                "'s1', :fields)"
            )
            rows = [
                ("d1", "desk", "{}", False, ",category,"),  # a desk save with a corrected category
                ("d2", "desk", "{}", False, None),  # a desk save as proposed
                ("d3", "desk", "{}", True, None),  # typed by hand: no proposal
                ("d4", "email", "{}", False, None),  # not the desk
            ]
            for i, source, s, failed, fields in rows:
                params = {"id": i, "source": source, "ts": at(5), "s": s, "failed": failed, "fields": fields}
                await conn.execute(text(insert), params)
        await store.migrate()
        assert await totals(store) == {("s1", "unknown", ""): 2, ("s1", "unknown", "category"): 1}
    finally:
        await store.aclose()
