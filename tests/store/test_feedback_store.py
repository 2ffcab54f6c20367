"""The store's contract, on SQLite and on this machine's PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from feedback_intelligence.devtools.databases import postgres_database, sqlite_url
from feedback_intelligence.records import AlertHit, Correction, StoredFeedback, Structure
from feedback_intelligence.store.errors import DuplicateId
from feedback_intelligence.store.feedback_store import FeedbackStore
from tests.support.kinds import DATABASE_KINDS


@pytest.fixture(params=DATABASE_KINDS)
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[FeedbackStore]:
    if request.param == "sqlite":
        s = FeedbackStore(sqlite_url(tmp_path))
        await s.migrate()
        yield s
        await s.aclose()
    else:
        async with postgres_database() as url:
            s = FeedbackStore(url)
            await s.migrate()
            yield s
            await s.aclose()


def record(id_: str, ts: str, **kw: object) -> StoredFeedback:
    defaults: dict[str, object] = {
        "source": "desk",
        "text": f"teksti {id_} — ääkköset ok",
        "timestamp": ts,
        "created_at": "2026-11-30T10:00:00.0000000+00:00",
        "structure": Structure("maito_kylma", "hapan maito", "high", "complaint", "fi"),
    }
    return StoredFeedback(id=id_, **{**defaults, **kw})  # type: ignore[arg-type]


async def test_round_trip_keeps_every_field(store: FeedbackStore) -> None:
    original = record(
        "a-1",
        "2026-11-01T08:00:00.0000000+00:00",
        structure=Structure("hevi", "homeiset mansikat", "medium", "complaint", "fi", sentiment="negative"),
        salvage_notes=("'category' normalized from 'Hevi' to 'hevi'",),
        alerts=(AlertHit("injury_safety", "haava"),),
        corrections=(Correction("category", "muu", "hevi"),),
        needs_review=True,
        review_flags=("override",),
        model_failed=True,
    )
    await store.insert(original)
    assert await store.get("a-1") == original
    assert await store.exists("a-1")
    assert await store.get("missing") is None


async def test_duplicate_id_is_refused(store: FeedbackStore) -> None:
    await store.insert(record("dup", "2026-11-01T08:00:00.0000000+00:00"))
    with pytest.raises(DuplicateId):
        await store.insert(record("dup", "2026-11-02T08:00:00.0000000+00:00"))
    assert await store.count() == 1


async def test_query_is_newest_first_within_an_inclusive_window(store: FeedbackStore) -> None:
    stamps = [f"2026-11-0{d}T12:00:00.0000000+00:00" for d in range(1, 8)]
    for i, ts in enumerate(stamps):
        await store.insert(record(f"r{i}", ts, source="email" if i % 2 else "desk"))
    rows = await store.query(stamps[1], stamps[4], limit=10)
    assert [r.id for r in rows] == ["r4", "r3", "r2", "r1"]
    assert [r.id for r in await store.query(limit=2)] == ["r6", "r5"]
    assert [r.id for r in await store.query(source="email", limit=10)] == ["r5", "r3", "r1"]
    assert await store.count(stamps[1], stamps[4]) == 4


async def test_update_structure_clears_the_human_audit_and_update_alerts_touches_only_alerts(
    store: FeedbackStore,
) -> None:
    await store.insert(
        record(
            "u", "2026-11-01T08:00:00.0000000+00:00", corrections=(Correction("theme", "a", "b"),), model_failed=True
        )
    )
    changed = await store.update_structure(
        "u",
        Structure("leipa", "kuiva leipä", "low", "complaint", "fi"),
        structure_failed=False,
        salvage_notes=["n"],
        needs_review=True,
        review_flags=["override"],
    )
    assert changed == 1
    row = await store.get("u")
    assert row is not None
    assert row.structure and row.structure.category == "leipa"
    assert row.corrections is None and row.model_failed is False and row.needs_review is True
    assert await store.update_alerts("u", [AlertHit("payment", "veloit")]) == 1
    again = await store.get("u")
    assert again is not None and again.alerts == (AlertHit("payment", "veloit"),)
    assert again.structure == row.structure
    assert await store.update_alerts("nobody", []) == 0


async def test_needs_review_count(store: FeedbackStore) -> None:
    await store.insert(record("x", "2026-11-01T08:00:00.0000000+00:00", needs_review=True))
    await store.insert(record("y", "2026-11-01T09:00:00.0000000+00:00"))
    assert await store.count(needs_review=True) == 1


async def test_version_counter_is_atomic_and_survives_a_new_store_object(store: FeedbackStore) -> None:
    assert await store.read_counter() == 0
    values = await asyncio.gather(*(store.bump_counter() for _ in range(10)))
    assert sorted(values) == list(range(1, 11))
    reopened = FeedbackStore(store.url)
    try:
        assert await reopened.read_counter() == 10
    finally:
        await reopened.aclose()


async def test_migrations_are_idempotent(store: FeedbackStore) -> None:
    await store.insert(record("keep", "2026-11-01T08:00:00.0000000+00:00"))
    await store.migrate()
    assert await store.exists("keep")


async def test_an_insert_and_its_version_bump_commit_together(store: FeedbackStore) -> None:
    assert await store.insert(record("v1", "2026-11-01T08:00:00.0000000+00:00"), bump="version") == 1
    assert await store.insert(record("v2", "2026-11-01T09:00:00.0000000+00:00"), bump="version") == 2
    with pytest.raises(DuplicateId):
        await store.insert(record("v2", "2026-11-01T10:00:00.0000000+00:00"), bump="version")
    assert await store.read_counter("version") == 2  # the refused row moved nothing


async def test_a_batch_insert_writes_the_rows_a_single_insert_writes_and_skips_taken_ids(
    store: FeedbackStore,
) -> None:
    taken = record("b-0", "2026-11-01T08:00:00.0000000+00:00")
    await store.insert(taken)
    rows = [
        record(
            f"b-{n}",
            f"2026-11-0{n + 1}T08:00:00.0000000+00:00",
            alerts=(AlertHit("injury_safety", "haava"),),
            store="tre-1",
            pending=n % 2 == 0,
        )
        for n in range(4)
    ]
    inserted = await store.insert_batch(rows, bump="version")
    assert inserted == {"b-1", "b-2", "b-3"}
    assert await store.get("b-0") == taken  # the stored row is left as it was
    for row in rows[1:]:
        assert await store.get(row.id) == row
    assert await store.read_counter() == 1  # once for the batch
    assert await store.insert_batch(rows, bump="version") == set()
    assert await store.read_counter() == 1  # nothing landed: the counter stays
    assert await store.insert_batch([], bump="version") == set()


async def test_a_batch_that_fails_writes_nothing(store: FeedbackStore) -> None:
    good = record("c-1", "2026-11-01T08:00:00.0000000+00:00")
    broken = record("c-2", "2026-11-01T08:00:00.0000000+00:00", store="x" * 80)  # wider than the column
    if store.engine.dialect.name == "sqlite":  # SQLite does not enforce widths: a NOT NULL column does it
        broken = record("c-2", None)  # type: ignore[arg-type]
    with pytest.raises(Exception):  # noqa: B017 - the driver's own error; what matters is what is left
        await store.insert_batch([good, broken], bump="version")
    assert await store.get("c-1") is None
    assert await store.read_counter() == 0


async def test_the_migrations_build_exactly_the_schema_the_code_declares(store: FeedbackStore) -> None:
    """Alembic's own comparison of the migrated database with ``store/schema.py``: a column, index or
    table that one has and the other lacks is a migration that was forgotten or a schema left behind."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext
    from sqlalchemy.engine import Connection

    from feedback_intelligence.store.schema import metadata

    def differences(connection: Connection) -> list[object]:
        context = MigrationContext.configure(connection, opts={"compare_type": False})
        found = compare_metadata(context, metadata)
        return [
            d
            for d in found
            if not _alembic_bookkeeping(d) and not _for_another_dialect(d, connection) and not _search_index(d)
        ]

    async with store.engine.connect() as conn:
        assert await conn.run_sync(differences) == []


