"""The drill-in's pages (GET /report/items, ADR 0034): a keyset page deep in a big window against the
first page, and against the OFFSET page it replaced, side by side in one run on one database.

One database per engine (PostgreSQL: a fresh database on the local server; SQLite: a file) is filled
with bench/chain_scale's synthetic 30-day window. For each filter (none, the biggest category, a
search word) it times, p50 of several runs each: the first page, the page after a cursor ``DEPTH``
items down (both through ``report.items.page``, what the route calls; at most half the matching items down), the same
page by ``OFFSET DEPTH`` (the rejected alternative), and the filter's ``count(*)`` (the first page's
``total``; later pages carry it in their cursor).
The keyset pages are checked against the OFFSET page (the same ids). Ratios, not absolute targets:
a deep keyset page should cost about what the first costs (≤ 3×), and less than the OFFSET page.

Run: .venv/bin/python -m bench.drill_in [--items 100000] [--depth 20000] [--engines postgresql,sqlite]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from sqlalchemy import select

from bench.chain_scale import NOW, WINDOW_DAYS, Tally, fill_postgres, fill_sqlite, templates
from bench.common import print_table, write_result
from feedback_intelligence.derivation import DomainDeriver
from feedback_intelligence.devtools.databases import postgres_database, sqlite_url
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.instants.ticks import to_ticks
from feedback_intelligence.instants.timestamps import format_instant
from feedback_intelligence.report.items import page
from feedback_intelligence.store.aggregates import ItemFilter, where_clause
from feedback_intelligence.store.feedback_store import FeedbackStore
from feedback_intelligence.store.item_list import count_of
from feedback_intelligence.store.schema import feedback

PAGE = 50
RUNS = 9
TARGET_DEEP_RATIO = 3.0  # a deep keyset page at most this many times the first page


async def p50_ms(run: Callable[[], Awaitable[Any]], runs: int = RUNS) -> float:
    await run()  # warm the statement cache and the pages
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        await run()
        times.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(times), 2)


async def offset_ids(store: FeedbackStore, flt: ItemFilter, offset: int) -> list[str]:
    c = feedback.c
    statement = (
        select(c.id).where(where_clause(flt)).order_by(c.timestamp.desc(), c.id.desc()).offset(offset).limit(PAGE)
    )
    async with store.engine.connect() as conn:
        return [row.id for row in (await conn.execute(statement)).all()]


async def one_filter(store: FeedbackStore, name: str, flt: ItemFilter, depth: int) -> dict[str, Any]:
    first = await page([store], flt, None, PAGE)
    total = await count_of(store, flt)
    deep_at = min(depth, total // 2)  # a page in the middle: the last one scans to the window's start
    # the cursor a manager reaches after deep_at items: the key of the item just above the deep page
    before = await page([store], flt, None, deep_at) if deep_at else None
    cursor = before.items[-1].key() if before and before.items else None
    deep = await page([store], flt, cursor, PAGE)
    same = [i.record.id for i in deep.items] == await offset_ids(store, flt, deep_at)
    result = {
        "filter": name,
        "matching": total,
        "depth": deep_at,
        "firstPageMs": await p50_ms(lambda: page([store], flt, None, PAGE)),
        "deepPageMs": await p50_ms(lambda: page([store], flt, cursor, PAGE)),
        "offsetPageMs": await p50_ms(lambda: offset_ids(store, flt, deep_at)),
        "countMs": await p50_ms(lambda: count_of(store, flt)),
        "sameAsOffset": same,
        "firstPageItems": len(first.items),
    }
    result["deepOverFirst"] = round(result["deepPageMs"] / max(result["firstPageMs"], 0.01), 2)
    result["offsetOverDeep"] = round(result["offsetPageMs"] / max(result["deepPageMs"], 0.01), 2)
    return result


async def measure(store: FeedbackStore, biggest: str, depth: int) -> list[dict[str, Any]]:
    window = (format_instant(to_ticks(NOW) - 30 * 86_400 * 10_000_000), format_instant(to_ticks(NOW)))
    base = ItemFilter(from_=window[0], to=window[1])
    filters = [
        ("none", base),
        (f"category={biggest}", ItemFilter(from_=window[0], to=window[1], category=biggest)),
        ("q=maito", ItemFilter(from_=window[0], to=window[1], q="maito")),
    ]
    return [await one_filter(store, name, flt, depth) for name, flt in filters]


async def one_engine(engine: str, n: int, depth: int) -> dict[str, Any]:
    domain = load_domain("retail")
    rng = random.Random(n)
    derive_ = DomainDeriver(domain)
    tpls = templates(domain, rng)
    tally = Tally()
    if engine == "postgresql":
        async with postgres_database("fi_drill_bench") as url:
            store = FeedbackStore(url, derive=derive_)
            await store.migrate()
            await fill_postgres(url, n, tpls, derive_.rev, rng, tally)
            try:
                assert tally.categories is not None
                rows = await measure(store, tally.categories.most_common(1)[0][0], depth)
            finally:
                await store.aclose()
    else:
        with tempfile.TemporaryDirectory(prefix="fi-drill-") as tmp:
            url = sqlite_url(Path(tmp))
            store = FeedbackStore(url, derive=derive_)
            await store.migrate()
            await store.aclose()
            await asyncio.to_thread(fill_sqlite, Path(tmp) / "feedback.db", n, tpls, derive_.rev, rng, tally)
            store = FeedbackStore(url, derive=derive_)
            try:
                assert tally.categories is not None
                rows = await measure(store, tally.categories.most_common(1)[0][0], depth)
            finally:
                await store.aclose()
    return {"engine": engine, "items": n, "windowDays": WINDOW_DAYS, "page": PAGE, "filters": rows}


async def main_async(args: argparse.Namespace) -> int:
    results = []
    ok = True
    for engine in [e.strip() for e in args.engines.split(",") if e.strip()]:
        result = await one_engine(engine, args.items, args.depth)
        results.append(result)
        table = []
        for row in result["filters"]:
            passed = row["sameAsOffset"] and row["deepOverFirst"] <= TARGET_DEEP_RATIO
            ok = ok and passed
            table.append(
                (
                    f"{row['filter']} ({row['matching']:,} items, depth {row['depth']:,})",
                    f"first {row['firstPageMs']} ms · deep {row['deepPageMs']} ms · offset {row['offsetPageMs']} ms"
                    f" · count {row['countMs']} ms · deep/first {row['deepOverFirst']}×"
                    f" · offset/deep {row['offsetOverDeep']}× · same {row['sameAsOffset']}",
                    f"deep/first ≤ {TARGET_DEEP_RATIO}×: {'PASS' if passed else 'FAIL'}",
                )
            )
        print_table(f"drill-in pages, {engine}, {args.items:,} items", table)
    path = write_result("drill_in", {"runs": RUNS, "results": results})
    print(f"wrote {path}", file=sys.stderr)
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--depth", type=int, default=20_000)
    parser.add_argument("--engines", default="postgresql,sqlite")
    return asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    raise SystemExit(main())
