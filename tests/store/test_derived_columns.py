"""Every write of a record writes its derived columns in the same transaction; stale rows are re-derived.

On SQLite and PostgreSQL. The paths: insert, ``update_structure`` (restructure), ``update_alerts``, the
structuring worker's ``finish``; then the re-derivation pass over rows written without a deriver (as
after migration 0005) and over rows of an older derivation.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from feedback_intelligence.derivation import DomainDeriver, derive
from feedback_intelligence.devtools.databases import postgres_database
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.records import AlertHit, StoredFeedback, Structure
from feedback_intelligence.store.feedback_store import FeedbackStore
from feedback_intelligence.store.schema import feedback, feedback_alerts
from feedback_intelligence.store.structure_queue import StructureQueue
from tests.support.databases import migrated_url
from tests.support.kinds import DATABASE_KINDS

DOMAIN = load_domain("retail")
TS = "2026-11-01T08:00:00.0000000+00:00"
TEXT = "Asiakas liukastui kassalla, maito oli myös hapanta"
HIT = AlertHit("injury_safety", "liukastu")


@pytest.fixture(params=DATABASE_KINDS)
async def url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    if request.param == "sqlite":
        yield migrated_url(tmp_path)
    else:
        async with postgres_database("fi_chain") as pg_url:
            yield pg_url


@pytest.fixture
async def store(url: str) -> AsyncIterator[FeedbackStore]:
    s = FeedbackStore(url, name="live", derive=DomainDeriver(DOMAIN))
    await s.migrate()
    yield s
    await s.aclose()


def record(id_: str, structure: Structure | None, **kw: Any) -> StoredFeedback:
    return StoredFeedback(id=id_, source="desk", text=TEXT, timestamp=TS, created_at=TS, structure=structure, **kw)


async def stored(store: FeedbackStore, feedback_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    async with store.engine.connect() as conn:
        row = (await conn.execute(select(feedback).where(feedback.c.id == feedback_id))).mappings().one()
        hits = (
            await conn.execute(
                select(feedback_alerts).where(feedback_alerts.c.feedback_id == feedback_id).order_by("seq")
            )
        ).mappings()
        return dict(row), [dict(h) for h in hits]


async def assert_current(store: FeedbackStore, feedback_id: str) -> None:
    """The row's derived columns and child rows are exactly what ``derive`` makes of its record now."""
    row, hits = await stored(store, feedback_id)
    item = await store.get(feedback_id)
    assert item is not None
    want = derive(item, DOMAIN)
    assert row["derived_rev"] == store.derive.rev  # type: ignore[union-attr]
    got = {k: row[k] for k in ("category", "issue", "severity", "type", "language", "sentiment", "theme_base")}
    assert got == {
        "category": want.category,
        "issue": want.issue,
        "severity": want.severity,
        "type": want.type,
        "language": want.language,
        "sentiment": want.sentiment,
        "theme_base": want.theme_base,
    }
    flags = (row["severity_rank"], bool(row["rated"]), bool(row["alert"]))
    assert flags == (want.severity_rank, want.rated, want.alert)
    assert (row["text_folded"], row["corrected_fields"]) == (want.text_folded, want.corrected_fields)
    assert [(h["category"], h["pattern"], tuple(json.loads(h["words_json"]))) for h in hits] == [
        (a.category, a.pattern, a.words) for a in want.alerts
    ]


async def test_insert_writes_the_derived_columns_and_the_hits(store: FeedbackStore) -> None:
    await store.insert(record("a", Structure("maito_kylma", "hapan maito", "high", "complaint", "fi"), alerts=(HIT,)))
    await assert_current(store, "a")
    row, hits = await stored(store, "a")
    assert row["alert"] and row["category"] == "maito_kylma" and json.loads(hits[0]["words_json"]) == ["liukastui"]
    assert row["issue"] == "safety"  # the fall's alert decides before the sour milk's words


async def test_a_batch_writes_what_single_inserts_write_and_never_brings_back_an_erased_item(
    store: FeedbackStore,
) -> None:
    """PostgreSQL takes a batch by COPY (store/copy_rows.py), SQLite by VALUES pages: the same rows, hits
    and tombstones either way, and a second batch on the same pooled connection works as the first."""
    from feedback_intelligence.store import audit

    milk = Structure("maito_kylma", "hapan maito", "high", "complaint", "fi")
    await store.insert(record("gone", milk))
    entry = audit.AuditEntry(TS, "c1", "operator", None, None, "item.erase", "gone")
    assert await store.erase("gone", entry, expected_revision=None)
    batch = [record("gone", milk), record("b1", milk, alerts=(HIT,)), record("b2", None, structure_failed=True)]
    assert await store.insert_batch(batch, bump="version") == {"b1", "b2"}
    assert await store.get("gone") is None and await store.erased("gone")
    for feedback_id in ("b1", "b2"):
        await assert_current(store, feedback_id)
    assert [h["words_json"] for h in (await stored(store, "b1"))[1]] == ['["liukastui"]']
    assert await store.insert_batch([record("b3", milk, alerts=(HIT,)), record("b1", milk)]) == {"b3"}
    await assert_current(store, "b3")