def _for_another_dialect(difference: object, connection: object) -> bool:
    """An index the schema declares for one dialect only (``Index.ddl_if(dialect=...)``, the search's trigram
    index): Alembic's comparison does not read that condition, so it is read here."""
    if not (isinstance(difference, tuple) and difference[0] == "add_index"):
        return False
    from feedback_intelligence.store.schema import metadata

    name = difference[1].name
    declared = next(i for table in metadata.tables.values() for i in table.indexes if i.name == name)
    condition = getattr(declared, "_ddl_if", None)  # SQLAlchemy keeps ddl_if's arguments there (Alembic copies)
    return condition is not None and condition.dialect not in (None, connection.dialect.name)  # type: ignore[attr-defined]


def _search_index(difference: object) -> bool:
    """The search's tables that only migrations make: SQLite's index (0022, store/search.py), an FTS5 virtual
    table, its shadow tables and the table of its rowids, which SQLAlchemy cannot declare
    (tests/store/test_search_index.py checks them), and PostgreSQL's narrow copy with its indexes (0023,
    store/search_rows.py; tests/store/test_search_rows.py checks it against the rows)."""
    from feedback_intelligence.store.search import INDEX_TABLE
    from feedback_intelligence.store.search_rows import TABLE

    if not isinstance(difference, tuple):
        return False
    if difference[0] == "remove_index":
        return str(difference[1].table.name) == TABLE
    if difference[0] != "remove_table":
        return False
    name = difference[1].name
    return name in (INDEX_TABLE, TABLE) or name.startswith(INDEX_TABLE + "_")


def _alembic_bookkeeping(difference: object) -> bool:
    """Alembic's own version table is in the database and (rightly) not in the schema."""
    return isinstance(difference, tuple) and difference[0] == "remove_table" and difference[1].name == "alembic_version"
