"""The aggregates' WHERE builder, one filter at a time and combined, on SQLite and PostgreSQL: each
selects exactly the items a plain Python predicate over the records selects."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from sqlalchemy import select

from feedback_intelligence.derivation import DomainDeriver, derive
from feedback_intelligence.devtools.databases import postgres_database
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.records import AlertHit, StoredFeedback, Structure
from feedback_intelligence.store.aggregates import ItemFilter, where_clause
from feedback_intelligence.store.feedback_store import FeedbackStore
from feedback_intelligence.store.schema import feedback
from feedback_intelligence.store.search import query_words
from tests.support.databases import migrated_url
from tests.support.kinds import DATABASE_KINDS

DOMAIN = load_domain("retail")


def ts(day: int, hour: int = 8) -> str:
    return f"2026-11-{day:02d}T{hour:02d}:00:00.0000000+00:00"


ITEMS = [
    StoredFeedback(
        id="a",
        source="desk",
        text="Maito oli HAPANTA, 50% alennus_ei toiminut",
        timestamp=ts(1),
        created_at=ts(1),
        structure=Structure("maito_kylma", "hapan maito", "high", "complaint", "fi"),
        store="s1",
    ),
    StoredFeedback(
        id="b",
        source="email",
        text="Asiakas liukastui kassalla",
        timestamp=ts(2),
        created_at=ts(2),
        structure=Structure("muu", "liukas lattia", "critical", "complaint", "fi"),
        store="s2",
        alerts=(AlertHit("injury_safety", "liukastu"),),
    ),
    StoredFeedback(
        id="c",
        source="desk",
        text="Kiitos ystävällisestä palvelusta",
        timestamp=ts(3),
        created_at=ts(3),
        structure=Structure("muu", "palvelu", "low", "praise", "fi"),
        store="s1",
    ),
    StoredFeedback(
        id="d",
        source="desk",
        text="Rasistinen huutelu kassalla",
        timestamp=ts(4),
        created_at=ts(4),
        structure=Structure("rasismi", "huutelu", "medium", "complaint", "fi"),
        alerts=(AlertHit("rasismi", "rasist"),),
    ),
    StoredFeedback(
        id="e",
        source="email",
        text="Ei rakennetta",
        timestamp=ts(5),
        created_at=ts(5),
        structure=None,
        structure_failed=True,
        store="s2",
    ),
]


@pytest.fixture(params=DATABASE_KINDS)
async def store(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[FeedbackStore]:
    async def filled(url: str) -> FeedbackStore:
        s = FeedbackStore(url, derive=DomainDeriver(DOMAIN))
        await s.migrate()
        for item in ITEMS:
            await s.insert(item)
        return s

    if request.param == "sqlite":
        s = await filled(migrated_url(Path(tmp_path_factory.mktemp("where"))))
        yield s
        await s.aclose()
    else:
        async with postgres_database("fi_chain") as url:
            s = await filled(url)
            yield s
            await s.aclose()


def folded(item: StoredFeedback) -> str:
    return derive(item, DOMAIN).text_folded


CASES: list[tuple[ItemFilter, Callable[[StoredFeedback], bool]]] = [
    (ItemFilter(), lambda i: True),
    (ItemFilter(from_=ts(2), to=ts(4)), lambda i: ts(2) <= i.timestamp <= ts(4)),
    (ItemFilter(store="s1"), lambda i: i.store == "s1"),
    (ItemFilter(category="muu"), lambda i: i.structure is not None and i.structure.category == "muu"),
    (ItemFilter(severity="critical"), lambda i: i.structure is not None and i.structure.severity == "critical"),
    (ItemFilter(type="praise"), lambda i: i.structure is not None and i.structure.type == "praise"),
    (ItemFilter(sentiment="positive"), lambda i: derive(i, DOMAIN).sentiment == "positive"),
    (ItemFilter(source="email"), lambda i: i.source == "email"),
    (ItemFilter(alert="any"), lambda i: derive(i, DOMAIN).alert),
    # the stored issue: the sour milk is freshness, the fall safety, the thanks praise (deterministic/issue.py)
    (ItemFilter(issue="freshness_quality"), lambda i: i.id == "a"),
    (ItemFilter(issue="safety"), lambda i: i.id == "b"),
    (ItemFilter(issue="praise"), lambda i: derive(i, DOMAIN).issue == "praise"),
    (ItemFilter(alert="rasismi"), lambda i: any(h.category == "rasismi" for h in i.alerts)),
    (ItemFilter(alert="injury_safety"), lambda i: any(h.category == "injury_safety" for h in i.alerts)),
    (ItemFilter(q="kassalla"), lambda i: "kassalla" in folded(i)),
    (ItemFilter(q="KASSALLA liukast"), lambda i: "kassalla" in folded(i) and "liukast" in folded(i)),
    (ItemFilter(q="50%"), lambda i: "50%" in folded(i)),  # % and _ are matched literally (ESCAPE)
    (ItemFilter(q="5_%"), lambda i: "5_%" in folded(i)),
    (ItemFilter(q="s_ei"), lambda i: "s_ei" in folded(i)),
    (ItemFilter(q="   "), lambda i: True),
    (
        ItemFilter(store="s2", source="email", from_=ts(1), to=ts(5), alert="any", q="asiakas"),
        lambda i: i.store == "s2" and i.source == "email" and derive(i, DOMAIN).alert and "asiakas" in folded(i),
    ),
]


async def test_each_filter_selects_what_the_predicate_selects(store: FeedbackStore) -> None:
    async with store.engine.connect() as conn:
        for flt, wanted in CASES:
            got = set((await conn.scalars(select(feedback.c.id).where(where_clause(flt)))).all())
            assert got == {i.id for i in ITEMS if wanted(i)}, flt


def test_query_words_are_folded_and_blank_ones_dropped() -> None:
    assert query_words("  Kassalla  ÄITI ") == ["kassalla", "äiti"]


@pytest.mark.postgres
async def test_search_on_postgresql_reads_the_trigram_index_and_answers_the_same() -> None:
    """The ``LIKE … ESCAPE`` the search emits is one the trigram index can answer (migration 0018, ADR 0066):
    with the table scan forbidden the plan names the index, and every search case selects what it did."""
    async with postgres_database("fi_chain") as url:
        s = FeedbackStore(url, derive=DomainDeriver(DOMAIN))
        await s.migrate()
        try:
            for item in ITEMS:
                await s.insert(item)
            async with s.engine.connect() as conn:
                await conn.exec_driver_sql("SET enable_seqscan = off")
                statement = select(feedback.c.id).where(where_clause(ItemFilter(q="kassalla 50%")))
                compiled = statement.compile(conn.sync_engine, compile_kwargs={"literal_binds": True})
                plan = "\n".join((await conn.exec_driver_sql(f"EXPLAIN {compiled}")).scalars().all())
                assert "ix_feedback_text_folded_trgm" in plan, plan
                for flt, wanted in CASES:
                    if flt.q is None:
                        continue
                    got = set((await conn.scalars(select(feedback.c.id).where(where_clause(flt)))).all())
                    assert got == {i.id for i in ITEMS if wanted(i)}, flt
        finally:
            await s.aclose()
