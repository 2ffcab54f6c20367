"""The search's count from PostgreSQL's narrow copy (migration 0023, store/search_rows.py, ADR 0076): the copy
holds what ``feedback`` holds after inserts, a correction, an edit of the copied columns and an erasure, and a
count read from it is the wide rows' count and a plain Python predicate's, over texts with Finnish letters,
``%``, ``_``, quotes and backslashes."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
from sqlalchemy import text

from feedback_intelligence.derivation import DomainDeriver
from feedback_intelligence.devtools.databases import postgres_database
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.instants.timestamps import format_instant
from feedback_intelligence.records import StoredFeedback, Structure
from feedback_intelligence.store import search_rows
from feedback_intelligence.store.aggregates import ItemFilter
from feedback_intelligence.store.audit import AuditEntry
from feedback_intelligence.store.feedback_store import FeedbackStore
from feedback_intelligence.store.item_list import count_of
from feedback_intelligence.store.search import query_words

DOMAIN = load_domain("retail")
TEXTS = (
    "Äiti löysi hyllystä HAPANTA maitoa",
    "50% alennus_ei toiminut kassalla",
    'Asiakas sanoi: "kassa 5_% kiinni" ja O\'Brien odotti',
    "Polku c:\\kassa\\maito ei auennut",
    "Ålandin ÅÄÖ kauppa, kiitos palvelusta",
    "kassa kassa kassalla jono",
    "Maito 100%% loppu, 'lainaus' ja \\_ merkki",
)
SEARCHES = (
    "kassa", "KASSALLA", "äiti", "ÅÄÖ", "aao", "50%", "5_%", "_", "%", "s_ei", "'", "o'brien", '"kassa',
    "\\", "c:\\kassa", "\\_", "%%", "kassa maito", "kiitos palvelusta", "ei-löydy", "ka",
)  # fmt: skip
STORES = ("s1", "s2", None)


def ts(day: int) -> str:
    return f"2026-11-{day:02d}T08:00:00.0000000+00:00"


def items() -> list[StoredFeedback]:
    found = []
    for k in range(21):
        found.append(
            StoredFeedback(
                id=f"i{k:02d}",
                source="desk",
                text=TEXTS[k % len(TEXTS)],
                timestamp=ts(1 + k),
                created_at=ts(1 + k),
                structure=Structure("muu", "palvelu", "low", "complaint", "fi"),
                store=STORES[k % len(STORES)],
            )
        )
    return found


@pytest.fixture
async def store() -> AsyncIterator[FeedbackStore]:
    async with postgres_database("fi_search_rows") as url:
        s = FeedbackStore(url, derive=DomainDeriver(DOMAIN))
        await s.migrate()
        for item in items():
            await s.insert(item)
        try:
            yield s
        finally:
            await s.aclose()


def filters(q: str) -> list[ItemFilter]:
    return [
        ItemFilter(q=q),
        ItemFilter(q=q, store="s1"),
        ItemFilter(q=q, from_=ts(5), to=ts(15)),
        ItemFilter(q=q, from_=ts(5), to=ts(15), store="s2"),
    ]


async def held(store: FeedbackStore) -> list[tuple[str, str | None, str]]:
    """Each row's instant, store and folded text as ``feedback`` holds them (an edit above may have moved them)."""
    async with store.engine.connect() as conn:
        found = await conn.execute(text('SELECT "timestamp", store, text_folded FROM feedback'))
        return [(row[0], row[1], row[2]) for row in found]


def wanted(flt: ItemFilter, found: list[tuple[str, str | None, str]]) -> int:
    def matches(stamp: str, shop: str | None, folded: str) -> bool:
        return (
            all(word in folded for word in query_words(flt.q or ""))
            and (flt.store is None or shop == flt.store)
            and (flt.from_ is None or flt.from_ <= stamp)
            and (flt.to is None or stamp <= flt.to)
        )

    return sum(matches(*row) for row in found)


async def assert_counts_agree(store: FeedbackStore) -> None:
    found = await held(store)
    for q in SEARCHES:
        for flt in filters(q):
            assert search_rows.answers(flt, "postgresql"), flt
            copy, wide = await count_of(store, flt), await count_of(store, flt, use_copy=False)
            assert copy == wide == wanted(flt, found), (flt, copy, wide)


async def assert_copy_is_the_rows(store: FeedbackStore) -> None:
    columns = 'id, "timestamp", store, text_folded'
    async with store.engine.connect() as conn:
        for first, second in (("feedback", search_rows.TABLE), (search_rows.TABLE, "feedback")):
            extra = await conn.scalar(
                text(f"SELECT count(*) FROM (SELECT {columns} FROM {first} EXCEPT SELECT {columns} FROM {second}) d")
            )
            assert extra == 0, (first, second)


@pytest.mark.postgres
async def test_the_copys_count_is_the_rows_count_through_every_write(store: FeedbackStore) -> None:
    await assert_copy_is_the_rows(store)
    await assert_counts_agree(store)
    # a person's correction writes the derived columns again (text_folded among them, unchanged)
    corrected = {"structure_json": json.dumps(Structure("kassa", "jono", "high", "complaint", "fi").to_json())}
    assert await store.correct("i03", corrected, expected_revision=None, entries=[]) is not None
    async with store.engine.begin() as conn:  # each copied column moved alone, as a later write path might
        for statement in (
            "UPDATE feedback SET text_folded = 'uusi kassa teksti' WHERE id = 'i04'",
            "UPDATE feedback SET store = 's2' WHERE id = 'i06'",
            "UPDATE feedback SET \"timestamp\" = '2026-11-09T09:00:00.0000000+00:00' WHERE id = 'i18'",
            "UPDATE feedback SET id = 'i04b' WHERE id = 'i05'",
        ):
            await conn.execute(text(statement))
    for gone in ("i01", "i07"):
        erasure = AuditEntry(format_instant(0), "e1", "operator", None, None, "item.erase", gone)
        assert await store.erase(gone, erasure, expected_revision=None)
    await assert_copy_is_the_rows(store)
    await assert_counts_agree(store)


@pytest.mark.postgres
async def test_the_count_reads_the_copy_and_other_filters_the_rows(store: FeedbackStore) -> None:
    flt = ItemFilter(q="kassa 50%")
    async with store.engine.connect() as conn:
        await conn.exec_driver_sql("SET enable_seqscan = off")
        statement = search_rows.count_statement(flt)
        compiled = statement.compile(conn.sync_engine, compile_kwargs={"literal_binds": True})
        plan = "\n".join((await conn.exec_driver_sql(f"EXPLAIN {compiled}")).scalars().all())
    assert "feedback_search_rows" in plan and "ix_feedback_search_rows_trgm" in plan, plan
    assert not search_rows.answers(ItemFilter(q="kassa", category="muu"), "postgresql")
    assert not search_rows.answers(ItemFilter(q="kassa", alert="any"), "postgresql")
    assert not search_rows.answers(ItemFilter(q="   "), "postgresql")
    assert not search_rows.answers(ItemFilter(q="kassa"), "sqlite")
    async with store.engine.connect() as conn:
        before = await conn.scalar(text("SHOW work_mem"))
    await count_of(store, ItemFilter(q="kassa"))
    async with store.engine.connect() as conn:  # the pool's connection again: the count's setting went with it
        assert await conn.scalar(text("SHOW work_mem")) == before != search_rows.COUNT_WORK_MEM
    assert await count_of(store, ItemFilter(q="kassa", category="muu")) == await count_of(
        store, ItemFilter(q="kassa", category="muu"), use_copy=False
    )
