"""The SQLite half of ``bench.search_scale`` (ADR 0070): the same searches on a SQLite file, read through
the FTS5 trigram index of migration 0022 and by the scan (the same statements with the index left out,
``where_clause(…, use_index=False)``), side by side in one run on one file; the answers compared.

The file is filled at revision 0021 (no index), then migration 0022 is timed as an upgrade runs it (it
builds the index from the rows); the index's size, the merge an erasure runs (``search.OPTIMIZE``) and the
fill's rate with the index's triggers against without them are printed too.
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
import statistics
import tempfile
import time
from contextlib import closing
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from bench.chain_scale import COLUMNS, NOW, STORES, WINDOW_DAYS, Tally, fill_sqlite, rows, templates
from feedback_intelligence.derivation import DomainDeriver
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.instants.ticks import to_ticks
from feedback_intelligence.instants.timestamps import format_instant
from feedback_intelligence.store import search
from feedback_intelligence.store.aggregates import ItemFilter, where_clause
from feedback_intelligence.store.feedback_store import FeedbackStore
from feedback_intelligence.store.item_list import count_of
from feedback_intelligence.store.schema import feedback

BEFORE = "0021"  # the revision before the index's migration
#: Rows written by the fill's own path onto the filled file, with the index's triggers and then without.
WRITES = 5_000


def upgrade_to(connection: Any, revision: str) -> None:
    from alembic import command

    from feedback_intelligence.store import revisions

    config = revisions.alembic_config()
    config.attributes["connection"] = connection
    command.upgrade(config, revision)


async def answer(store: FeedbackStore, flt: ItemFilter, *, use_index: bool, page: int) -> tuple[list[str], int]:
    """What ``GET /report/items`` asks of one database for a first page (store/item_list.py's two
    statements), with SQLite's search index or without it."""
    c = feedback.c
    where = where_clause(flt, use_index=use_index)
    statement = select(feedback).where(where).order_by(c.timestamp.desc(), c.id.desc()).limit(page)
    async with store.connection() as conn:
        ids = [row.id for row in (await conn.execute(statement)).all()]
        total = (await conn.execute(select(func.count()).select_from(feedback).where(where))).scalar_one()
    return ids, int(total)


async def p50_ms(store: FeedbackStore, flt: ItemFilter, *, use_index: bool, page: int, runs: int) -> float:
    await answer(store, flt, use_index=use_index, page=page)  # warm the pages
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        await answer(store, flt, use_index=use_index, page=page)
        times.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(times), 1)


def index_bytes(path: Path) -> int:
    """The index's pages: the FTS5 table's own tables and the table of its rowids with its key."""
    with sqlite3.connect(path) as db:
        found = db.execute(
            "SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name LIKE ? OR name LIKE ?",
            (f"{search.INDEX_TABLE}%", f"sqlite_autoindex_{search.INDEX_TABLE}%"),
        )
        return int(found.fetchone()[0])


def write_rate(path: Path, tpls: list[Any], rev: str, writes: int, *, triggers: bool) -> int:
    """Rows a second of ``writes`` more rows (ids of their own, one transaction, then deleted), the index's
    triggers on or dropped and put back: what the index adds to a write."""
    tag = "wt" if triggers else "wn"
    batch = [row for row, _ in rows(writes, tpls, rev, random.Random(tag), Tally(), prefix=tag)]
    insert = f"INSERT INTO feedback ({','.join(COLUMNS)}) VALUES ({','.join('?' * len(COLUMNS))})"
    with closing(sqlite3.connect(path)) as db:
        kept = db.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name IN (?, ?, ?)", search.TRIGGERS)
        saved = [row[0] for row in kept]
        with db:
            if not triggers:
                for name in search.TRIGGERS:
                    db.execute(f"DROP TRIGGER {name}")
            started = time.perf_counter()
            db.executemany(insert, batch)
        elapsed = time.perf_counter() - started
        with db:
            db.execute("DELETE FROM feedback WHERE id LIKE ?", (f"{tag}%",))
            if not triggers:
                for sql in saved:
                    db.execute(sql)
    return round(writes / elapsed)


async def measure_sqlite(n: int, *, page: int = 50, runs: int = 7) -> dict[str, Any]:
    domain = load_domain("retail")
    rng = random.Random(n)
    derive_ = DomainDeriver(domain)
    tpls = templates(domain, rng)
    with tempfile.TemporaryDirectory(prefix="fi-search-") as tmp:
        path = Path(tmp) / "feedback.db"
        store = FeedbackStore(f"sqlite+aiosqlite:///{path}", derive=derive_)
        try:
            async with store.engine.begin() as conn:
                await conn.run_sync(upgrade_to, BEFORE)
            started = time.perf_counter()
            await asyncio.to_thread(fill_sqlite, path, n, tpls, derive_.rev, rng, Tally())
            fill_s = time.perf_counter() - started
            started = time.perf_counter()
            await store.migrate()  # 0022 alone: the index built from the rows
            build_s = time.perf_counter() - started
            size = index_bytes(path)
            started = time.perf_counter()
            async with store.engine.begin() as conn:
                await conn.exec_driver_sql(search.OPTIMIZE)
            optimize_s = time.perf_counter() - started
            with_triggers = await asyncio.to_thread(write_rate, path, tpls, derive_.rev, min(n, WRITES), triggers=True)
            without = await asyncio.to_thread(write_rate, path, tpls, derive_.rev, min(n, WRITES), triggers=False)
            found = await searches(store, tpls, page, runs)
        finally:
            await store.aclose()
    return {
        "items": n,
        "fillSeconds": round(fill_s, 1),
        "indexBuildSeconds": round(build_s, 1),
        "indexBytes": size,
        "indexMiB": round(size / 2**20, 1),
        "optimizeSeconds": round(optimize_s, 2),
        "writesPerSecond": {"withIndex": with_triggers, "withoutIndex": without},
        "searches": found,
    }


async def searches(store: FeedbackStore, tpls: list[Any], page: int, runs: int) -> list[dict[str, Any]]:
    from bench.search_scale import search_words

    window = (format_instant(to_ticks(NOW) - WINDOW_DAYS * 86_400 * 10_000_000), format_instant(to_ticks(NOW)))
    common, rare, pair = search_words(tpls)
    found: list[dict[str, Any]] = []
    for q in (common, rare, pair):
        for s in (None, STORES[0]):
            flt = ItemFilter(from_=window[0], to=window[1], q=q, store=s)
            ids, total = await answer(store, flt, use_index=True, page=page)
            scan = await answer(store, flt, use_index=False, page=page)
            served = await count_of(store, flt)  # the product's own statement reads the index too
            index_ms = await p50_ms(store, flt, use_index=True, page=page, runs=runs)
            scan_ms = await p50_ms(store, flt, use_index=False, page=page, runs=runs)
            found.append(
                {
                    "search": f"q={q}" + (f", store={s}" if s else ""),
                    "matching": total,
                    "same": (ids, total) == scan and served == total,
                    "indexMs": index_ms,
                    "scanMs": scan_ms,
                    "scanOverIndex": round(scan_ms / max(index_ms, 0.1), 1),
                }
            )
    return found
