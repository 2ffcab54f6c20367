"""SQLite's search index (migration 0022, store/search.py, ADR 0070): a search read through it answers
exactly what the scan answers — the same ids, the same count — for every ``q``, over texts written,
rewritten and deleted through the triggers; an erased item leaves it; a database upgraded with rows is
filled; PostgreSQL's statement does not name it."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, create_engine, func, select, text
from sqlalchemy.dialects import postgresql, sqlite

from feedback_intelligence.store import audit, search
from feedback_intelligence.store.aggregates import ItemFilter, where_clause
from feedback_intelligence.store.feedback_store import FeedbackStore
from feedback_intelligence.store.schema import feedback
from feedback_intelligence.text.matching import fold
from tests.store.test_rollups import _upgrade_to
from tests.support.databases import migrated
from tests.support.examples import examples

STAMP = "2026-11-01T08:00:00.0000000+00:00"
#: Finnish and Swedish letters in both cases, a combining diaeresis, letters whose fold changes their
#: length, LIKE's wildcards and escape, quotes (FTS5's and SQL's), a space and a NUL.
ALPHABET = "aAkKsSäÄöÖåÅ\u0308ßİ%_\\\"' \x00"
TEXTS = st.text(alphabet=ALPHABET, max_size=24)


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    path = migrated(tmp_path_factory.mktemp("search") / "feedback.db")
    engine = create_engine(f"sqlite:///{path}")
    yield engine
    engine.dispose()


@st.composite
def histories(draw: st.DrawFn) -> tuple[list[tuple[str, bool]], list[tuple[int, str]], set[int], list[str]]:
    """Rows (a text, stored folded as the service does or as written), rewrites of some rows' folded text,
    rows deleted afterwards, and searches: slices of the texts and made-up strings."""
    rows = draw(st.lists(st.tuples(TEXTS, st.booleans()), min_size=1, max_size=10))
    last = len(rows) - 1
    rewrites = draw(st.lists(st.tuples(st.integers(0, last), TEXTS), max_size=4))
    deleted = draw(st.sets(st.integers(0, last), max_size=3))
    written = [t for t, _ in rows] + [t for _, t in rewrites]
    queries = draw(st.lists(TEXTS, max_size=4))
    for _ in range(draw(st.integers(1, 8))):
        source = draw(st.sampled_from(written))
        start = draw(st.integers(0, len(source)))
        queries.append(source[start : draw(st.integers(start, len(source)))])
    return rows, rewrites, deleted, queries


def ids_and_count(engine: Engine, flt: ItemFilter, *, use_index: bool) -> tuple[set[str], int]:
    where = where_clause(flt, use_index=use_index)
    with engine.connect() as conn:
        ids = set(conn.scalars(select(feedback.c.id).where(where)).all())
        count = conn.scalar(select(func.count()).select_from(feedback).where(where))
    return ids, int(count or 0)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(history=histories())
def test_the_index_answers_every_search_as_the_scan_does(
    engine: Engine, history: tuple[list[tuple[str, bool]], list[tuple[int, str]], set[int], list[str]]
) -> None:
    rows, rewrites, deleted, queries = history
    with engine.begin() as conn:
        conn.execute(feedback.delete())  # the delete trigger empties the index of the previous example
        conn.execute(
            feedback.insert(),
            [
                {"id": f"i{n}", "source": "desk", "text": t, "timestamp": STAMP, "created_at": STAMP,
                 "text_folded": fold(t) if folded else t}
                for n, (t, folded) in enumerate(rows)
            ],
        )  # fmt: skip
        for n, new in rewrites:
            conn.execute(feedback.update().where(feedback.c.id == f"i{n}").values(text_folded=new))
        conn.execute(feedback.delete().where(feedback.c.id.in_([f"i{n}" for n in deleted])))
    for q in queries:
        for flt in (ItemFilter(q=q), ItemFilter(q=f"{q} ä"), ItemFilter(q=q, from_=STAMP)):
            assert ids_and_count(engine, flt, use_index=True) == ids_and_count(engine, flt, use_index=False), flt


def test_the_index_is_asked_only_for_a_word_of_three_characters_and_only_on_sqlite() -> None:
    def statement(q: str, dialect: object) -> str:
        return str(select(feedback.c.id).where(where_clause(ItemFilter(q=q))).compile(dialect=dialect))

    assert search.INDEX_TABLE in statement("ka kassa", sqlite.dialect())
    assert search.INDEX_TABLE not in statement("ka ö", sqlite.dialect())  # no trigram: the scan
    assert search.INDEX_TABLE not in statement("kassa", postgresql.dialect())  # its own index serves the LIKE
    assert search.trigrams(["kassa", "ssa", "a\x00bcd"]) == ["kas", "ass", "ssa"]
    assert search.match_query(['a"b', "%_\\"]) == '"a""b" AND "%_\\"'


def test_the_migrations_leave_the_index_and_its_triggers_at_the_head(engine: Engine) -> None:
    """A later migration that rebuilds ``feedback`` on SQLite drops its triggers with the old table: this fails
    until it creates them again (migration 0022 has them)."""
    with engine.connect() as conn:
        names = set(conn.scalars(text("SELECT name FROM sqlite_master")).all())
    assert {search.INDEX_TABLE, search.IDS_TABLE, *search.TRIGGERS} <= names


async def test_an_erased_item_leaves_the_index(tmp_path: Path) -> None:
    """Found no more, and none of its trigrams left in the index's pages: FTS5 keeps a deleted row's terms in
    its segments until they merge, so the erasure merges them."""
    path = migrated(tmp_path / "feedback.db")
    store = FeedbackStore(f"sqlite+aiosqlite:///{path}")
    try:
        async with store.engine.begin() as conn:
            for feedback_id, words in (("keep", "kassalla jonoa"), ("gone", "kassalla qqqzzz")):
                row = {"id": feedback_id, "source": "desk", "text": words, "timestamp": STAMP, "created_at": STAMP}
                await conn.execute(feedback.insert().values(**row, text_folded=words))
        assert b"qqq" in index_pages(path)  # what the check below looks for is there to be found
        entry = audit.AuditEntry(STAMP, "e1", "operator", None, None, "item.erase", "gone")
        assert await store.erase("gone", entry, expected_revision=None)
        async with store.engine.connect() as conn:
            found = await conn.scalars(select(feedback.c.id).where(where_clause(ItemFilter(q="kassalla"))))
            assert found.all() == ["keep"]
            hits = f"SELECT count(*) FROM {search.INDEX_TABLE} WHERE {search.INDEX_TABLE} MATCH '\"zzz\"'"
            assert (await conn.exec_driver_sql(hits)).scalar_one() == 0
    finally:
        await store.aclose()
    assert b"qqq" not in index_pages(path) and b"zzz" not in index_pages(path)


def index_pages(path: Path) -> bytes:
    with sqlite3.connect(path) as db:
        return b"".join(row[0] for row in db.execute(f"SELECT block FROM {search.INDEX_TABLE}_data"))


async def test_the_migration_indexes_the_rows_a_database_holds(tmp_path: Path) -> None:
    store = FeedbackStore(f"sqlite+aiosqlite:///{tmp_path / 'old.db'}")
    try:
        async with store.engine.begin() as conn:
            await conn.run_sync(_upgrade_to, "0021")
            for n, words in enumerate(("liukas lattia kassalla", "kassajono", "maito")):
                row = {"id": f"o{n}", "source": "desk", "text": words, "timestamp": STAMP, "created_at": STAMP}
                await conn.execute(feedback.insert().values(**row, text_folded=words))
        await store.migrate()
        async with store.engine.connect() as conn:
            statement = f"SELECT count(*) FROM {search.INDEX_TABLE} WHERE {search.INDEX_TABLE} MATCH '\"kas\"'"
            assert (await conn.exec_driver_sql(statement)).scalar_one() == 2
            found = await conn.scalars(select(feedback.c.id).where(where_clause(ItemFilter(q="kassa"))))
            assert sorted(found.all()) == ["o0", "o1"]
    finally:
        await store.aclose()
