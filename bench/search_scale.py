"""The manager's search (``q``) at a chain's scale: PostgreSQL's trigram index (ADR 0066) and SQLite's FTS5
trigram index (ADR 0070, bench/search_sqlite.py) each against the scan, side by side in one run.

A fresh PostgreSQL database is filled with bench/chain_scale's synthetic 30-day window (1,000,000 items by
default, texts from the demo corpus). For each search — a common word, a rare one, two words, each alone
and with a store's filter — it times what ``GET /report/items`` does for a first page: the page
(``report.items.page``) and the filter's exact ``count(*)``, p50 of several runs. With the indexes the
migrations build, two ways take turns run by run: the count from the narrow copy (migration 0023, ADR
0076, what the service does) and the count on ``feedback`` (as before 0023). Then ``feedback``'s trigram
index is dropped and the count on ``feedback`` is the scan every version before 0018 had. The answers
are compared: the same ids on the page and the same count, every way. The time to build both trigram
indexes on the filled tables is printed too (what the migrations cost a chain's database).

Target (PostgreSQL, at 1,000,000 items): page + count ≤ 300 ms p50 for every search, with a filter and
without. SQLite (200,000 items by default: a few minutes on a 2-core machine) has no time target: its
figures are printed beside the scan's, and a different answer fails.

Run: .venv/bin/python -m bench.search_scale [--engine both|postgresql|sqlite] [--items 1000000]
[--sqlite-items 200000]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from collections import Counter
from typing import Any

from sqlalchemy import text

from bench.chain_scale import NOW, STORES, WINDOW_DAYS, Tally, fill_postgres, templates
from bench.common import print_table, write_result
from feedback_intelligence.derivation import DomainDeriver
from feedback_intelligence.devtools.databases import postgres_database
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.instants.ticks import to_ticks
from feedback_intelligence.instants.timestamps import format_instant
from feedback_intelligence.report.items import page
from feedback_intelligence.store import search_rows
from feedback_intelligence.store.aggregates import ItemFilter
from feedback_intelligence.store.feedback_store import FeedbackStore
from feedback_intelligence.store.item_list import count_of
from feedback_intelligence.store.search import query_words

PAGE = 50
RUNS = 7
TARGET_MS = 300.0
INDEX = "ix_feedback_text_folded_trgm"


def search_words(tpls: list[Any]) -> tuple[str, str, str]:
    """A common word (in the most templates), a rare one (in one) and a two-word search, from the fill's texts:
    the same three every run."""
    seen: Counter[str] = Counter()
    for t in tpls:
        words = {w for w in query_words(t.record.text) if len(w) >= 5 and w.isalpha()}
        seen.update(sorted(words))  # a set iterates in a different order each run
    ranked = seen.most_common()
    common = ranked[0][0]
    rare = next(w for w, n in reversed(ranked) if n == 1)
    pair_source = next(t.record.text for t in tpls if common in query_words(t.record.text))
    second = next(w for w in query_words(pair_source) if len(w) >= 5 and w.isalpha() and w != common)
    return common, rare, f"{common} {second}"


def index_revisions() -> tuple[str, str]:
    """The search index's migration (the one whose module builds ``INDEX``) and the revision it upgrades from."""
    from alembic.script import ScriptDirectory

    from feedback_intelligence.store.revisions import alembic_config

    scripts = ScriptDirectory.from_config(alembic_config()).walk_revisions()
    found = next(s for s in scripts if getattr(s.module, "INDEX", None) == INDEX)
    assert isinstance(found.down_revision, str)
    return found.revision, found.down_revision


def run_index_migration(connection: Any) -> None:
    """That one migration alone, as an upgrade of the filled table runs it; the later ones are already
    applied and must not run twice. The database is put back at the head afterwards."""
    from alembic import command

    from feedback_intelligence.store import revisions

    index_revision, before = index_revisions()
    connection.execute(text("UPDATE alembic_version SET version_num = :v"), {"v": before})
    config = revisions.alembic_config()
    config.attributes["connection"] = connection
    command.upgrade(config, index_revision)
    connection.execute(text("UPDATE alembic_version SET version_num = :v"), {"v": revisions.head()})