async def test_update_structure_and_update_alerts_rewrite_them(store: FeedbackStore) -> None:
    await store.insert(record("a", None, structure_failed=True))
    row, _hits = await stored(store, "a")
    assert row["category"] is None and not row["rated"]
    await store.update_structure(
        "a",
        Structure("hevi", "homeiset mansikat", "medium", "praise", "fi"),
        structure_failed=False,
        salvage_notes=[],
        needs_review=False,
        review_flags=[],
    )
    await assert_current(store, "a")
    assert (await stored(store, "a"))[0]["category"] == "hevi"
    await store.update_alerts("a", [HIT])
    await assert_current(store, "a")
    row, hits = await stored(store, "a")
    assert row["alert"] and len(hits) == 1
    await store.update_alerts("a", [])
    row, hits = await stored(store, "a")
    assert not row["alert"] and hits == []


async def test_the_workers_finish_rewrites_them(store: FeedbackStore) -> None:
    proposal = Structure("muu", "", "medium", "complaint", "fi")
    await store.insert(record("p", proposal, pending=True))
    queue = StructureQueue(store)
    claim = await queue.claim("w", lease_s=30)
    assert claim is not None
    model = Structure("maito_kylma", "hapan maito", "critical", "complaint", "fi", sentiment="negative")
    await queue.finish(claim, model, structure_failed=False, salvage_notes=[], needs_review=True, review_flags=[])
    await assert_current(store, "p")
    assert (await stored(store, "p"))[0]["severity"] == "critical"


async def test_rows_written_without_a_deriver_are_rederived_in_batches(url: str, store: FeedbackStore) -> None:
    bare = FeedbackStore(url, name="live")  # as rows stand after migration 0005: no derived columns yet
    try:
        for n in range(7):
            await bare.insert(record(f"r{n}", Structure("hevi", "mansikat", "low", "complaint", "fi"), alerts=(HIT,)))
        assert (await stored(store, "r0"))[0]["derived_rev"] is None
        assert await store.stale_count() == 7 and await bare.stale_count() == 0  # no deriver: nothing to say
        version = await store.read_counter()
        assert await store.rederive_batch(limit=3) == 3
        assert await store.read_counter() == version + 1  # one tick per batch that changed rows
        assert await store.rederive_all(limit=3) == 4
        assert await store.stale_count() == 0 and await store.rederive_batch() == 0
        assert await store.read_counter() == version + 3
        for n in range(7):
            await assert_current(store, f"r{n}")
        assert (await stored(store, "r0"))[0]["issue"] == "safety"  # filled by the re-derivation
    finally:
        await bare.aclose()


async def test_rows_of_an_older_derivation_are_stale(url: str, store: FeedbackStore) -> None:
    await store.insert(record("a", Structure("hevi", "mansikat", "low", "complaint", "fi")))
    assert await store.stale_count() == 0
    newer = DomainDeriver(DOMAIN)
    newer.rev = "d-next"  # a lexicon, guard or rule change
    other = FeedbackStore(url, name="live", derive=newer)
    try:
        assert await other.stale_count() == 1
        assert await other.rederive_all() == 1
        assert (await stored(other, "a"))[0]["derived_rev"] == "d-next"
        assert await other.stale_count() == 0
    finally:
        await other.aclose()


async def test_a_persons_correction_writes_the_derived_columns_with_it(store: FeedbackStore) -> None:
    await store.insert(record("c1", Structure("maito_kylma", "maito", "low", "complaint", "fi", "negative")))
    moved = Structure("tilat_siisteys", "lattia", "critical", "complaint", "fi", "negative")
    values = {
        "structure_json": json.dumps(moved.to_json(), ensure_ascii=False),
        "alerts_json": json.dumps([HIT.to_json()]),
    }
    assert await store.correct("c1", values, expected_revision=1, entries=[]) == 2
    row, hits = await stored(store, "c1")
    assert (row["category"], row["severity"], bool(row["alert"])) == ("tilat_siisteys", "critical", True)
    assert [h["category"] for h in hits] == ["injury_safety"]
    await assert_current(store, "c1")
