"""The rollups stay what a rebuild from the rows would make, through every kind of write (ADR 0033), and
the plan of a window says exactly which whole UTC days they answer."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from feedback_intelligence.derivation import DomainDeriver
from feedback_intelligence.devtools.databases import postgres_database
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.records import AlertHit, Derived, StoredFeedback, Structure
from feedback_intelligence.store import aggregates, audit, rollups
from feedback_intelligence.store.feedback_store import FeedbackStore
from feedback_intelligence.store.schema import (
    feedback,
    feedback_daily,
    feedback_hourly,
    feedback_monthly,
    issue_category_daily,
    issue_daily,
    issue_monthly,
    issue_theme_daily,
    series_daily,
    theme_daily,
)
from feedback_intelligence.store.structure_queue import StructureQueue
from tests.support.databases import migrated_url
from tests.support.kinds import DATABASE_KINDS

DOMAIN = load_domain("retail")
DAY = "T00:00:00.0000000+00:00"


def at(day: int, hour: int, minute: int = 0) -> str:
    return f"2026-11-{day:02d}T{hour:02d}:{minute:02d}:00.0000000+00:00"


def item(n: int, day: int, hour: int, *, category: str = "maito_kylma", theme: str = "maito", **kw: Any) -> Any:
    structure = Structure(category, theme, kw.pop("severity", "medium"), kw.pop("type", "complaint"), "fi", None)
    return StoredFeedback(
        id=f"r{n:03d}",
        source=DOMAIN.sources[0],
        text=kw.pop("text", f"maito oli vanhaa {n}"),
        timestamp=at(day, hour),
        created_at=at(day, hour),
        structure=structure,
        store=kw.pop("store", "s1"),
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
        async with postgres_database("fi_rollups") as url:
            s = FeedbackStore(url, derive=DomainDeriver(DOMAIN))
            await s.migrate()
            yield s
            await s.aclose()


Contents = tuple[dict[tuple[Any, ...], Any], ...]


async def _read(conn: Any) -> Contents:
    """Every row of the rollups: daily, themes, hourly, issues, issue categories, issue themes, the series'
    days, the months of the counts and of the issues. A rebuild makes no row of 0, so a write that left one (a
    key its last item left, holding the item's theme) reads unequal to it."""
    daily = (await conn.execute(select(feedback_daily))).all()
    themes = (await conn.execute(select(theme_daily))).all()
    hourly = (await conn.execute(select(feedback_hourly))).all()
    issues = (await conn.execute(select(issue_daily))).all()
    issue_categories = (await conn.execute(select(issue_category_daily))).all()
    issue_themes = (await conn.execute(select(issue_theme_daily))).all()
    series = (await conn.execute(select(series_daily))).all()
    months = (await conn.execute(select(feedback_monthly))).all()
    issue_months = (await conn.execute(select(issue_monthly))).all()
    return (
        {tuple(r)[:-1]: int(r[-1]) for r in daily},
        {tuple(r)[:3]: (int(r[3]), r[4]) for r in themes},
        {tuple(r)[:-1]: int(r[-1]) for r in hourly},
        {tuple(r)[:3]: (int(r[3]), int(r[4])) for r in issues},
        {tuple(r)[:-1]: int(r[-1]) for r in issue_categories},
        {tuple(r)[:3]: (int(r[3]), r[4]) for r in issue_themes},
        {tuple(r)[:-1]: int(r[-1]) for r in series},
        {tuple(r)[:-1]: int(r[-1]) for r in months},
        {tuple(r)[:3]: (int(r[3]), int(r[4])) for r in issue_months},
    )


async def contents(store: FeedbackStore) -> Contents:
    async with store.engine.connect() as conn:
        return await _read(conn)


async def rebuilt(store: FeedbackStore) -> Contents:
    """What a rebuild from the rows makes, read in its transaction and rolled back."""
    async with store.engine.connect() as conn:
        await conn.begin()
        await rollups.rebuild(conn)
        made = await _read(conn)
        await conn.rollback()
    return made


async def assert_kept(store: FeedbackStore) -> None:
    kept = await contents(store)
    assert kept == await rebuilt(store)
    assert all(kept[k] for k in (0, 2, 3, 4, 5, 6, 7, 8)), "the rollups count something"


def entry(feedback_id: str) -> audit.AuditEntry:
    return audit.AuditEntry(at(30, 12), "c1", "operator", None, None, "item.correct", feedback_id)


async def test_every_kind_of_write_keeps_the_rollups_equal_to_a_rebuild(store: FeedbackStore) -> None:
    await store.insert(item(1, 3, 8))
    await store.insert(item(2, 3, 9, category="hevi", theme="kuitti", store=None))
    await store.insert(item(3, 4, 10, needs_review=True))
    await assert_kept(store)

    batch = [item(n, 5 + n % 3, n % 24, theme=("maito", "jono")[n % 2]) for n in range(10, 40)]
    assert len(await store.insert_batch(batch)) == 30
    assert await store.insert_batch(batch) == set()  # a retried batch adds nothing
    await assert_kept(store)

    # a correction that moves the item to another category, severity and theme, and flags it
    structure = Structure("hevi", "kuitti", "high", "complaint", "fi", None)
    values = {"structure_json": _json(structure), "needs_review": True}
    assert await store.correct("r011", values, expected_revision=None, entries=[entry("r011")]) == 2
    await assert_kept(store)

    # a correction that changes the item's issue (a praise is its own issue) and its severity alone
    was = await issue_of(store, "r014")
    praise = Structure("maito_kylma", "maito", "low", "praise", "fi", None)
    assert await store.correct("r014", {"structure_json": _json(praise)}, expected_revision=None, entries=[]) == 2
    assert await issue_of(store, "r014") != was
    await assert_kept(store)
    graver = Structure("maito_kylma", "maito", "critical", "praise", "fi", None)
    assert await store.correct("r014", {"structure_json": _json(graver)}, expected_revision=None, entries=[]) == 3
    await assert_kept(store)

    # the restructure pass and the alert rewrite (the newest of a theme key leaves it: recomputed)
    newest_of_day = max((r for r in batch if r.timestamp[:10] == batch[0].timestamp[:10]), key=lambda r: r.timestamp)
    moved = Structure("maito_kylma", "hylly", "low", "praise", "fi", None)
    await store.update_structure(
        newest_of_day.id, moved, structure_failed=False, salvage_notes=[], needs_review=False, review_flags=[]
    )
    failed = {"structure_failed": True, "salvage_notes": [], "needs_review": True, "review_flags": []}
    await store.update_structure("r012", None, **failed)
    await store.update_alerts("r013", [])
    await assert_kept(store)

    # the worker's structuring result for a row saved for later
    later = replace(item(50, 6, 7), structure=None, pending=True)
    await store.insert(later)
    queue = StructureQueue(store)
    claim = await queue.claim("w1", 60)
    assert claim is not None and claim.item.id == "r050"
    await queue.finish(
        claim,
        Structure("maito_kylma", "jono", "critical", "complaint", "fi", None),
        structure_failed=False,
        salvage_notes=[],
        needs_review=False,
        review_flags=[],
    )
    await assert_kept(store)

    # an erasure, and an erasure of something already gone
    assert await store.erase("r010", entry("r010"), expected_revision=None)
    assert not await store.erase("r010", entry("r010"), expected_revision=None)
    await assert_kept(store)


async def issue_of(store: FeedbackStore, feedback_id: str) -> str | None:
    async with store.engine.connect() as conn:
        return await conn.scalar(select(feedback.c.issue).where(feedback.c.id == feedback_id))


class Renaming:
    """A new derivation (another rev) that shows every theme under another word: a re-derive pass moves
    every row's theme key."""

    rev = "renamed-1"

    def __init__(self) -> None:
        self.inner = DomainDeriver(DOMAIN)

    def __call__(self, record: StoredFeedback, /) -> Derived:
        derived = self.inner(record)
        return replace(derived, theme_base=f"uusi {derived.theme_base}" if derived.theme_base else None)


async def test_a_re_derivation_pass_moves_the_rows_between_keys(store: FeedbackStore) -> None:
    await store.insert_batch([item(n, 10 + n % 2, n % 24, theme=("maito", "jono")[n % 2]) for n in range(12)])
    before = (await contents(store))[1]
    store.derive = Renaming()
    assert await store.rederive_all(limit=5) == 12
    after = (await contents(store))[1]
    assert {k[2] for k in after} == {f"uusi {k[2]}" for k in before}
    assert sum(n for n, _ in after.values()) == sum(n for n, _ in before.values())
    await assert_kept(store)


async def test_concurrent_writers_of_one_key_lose_no_count(store: FeedbackStore) -> None:
    """Many single saves of one day, store and theme at once: every one counted (the upsert adds)."""
    await asyncio.gather(*(store.insert(item(n, 12, 9, text=f"jono {n}")) for n in range(20)))
    daily, themes, hourly, issues, _categories, _issue_themes, series, months, issue_months = await contents(store)
    assert sum(daily.values()) == sum(hourly.values()) == sum(series.values()) == sum(months.values()) == 20
    assert sum(n for n, _ranks in issues.values()) == sum(n for n, _ranks in issue_months.values()) == 20
    assert themes[("2026-11-12", "maito_kylma", "maito")] == (20, f"{at(12, 9)} r019")
    await assert_kept(store)


async def test_a_key_emptied_while_others_add_to_it_loses_no_count(store: FeedbackStore) -> None:
    """Erasures take a key to 0 (its row deleted) while saves add to the same key: each save either
    adds to the row or makes it afresh, never lost with the deleted row."""
    await store.insert_batch([item(n, 14, 9, text=f"jono {n}") for n in range(8)])
    await asyncio.gather(
        *(store.erase(f"r{n:03d}", entry(f"r{n:03d}"), expected_revision=None) for n in range(8)),
        *(store.insert(item(n, 14, 9, text=f"jono {n}")) for n in range(8, 16)),
    )
    daily, themes, hourly, issues, _categories, _issue_themes, series, months, issue_months = await contents(store)
    assert sum(daily.values()) == sum(hourly.values()) == sum(series.values()) == sum(months.values()) == 8
    assert sum(n for n, _ranks in issues.values()) == sum(n for n, _ranks in issue_months.values()) == 8
    assert themes[("2026-11-14", "maito_kylma", "maito")] == (8, f"{at(14, 9)} r015")
    await assert_kept(store)


@pytest.fixture(params=DATABASE_KINDS)
async def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """A database without any table (the migrations' own tests start from nothing)."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'empty.db'}"
    else:
        async with postgres_database("fi_rollups") as url:
            yield url


async def test_migration_0011_deletes_the_rows_of_0_that_earlier_writes_left(empty_url: str) -> None:
    store = FeedbackStore(empty_url)
    try:
        async with store.engine.begin() as conn:
            await conn.run_sync(_upgrade_to, "0010")
            rows = [("2026-11-01", "kassa_palvelu", "vörskälä kaatua", 0), ("2026-11-01", "hevi", "kuitti", 2)]
            await conn.execute(
                theme_daily.insert(),
                [{"day": d, "category": c, "theme_base": t, "items": n, "newest": ""} for d, c, t, n in rows],
            )
            hour = {"hour": "2026-11-01T08", "category": "hevi", "alert": False}
            await conn.execute(feedback_hourly.insert(), [{**hour, "items": 0}])
        await store.migrate()
        async with store.engine.connect() as conn:
            assert [tuple(r)[:4] for r in (await conn.execute(select(theme_daily))).all()] == [rows[1]]
            assert (await conn.execute(select(feedback_hourly))).all() == []
    finally:
        await store.aclose()


async def test_a_rebuild_lays_each_rollup_in_time_order() -> None:
    """A rebuild writes each rollup's rows in the order of its day or hour, so that a window's rows lie on its
    own pages: grouped by hashing (the planner's choice at a chain's size, forced here) and written as they
    came, a month's 28,000 hour rows of a chain were spread over every page of the table (ADR 0085)."""
    async with postgres_database("fi_rollup_order") as url:
        store = FeedbackStore(url, derive=DomainDeriver(DOMAIN))
        await store.migrate()
        try:
            await store.insert_batch(
                [item(n, 1 + n * 7 % 29, n * 5 % 24, category=("maito_kylma", "leipa")[n % 2]) for n in range(240)]
            )
            async with store.engine.begin() as conn:
                await conn.exec_driver_sql("SET LOCAL enable_sort = off")  # group by hashing, not by sorting
                await rollups.rebuild(conn)
            async with store.engine.connect() as conn:
                for table, column in ((feedback_hourly, "hour"), (feedback_daily, "day"), (issue_daily, "day")):
                    laid = [
                        r[0] for r in (await conn.exec_driver_sql(f"SELECT {column} FROM {table.name} ORDER BY ctid"))
                    ]
                    assert len(set(laid)) > 20, table.name
                    assert laid == sorted(laid), f"{table.name} is not laid in {column} order"
        finally:
            await store.aclose()


async def test_migration_0024_fills_the_issue_rollups_from_the_rows(store: FeedbackStore) -> None:
    await store.insert_batch([item(n, 2 + n % 5, n % 24, store=("s1", None)[n % 2]) for n in range(20)])
    kept = await contents(store)
    async with store.engine.begin() as conn:
        await conn.run_sync(_downgrade_to, "0023")
    await store.migrate()
    assert await contents(store) == kept == await rebuilt(store)


async def test_migration_0025_fills_the_series_days_from_the_hours(store: FeedbackStore) -> None:
    await store.insert_batch([item(n, 2 + n % 5, n % 24, category=("hevi", "leipa")[n % 2]) for n in range(30)])
    kept = await contents(store)
    async with store.engine.begin() as conn:
        await conn.run_sync(_downgrade_to, "0024")
    await store.migrate()
    assert await contents(store) == kept == await rebuilt(store)
    assert len(kept[6]) > 5


async def test_migration_0026_fills_the_months_from_the_days(store: FeedbackStore) -> None:
    batch = [in_month(item(n, 2 + n % 5, n % 24, store=("s1", None)[n % 2]), 8 + n % 4) for n in range(40)]
    await store.insert_batch(batch)
    kept = await contents(store)
    async with store.engine.begin() as conn:
        await conn.run_sync(_downgrade_to, "0025")
    await store.migrate()
    assert await contents(store) == kept == await rebuilt(store)
    assert {key[0] for key in kept[7]} == {"2026-08", "2026-09", "2026-10", "2026-11"}


def in_month(stored: StoredFeedback, month: int) -> StoredFeedback:
    """The item moved to the same day and time of another month of 2026."""
    stamp = f"2026-{month:02d}" + stored.timestamp[7:]
    return replace(stored, timestamp=stamp, created_at=stamp)


def _config(connection: Any) -> Any:
    from alembic.config import Config

    from feedback_intelligence.store.feedback_store import MIGRATIONS_DIR

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["connection"] = connection
    return config


def _upgrade_to(connection: Any, revision: str) -> None:
    from alembic import command

    command.upgrade(_config(connection), revision)


def _downgrade_to(connection: Any, revision: str) -> None:
    from alembic import command

    command.downgrade(_config(connection), revision)


def _json(structure: Structure) -> str:
    import json

    return json.dumps(structure.to_json(), ensure_ascii=False, separators=(",", ":"))


# -- the plan of a window -------------------------------------------------------------------------


def test_whole_days_inside_the_window_come_from_the_rollups_and_its_edges_from_the_rows() -> None:
    part = rollups.plan(rollups.DAY, at(1, 12), at(30, 12), "2026-11-16" + DAY)
    assert part == rollups.Plan(
        first="2026-11-02",
        last="2026-11-29",
        midpoint="2026-11-16",
        split=False,  # the midpoint is a day's start: that day is wholly the second half
        row_ranges=((at(1, 12), "2026-11-02" + DAY), ("2026-11-30" + DAY, None)),
    )


def test_the_midpoints_day_is_counted_on_the_rows_when_the_midpoint_cuts_it() -> None:
    part = rollups.plan(rollups.DAY, "2026-11-01" + DAY, "2026-11-30T23:59:59.9999999+00:00", at(16, 6))
    assert part is not None
    assert (part.first, part.last, part.split) == ("2026-11-01", "2026-11-30", True)
    assert part.row_ranges == (("2026-11-16" + DAY, "2026-11-17" + DAY),)


def test_a_window_without_a_whole_day_is_answered_by_the_rows_alone() -> None:
    assert rollups.plan(rollups.DAY, at(3, 1), at(4, 23), at(4, 0)) is None
    assert rollups.plan(rollups.DAY, at(3, 1), at(3, 2), at(3, 1, 30)) is None


def test_a_long_windows_whole_months_on_one_side_of_the_midpoint_come_from_the_monthly_rollups() -> None:
    part = rollups.plan(
        rollups.DAY,
        "2026-01-10T12:00:00.0000000+00:00",
        "2026-12-20T08:00:00.0000000+00:00",
        "2026-06-15T06:00:00.0000000+00:00",
    )
    assert part is not None
    months, days = rollups.month_cover(part)
    # June holds the midpoint (both halves): its days are the daily rollup's, as are the cut months at the ends
    assert months == ["2026-02", "2026-03", "2026-04", "2026-05", "2026-07", "2026-08", "2026-09", "2026-10", "2026-11"]
    assert days == [("2026-01-11", "2026-01-31"), ("2026-06-01", "2026-06-30"), ("2026-12-01", "2026-12-19")]
    # a midpoint at a month's first instant splits no month; one later that day keeps that month's days
    whole = rollups.plan(rollups.DAY, "2026-01-01" + DAY, "2026-12-31T23:59:59.9999999+00:00", "2026-06-01" + DAY)
    assert whole is not None and rollups.month_cover(whole) == ([f"2026-{m:02d}" for m in range(1, 13)], [])
    cut = rollups.plan(
        rollups.DAY, "2026-01-01" + DAY, "2026-12-31T23:59:59.9999999+00:00", "2026-06-01T06:00:00.0000000+00:00"
    )
    assert cut is not None and "2026-06" not in rollups.month_cover(cut)[0]
    assert rollups.month_cover(cut)[1] == [("2026-06-01", "2026-06-30")]
    # a window inside one month has no whole month: its days answer it all
    short = rollups.plan(rollups.DAY, at(1, 12), at(30, 12), "2026-11-16" + DAY)
    assert short is not None and rollups.month_cover(short) == ([], [("2026-11-02", "2026-11-29")])
    # at the calendar's end there is no month after December 9999: the days answer, never a 500
    end = rollups.plan(rollups.DAY, "9999-11-20" + DAY, "9999-12-30T12:00:00.0000000+00:00")
    assert end is not None and rollups.month_cover(end) == ([], [("9999-11-20", "9999-12-29")])


def test_whole_hours_of_a_window_come_from_the_hourly_rollup() -> None:
    part = rollups.plan(rollups.HOUR, at(3, 22, 30), at(4, 2, 15))
    assert part is not None
    assert (part.first, part.last, part.split) == ("2026-11-03T23", "2026-11-04T01", False)
    assert part.row_ranges == ((at(3, 22, 30), at(3, 23)), (at(4, 2), None))
    assert rollups.plan(rollups.HOUR, at(3, 22, 30), at(3, 23, 15)) is None


async def _rows_only(store: FeedbackStore, flt: aggregates.ItemFilter, midpoint: str) -> tuple[Any, ...]:
    """The counts, themes, hours, issues, issue categories, issue themes and items per issue of ``flt``
    from the rows alone (the path the rollups replace)."""
    async with store.engine.connect() as conn:
        counts: dict[Any, int] = {}
        for row in (await conn.execute(aggregates._count_statement(flt, midpoint))).all():
            key = (row.category, row.severity, row.sentiment, row.rated, row.alert, row.needs_review, row.half)
            counts[key] = counts.get(key, 0) + int(row.items)
        themes = {
            (r.category, r.theme_base): (int(r.items), r.newest)
            for r in (await conn.execute(aggregates._theme_statement(flt))).all()
        }
        hours = {
            (r.hour, r.category, bool(r.alert)): int(r.items)
            for r in (await conn.execute(aggregates._hours_statement(flt))).all()
        }
        issues = {
            aggregates.IssueKey(r.issue, r.store, bool(r.half)): (int(r.items), int(r.ranks))
            for r in (await conn.execute(aggregates._issue_statement(flt, midpoint))).all()
        }
        issue_categories = {
            (r.issue, r.category): int(r.items)
            for r in (await conn.execute(aggregates._issue_category_statement(flt))).all()
        }
        issue_themes = {
            (r.issue, r.theme_base): (int(r.items), r.newest)
            for r in (await conn.execute(aggregates._issue_theme_statement(flt))).all()
        }
        totals = {r.issue: int(r.items) for r in (await conn.execute(aggregates._issue_total_statement(flt))).all()}
    return counts, themes, hours, issues, issue_categories, issue_themes, totals


@pytest.mark.parametrize("category", [None, "maito_kylma"])
@pytest.mark.parametrize(
    ("from_", "to", "midpoint"),
    [
        (at(3, 5, 30), at(9, 17, 45), at(6, 11, 15)),  # edges and the midpoint mid-hour
        (at(3, 0), at(9, 23, 59), at(6, 0)),  # edges mid-day, the midpoint at a day's start
        ("2026-11-02" + DAY, "2026-11-10T23:59:59.9999999+00:00", at(6, 11, 15)),  # whole days, cut midpoint
    ],
)
async def test_a_window_answered_by_the_rollups_counts_what_the_rows_count(
    store: FeedbackStore, category: str | None, from_: str, to: str, midpoint: str
) -> None:
    kinds = ("complaint", "complaint", "praise", "suggestion")
    batch = [
        item(
            n,
            2 + n % 9,
            (n * 7) % 24,
            category=("maito_kylma", "hevi")[n % 2],
            theme=("maito", "jono", "hylly")[n % 3],
            severity=("low", "medium", "high")[n % 3],
            type=kinds[n % 4],
            text=("maito oli vanhaa", "jono oli pitkä", "hinta oli väärä", "hyllyt tyhjiä")[n % 4] + f" {n}",
            store=("s1", "s2", None)[n % 3],
        )
        for n in range(120)
    ]
    await store.insert_batch(batch)
    flt = aggregates.ItemFilter(from_=from_, to=to, category=category)
    assert aggregates.rollups_answer(flt) and rollups.plan(rollups.DAY, from_, to, midpoint)
    got = await aggregates.window_aggregates([store], flt, midpoint=midpoint, limit=5)
    hours = await aggregates.window_hours([store], flt)
    totals = await aggregates.window_issue_counts([store], flt)
    counts: dict[Any, int] = {}
    for key, counted in got.counts.items():
        at_key = (key.category, key.severity, key.sentiment, key.rated, key.alert, key.needs_review, key.second_half)
        counts[at_key] = counts.get(at_key, 0) + counted.items
    want = await _rows_only(store, flt, midpoint)
    want_counts, want_themes, want_hours, want_issues, want_issue_categories, want_issue_themes, want_totals = want
    assert counts == want_counts and sum(counts.values()) > 20
    assert {k: (t.items, t.newest) for k, t in got.themes.items()} == want_themes
    assert {(h.hour, h.category, h.alert): h.items for h in hours} == want_hours
    assert {k: (c.items, c.rank_sum) for k, c in got.issues.items()} == want_issues
    assert len({k.issue for k in want_issues}) > 1 and len({k.store for k in want_issues}) == 3
    assert {k.second_half for k in want_issues} == {False, True}
    assert got.issue_categories == want_issue_categories
    assert {k: (t.items, t.newest) for k, t in got.issue_themes.items()} == want_issue_themes
    assert totals == want_totals


@pytest.mark.parametrize(
    ("from_", "to", "midpoint"),
    [
        # months cut at both ends, a midpoint inside a month's day: that month from the days
        ("2026-07-25T05:30:00.0000000+00:00", "2026-11-05T17:45:00.0000000+00:00", "2026-09-14T11:15:00.0000000+00:00"),
        # whole months only, the midpoint at a month's first instant
        ("2026-07-01" + DAY, "2026-10-31T23:59:59.9999999+00:00", "2026-09-01" + DAY),
    ],
)
async def test_a_window_of_whole_months_counts_what_the_rows_count(
    store: FeedbackStore, from_: str, to: str, midpoint: str
) -> None:
    batch = [
        in_month(
            item(
                n,
                1 + (n * 11) % 30,
                (n * 7) % 24,
                category=("maito_kylma", "hevi")[n % 2],
                theme=("maito", "jono", "hylly")[n % 3],
                severity=("low", "medium", "high")[n % 3],
                store=("s1", "s2", None)[n % 3],
            ),
            7 + n % 5,
        )
        for n in range(200)
    ]
    await store.insert_batch(batch)
    flt = aggregates.ItemFilter(from_=from_, to=to)
    part = rollups.plan(rollups.DAY, from_, to, midpoint)
    assert part is not None and len(rollups.month_cover(part)[0]) >= 2  # the months' rollups answer
    got = await aggregates.window_aggregates([store], flt, midpoint=midpoint, limit=5)
    totals = await aggregates.window_issue_counts([store], flt)
    counts: dict[Any, int] = {}
    for key, counted in got.counts.items():
        at_key = (key.category, key.severity, key.sentiment, key.rated, key.alert, key.needs_review, key.second_half)
        counts[at_key] = counts.get(at_key, 0) + counted.items
    want_counts, _, _, want_issues, _, _, want_totals = await _rows_only(store, flt, midpoint)
    assert counts == want_counts and sum(counts.values()) > 100
    assert {k: (c.items, c.rank_sum) for k, c in got.issues.items()} == want_issues
    assert {k.second_half for k in want_issues} == {False, True}
    assert totals == want_totals


@pytest.mark.parametrize(
    ("from_", "to"),
    [
        ("0791-11-26T00:05:23.4113590+00:00", "0791-12-03T00:05:23.4113590+00:00"),  # a year of three digits
        ("0001-01-01T00:00:00.0000000+00:00", "0001-01-05T00:00:00.0000000+00:00"),  # the calendar's first days
        ("9999-12-20T00:00:00.0000000+00:00", "9999-12-31T23:59:59.9999999+00:00"),  # ... and its last
    ],
)
def test_a_window_anywhere_in_the_calendar_is_planned_in_fixed_width_buckets(from_: str, to: str) -> None:
    """A window the schema allows never fails the plan (it was a 500: strftime wrote year 791 as "791")."""
    for bucket in (rollups.DAY, rollups.HOUR):
        part = rollups.plan(bucket, from_, to)
        if part is None:
            continue  # at the calendar's end the rows answer it all
        assert len(part.first) == len(part.last) == bucket.width
        assert from_ <= bucket.start(part.first) and bucket.end(part.last) <= to


def _hours_of(rows: Any) -> list[Any]:
    from feedback_intelligence.report.series import HourRow

    return [HourRow(r.hour, r.category or None, bool(r.alert), int(r.items)) for r in rows]


@pytest.mark.parametrize(
    ("zone", "from_", "to", "category"),
    [
        # week buckets over Helsinki's change of clock (25 October), edges mid-hour
        ("Europe/Helsinki", "2026-10-03T05:30:00.0000000+00:00", "2026-12-02T17:45:00.0000000+00:00", None),
        # day buckets whose bounds are at 15 UTC, one category
        ("Asia/Tokyo", "2026-11-20T09:10:00.0000000+00:00", "2026-11-29T09:10:00.0000000+00:00", "maito_kylma"),
        # week buckets over New York's change of clock (1 November), whole days at both ends
        ("America/New_York", "2026-10-10T00:00:00.0000000+00:00", "2026-11-24T23:59:59.9999999+00:00", None),
    ],
)
async def test_the_series_from_the_daily_rollup_folds_into_what_the_rows_fold_into(
    store: FeedbackStore, zone: str, from_: str, to: str, category: str | None
) -> None:
    """A series grouped by its buckets' bounds reads a window's whole UTC days from the daily rollup and moves
    the hours a bound cuts off (ADR 0085): folded, the window and the period before it are what the rows
    alone fold into."""
    from datetime import UTC, datetime, timedelta

    from feedback_intelligence.instants.timestamps import format_instant, ticks_of
    from feedback_intelligence.report.series import bucket_bounds, fold

    first = datetime(2026, 8, 20, tzinfo=UTC)
    batch = []
    for n in range(600):
        when = first + timedelta(hours=n * 37 % (110 * 24), minutes=n * 13 % 60)
        stamp = when.isoformat(timespec="microseconds").replace("+00:00", "0+00:00")
        text = ("asiakas kaatui märällä lattialla", "maito oli vanhaa", "jono oli pitkä")[n % 3] + f" {n}"
        made = item(n, 1, 0, category=("maito_kylma", "hevi")[n % 2], text=text)
        hits = (AlertHit("injury_safety", "kaatui"),) if n % 3 == 0 else ()
        batch.append(replace(made, id=f"d{n:04d}", timestamp=stamp, created_at=stamp, alerts=hits))
    await store.insert_batch(batch)
    start, end = ticks_of(from_), ticks_of(to)
    length = end - start
    previous = aggregates.ItemFilter(from_=format_instant(start - length), to=format_instant(end - length - 1))
    current = aggregates.ItemFilter(from_=from_, to=to, category=category)
    previous = replace(previous, category=category)
    grouped = fold(
        _hours_of(await aggregates.window_hours([store], current, bucket_bounds(start, end, zone))),
        _hours_of(await aggregates.window_hours([store], previous, bucket_bounds(start, end, zone, previous=True))),
        start,
        end,
        zone,
    )
    async with store.engine.connect() as conn:
        on_rows = [_hours_of((await conn.execute(aggregates._hours_statement(f))).all()) for f in (current, previous)]
    want = fold(on_rows[0], on_rows[1], start, end, zone)
    assert grouped == want
    alerts = next(line for line in want.lines if line.key == "alert")
    assert alerts.current_total > 5 and want.lines[0].previous_total > 10, "the window and the period before count"