async def build_index(url: str) -> None:
    from feedback_intelligence.store.engine import create_engine_for

    engine = create_engine_for(url, command_timeout_s=None)  # a build takes minutes, not a request's 30 s
    try:
        async with engine.begin() as conn:
            await conn.run_sync(run_index_migration)
    finally:
        await engine.dispose()


async def ddl(url: str, *statements: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        for statement in statements:
            await conn.execute(statement)
    finally:
        await conn.close()


async def answer(store: FeedbackStore, flt: ItemFilter, *, use_copy: bool = True) -> tuple[list[str], int]:
    """The first page and the exact count; ``use_copy=False``: the count on ``feedback``, as before 0023."""
    first = await page([store], flt, None, PAGE)
    return [i.record.id for i in first.items], await count_of(store, flt, use_copy=use_copy)


async def p50_ms(store: FeedbackStore, flt: ItemFilter, *, use_copy: bool = True) -> float:
    return (await p50s_ms(store, flt, (use_copy,)))[0]


async def p50s_ms(store: FeedbackStore, flt: ItemFilter, ways: tuple[bool, ...]) -> list[float]:
    """p50 of each way (``use_copy``), the ways taking turns run by run: side by side under the same load."""
    for way in ways:
        await answer(store, flt, use_copy=way)  # warm the statement cache and the pages
    times: list[list[float]] = [[] for _ in ways]
    for _ in range(RUNS):
        for k, way in enumerate(ways):
            started = time.perf_counter()
            await answer(store, flt, use_copy=way)
            times[k].append((time.perf_counter() - started) * 1000)
    return [round(statistics.median(t), 1) for t in times]


async def measure(url: str, n: int) -> dict[str, Any]:
    domain = load_domain("retail")
    rng = random.Random(n)
    derive_ = DomainDeriver(domain)
    tpls = templates(domain, rng)
    store = FeedbackStore(url, derive=derive_)
    await store.migrate()
    async with store.engine.begin() as conn:  # filled without the indexes, then built: what a migration costs
        await conn.execute(text(f"DROP INDEX {INDEX}"))
        await conn.execute(text(f"DROP INDEX {search_rows.INDEX}"))
    started = time.perf_counter()
    await fill_postgres(url, n, tpls, derive_.rev, rng, Tally())
    fill_s = time.perf_counter() - started
    started = time.perf_counter()
    await build_index(url)
    build_s = time.perf_counter() - started
    started = time.perf_counter()
    await ddl(url, search_rows.CREATE_INDEX)
    copy_build_s = time.perf_counter() - started
    await ddl(url, "ANALYZE feedback", f"ANALYZE {search_rows.TABLE}")  # the copy too: its plans need its statistics
    window = (format_instant(to_ticks(NOW) - WINDOW_DAYS * 86_400 * 10_000_000), format_instant(to_ticks(NOW)))
    common, rare, pair = search_words(tpls)
    searches = [
        (f"q={q}" + (f", store={s}" if s else ""), ItemFilter(from_=window[0], to=window[1], q=q, store=s))
        for q in (common, rare, pair)
        for s in (None, STORES[0])
    ]
    rows: list[dict[str, Any]] = []
    try:
        for name, flt in searches:
            ids, total = await answer(store, flt)
            wide = await answer(store, flt, use_copy=False)
            copy_ms, rows_ms = await p50s_ms(store, flt, (True, False))
            rows.append(
                {"search": name, "matching": total, "ids": ids, "same": wide == (ids, total), "indexMs": copy_ms,
                 "rowsCountMs": rows_ms, "rowsOverCopy": round(rows_ms / max(copy_ms, 0.1), 1)}
            )  # fmt: skip
        async with store.engine.begin() as conn:
            await conn.execute(text(f"DROP INDEX {INDEX}"))
            await conn.execute(text("ANALYZE feedback"))
        for row, (_, flt) in zip(rows, searches, strict=True):
            ids, total = await answer(store, flt, use_copy=False)  # the scan every version before 0018 did
            row["same"] = row["same"] and ids == row.pop("ids") and total == row["matching"]
            row["scanMs"] = await p50_ms(store, flt, use_copy=False)
            row["scanOverIndex"] = round(row["scanMs"] / max(row["indexMs"], 0.1), 1)
    finally:
        await store.aclose()
    return {
        "items": n,
        "fillSeconds": round(fill_s, 1),
        "indexBuildSeconds": round(build_s, 1),
        "copyIndexBuildSeconds": round(copy_build_s, 1),
        "searches": rows,
    }


def _postgresql_table(result: dict[str, Any]) -> tuple[list[tuple[str, str, str]], bool]:
    ok = True
    table = [
        ("building the index", f"{result['indexBuildSeconds']} s on {result['items']:,} items", "(printed)"),
        ("building the copy's index", f"{result['copyIndexBuildSeconds']} s", "(printed)"),
        ("the fill (COPY, the copy's trigger on)", f"{result['fillSeconds']} s", "(printed)"),
    ]
    for row in result["searches"]:
        passed = row["same"] and row["indexMs"] <= TARGET_MS
        ok = ok and passed
        table.append(
            (
                f"{row['search']} ({row['matching']:,} items)",
                f"count from the copy {row['indexMs']} ms · on the rows {row['rowsCountMs']} ms"
                f" ({row['rowsOverCopy']}×) · scan {row['scanMs']} ms · same answer {row['same']}",
                f"≤ {TARGET_MS:.0f} ms: {'PASS' if passed else 'FAIL'}",
            )
        )
    return table, ok


def _sqlite_table(result: dict[str, Any]) -> tuple[list[tuple[str, str, str]], bool]:
    ok = True
    writes = result["writesPerSecond"]
    table = [
        ("building the index (0022)", f"{result['indexBuildSeconds']} s, {result['indexMiB']} MiB", "(printed)"),
        ("an erasure's merge of it", f"{result['optimizeSeconds']} s", "(printed)"),
        ("writes, rows/s", f"{writes['withIndex']:,} with the index · {writes['withoutIndex']:,} without", "(printed)"),
    ]
    for row in result["searches"]:
        ok = ok and row["same"]
        table.append(
            (
                f"{row['search']} ({row['matching']:,} items)",
                f"index {row['indexMs']} ms · scan {row['scanMs']} ms · scan/index {row['scanOverIndex']}×",
                f"same answer: {'PASS' if row['same'] else 'FAIL'}",
            )
        )
    return table, ok


async def main_async(args: argparse.Namespace) -> int:
    from bench.search_sqlite import measure_sqlite

    found: dict[str, Any] = {"runs": RUNS, "page": PAGE}
    ok = True
    if args.engine in ("sqlite", "both"):
        found["sqlite"] = await measure_sqlite(args.sqlite_items, page=PAGE, runs=RUNS)
        table, passed = _sqlite_table(found["sqlite"])
        ok = ok and passed
        print_table(f"search (page of {PAGE} + exact count), SQLite, {args.sqlite_items:,} items", table)
    if args.engine in ("postgresql", "both"):
        async with postgres_database("fi_search_bench") as url:
            found["postgresql"] = await measure(url, args.items)
        table, passed = _postgresql_table(found["postgresql"])
        ok = ok and passed
        print_table(f"search (page of {PAGE} + exact count), PostgreSQL, {args.items:,} items", table)
    path = write_result("search_scale", found)
    print(f"wrote {path}", file=sys.stderr)
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=("both", "postgresql", "sqlite"), default="both")
    parser.add_argument("--items", type=int, default=1_000_000, help="PostgreSQL's items")
    parser.add_argument("--sqlite-items", type=int, default=200_000, help="SQLite's items")
    return asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    raise SystemExit(main())
