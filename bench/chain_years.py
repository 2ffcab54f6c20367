"""A 50-store chain's five years on PostgreSQL: the report and the search over 10,000,000 items.

The fill runs in the server, not in Python: bench/chain_scale's 600 template rows (texts from the demo
corpus, derived once each, alert hits and issue included) are copied into a table of their own, and one
``INSERT … SELECT`` over ``generate_series`` a chunk writes the items, each taking its template, store
(one of 50), instant (uniform over five years) and review flag from ``hashint8extended`` of its number
under a seed of its own. The feedback table's secondary indexes are dropped before and built again after
(as their migrations define them, read back from ``pg_indexes``), then ``VACUUM ANALYZE`` and the rollups
(the counts', the themes', the series' and the issue view's) rebuilt from the rows. Each step is timed.
``--only report`` fills neither the search's copy nor its trigram indexes (most of a fill's time at
10,000,000 items), which only the search reads.

The generator's tally is the same hash arithmetic over ``generate_series`` grouped by template, never a
read of ``feedback``: the report's counts (the issue groups' too) are checked against it exactly.

Then, cold (the deterministic cache off), p50 of several runs: ``ReportService.view`` (what ``GET /report``
answers) for the last 30 days and the last 365 days, with the process's RSS growth, and the manager's
search (page of 50 + exact count, ``bench/search_scale``'s three searches, with a store's filter and
without) over the same two windows. The plans of the report's statements over a year are printed.

Targets: the report's cold p50 ≤ 500 ms for both windows, exact, RSS growth ≤ 100 MB.

Run: .venv/bin/python -m bench.chain_years [--items 10000000] [--keep] [--database NAME]
(``--keep`` leaves the filled database for another run; ``--database`` measures one left so.)
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from datetime import timedelta
from typing import Any

from sqlalchemy import text

from bench.chain_scale import COLUMNS, NOW, Tally, Template, check_counts, rss_mb, templates
from bench.common import print_table, summary_ms, write_result
from bench.search_scale import answer, p50s_ms, search_words
from feedback_intelligence.config import ReportSettings
from feedback_intelligence.derivation import DomainDeriver
from feedback_intelligence.devtools.databases import PG_ADMIN_DSN
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.instants.ticks import to_ticks
from feedback_intelligence.instants.timestamps import format_instant
from feedback_intelligence.report.service import ReportService
from feedback_intelligence.report.sources import StoreSource
from feedback_intelligence.report.window import build_window
from feedback_intelligence.store import aggregates, rollups, search_rows
from feedback_intelligence.store.aggregates import ItemFilter
from feedback_intelligence.store.feedback_store import FeedbackStore

ITEMS = 10_000_000
YEARS_DAYS = 5 * 365 + 1
STORES = tuple(f"s{n:02d}" for n in range(1, 51))
WINDOWS_DAYS = (30, 365)
CHUNK = 1_000_000
RUNS = 5
TARGET_MS = 500.0
TARGET_RSS_MB = 100.0
SEED = 20261207

TEMPLATE_COLUMNS = (
    "source", "text", "structure_json", "structure_failed", "alerts_json", "category", "severity", "type",
    "sentiment", "language", "severity_rank", "rated", "theme_base", "alert", "text_folded", "issue",
)  # fmt: skip


def _hash(column: str, salt: int) -> str:
    """A non-negative pseudo-random bigint of ``column`` (the item's number), one stream per ``salt``."""
    return f"(hashint8extended({column}, {SEED + salt}) & 9223372036854775807)"


def _span_us() -> int:
    return YEARS_DAYS * 86_400 * 1_000_000


def _generated(first: int, last: int, n_templates: int) -> str:
    """The items ``first``–``last``: number, template, store, instant (fixed-width UTC text), review flag."""
    start = (NOW - timedelta(days=YEARS_DAYS)).strftime("%Y-%m-%d %H:%M:%S")
    stores = "ARRAY[" + ",".join(f"'{s}'" for s in STORES) + "]"
    instant = f"(TIMESTAMP '{start}' + ({_hash('g', 2)} % {_span_us()}) * INTERVAL '1 microsecond')"
    return f"""
        SELECT g,
               {_hash("g", 1)} % {n_templates} AS k,
               ({stores})[1 + {_hash("g", 3)} % {len(STORES)}] AS store,
               to_char({instant}, 'YYYY-MM-DD"T"HH24:MI:SS.US') || '0+00:00' AS stamp,
               {_hash("g", 4)} % 100 < 4 AS review
        FROM generate_series({first}::bigint, {last}::bigint) AS g"""


def _dumps(value: Any) -> str:
    from bench.chain_scale import _dumps as dumps

    return dumps(value)


async def _admin(statement: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(PG_ADMIN_DSN)
    try:
        await conn.execute(statement)
    finally:
        await conn.close()


def _dsn(url: str) -> str:
    return url.replace("postgresql+asyncpg://", "postgresql://")


async def fill(url: str, n: int, tpls: list[Template], rev: str, *, search: bool = True) -> dict[str, float]:
    """Write ``n`` items in the server; returns each step's seconds. Without ``search``, the search's copy
    stays empty and the trigram indexes are not built."""
    import asyncpg

    times: dict[str, float] = {}
    conn = await asyncpg.connect(_dsn(url), command_timeout=None)
    try:
        await conn.execute("SET maintenance_work_mem = '1GB'")
        await conn.execute(
            "CREATE TABLE bench_templates (k int PRIMARY KEY, "
            + ", ".join(f"{c} {'boolean' if c in ('structure_failed', 'rated', 'alert') else 'text'}"
                        for c in TEMPLATE_COLUMNS).replace("severity_rank text", "severity_rank smallint")
            + ")"
        )  # fmt: skip
        await conn.execute(
            "CREATE TABLE bench_template_alerts (k int, seq smallint, category text, pattern text, words_json text)"
        )
        rows, hits = [], []
        for k, t in enumerate(tpls):
            r, d = t.record, t.derived
            rows.append(
                (
                    k,
                    r.source,
                    r.text,
                    _dumps(r.structure.to_json()) if r.structure else None,
                    r.structure_failed,
                    _dumps([a.to_json() for a in r.alerts]),
                    d.category,
                    d.severity,
                    d.type,
                    d.sentiment,
                    d.language,
                    d.severity_rank,
                    d.rated,
                    d.theme_base,
                    d.alert,
                    d.text_folded,
                    d.issue,
                )
            )
            hits += [(k, seq, a.category, a.pattern, _dumps(list(a.words))) for seq, a in enumerate(d.alerts)]
        await conn.copy_records_to_table("bench_templates", records=rows, columns=["k", *TEMPLATE_COLUMNS])
        await conn.copy_records_to_table("bench_template_alerts", records=hits)
        indexes = await conn.fetch(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename IN ('feedback', 'feedback_alerts', $1) "
            "AND indexname NOT LIKE '%\\_pkey'",
            search_rows.TABLE,
        )
        for row in indexes:
            await conn.execute(f"DROP INDEX {row['indexname']}")
        if not search:
            indexes = [row for row in indexes if "gin_trgm_ops" not in row["indexdef"]]
        # the rows are the generator's own: no foreign key to check on each alert row
        await conn.execute("SET session_replication_role = replica")
        started = time.perf_counter()
        names = ", ".join((*COLUMNS, "issue"))
        for first in range(0, n, CHUNK):
            last = min(n, first + CHUNK) - 1
            await conn.execute(
                f"""INSERT INTO feedback ({names})
                SELECT 'y' || lpad(g.g::text, 8, '0'), t.source, t.text, g.stamp, g.stamp, t.structure_json,
                       t.structure_failed, false, '[]', t.alerts_json, NULL, g.review, '[]', false, 0, 0, g.store,
                       t.category, t.severity, t.type, t.sentiment, t.language, t.severity_rank, t.rated,
                       t.theme_base, t.alert, t.text_folded, NULL, $1, t.issue
                FROM ({_generated(first, last, len(tpls))}) g JOIN bench_templates t ON t.k = g.k""",
                rev,
            )
            await conn.execute(
                f"""INSERT INTO feedback_alerts
                SELECT 'y' || lpad(g.g::text, 8, '0'), a.seq, a.category, a.pattern, a.words_json
                FROM ({_generated(first, last, len(tpls))}) g JOIN bench_template_alerts a ON a.k = g.k"""
            )
            print(f"  {last + 1:,} items, {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
        # the replica role skipped the copy's trigger (migration 0023): the copy is filled as its migration does
        if search:
            await conn.execute(
                f'INSERT INTO {search_rows.TABLE} (id, "timestamp", store, text_folded) '
                'SELECT id, "timestamp", store, text_folded FROM feedback'
            )
        times["insertSeconds"] = round(time.perf_counter() - started, 1)
        started = time.perf_counter()
        await conn.execute("SET max_parallel_maintenance_workers = 2")
        for row in indexes:
            began = time.perf_counter()
            await conn.execute(row["indexdef"])
            took = times[f"index {row['indexname']}"] = round(time.perf_counter() - began, 1)
            print(f"  {row['indexname']}: {took} s", file=sys.stderr, flush=True)
        times["indexSeconds"] = round(time.perf_counter() - started, 1)
        started = time.perf_counter()
        await conn.execute("VACUUM ANALYZE feedback")
        await conn.execute("VACUUM ANALYZE feedback_alerts")
        await conn.execute(f"VACUUM ANALYZE {search_rows.TABLE}")
        times["vacuumSeconds"] = round(time.perf_counter() - started, 1)
    finally:
        await conn.close()
    return times


async def tally(url: str, n: int, tpls: list[Template], windows: dict[int, tuple[str, str]]) -> dict[int, Tally]:
    """The generator's count of each window, from the same arithmetic over ``generate_series``."""
    import asyncpg

    counts = ", ".join(
        f"count(*) FILTER (WHERE stamp BETWEEN '{a}' AND '{b}') AS n{d}, "
        f"count(*) FILTER (WHERE review AND stamp BETWEEN '{a}' AND '{b}') AS r{d}"
        for d, (a, b) in windows.items()
    )
    conn = await asyncpg.connect(_dsn(url), command_timeout=None)
    try:
        rows = await conn.fetch(f"SELECT k, {counts} FROM ({_generated(0, n - 1, len(tpls))}) g GROUP BY k")
    finally:
        await conn.close()
    out = {d: Tally() for d in windows}
    for row in rows:
        t = tpls[row["k"]]
        for d, found in out.items():
            items = int(row[f"n{d}"])
            found.total += items
            found.needs_review += int(row[f"r{d}"])
            found.structure_failed += items * t.record.structure_failed
            if t.derived.category is not None and items:
                assert found.categories is not None
                found.categories[t.derived.category] += items
            if t.derived.issue is not None and items:
                assert found.issues is not None
                found.issues[t.derived.issue] += items
    return out


async def rollups_of(url: str) -> dict[str, Any]:
    """The rollups rebuilt from the rows when they are empty (a fill wrote past the write path), on an engine
    without the request's statement timeout: at 10,000,000 items the rebuild takes minutes."""
    from feedback_intelligence.store.engine import create_engine_for

    engine = create_engine_for(url, command_timeout_s=None)
    try:
        async with engine.begin() as conn:
            if await conn.scalar(text("SELECT count(*) FROM feedback_daily")):
                return {"rebuilt": False}
            started = time.perf_counter()
            made = await rollups.rebuild(conn)
            for name in made:
                await conn.execute(text(f"ANALYZE {name}"))
        return {"rebuilt": True, "rollupSeconds": round(time.perf_counter() - started, 1), "rollupRows": made}
    finally:
        await engine.dispose()


def window_of(days: int) -> tuple[str, str]:
    return format_instant(to_ticks(NOW) - days * 86_400 * 10_000_000), format_instant(to_ticks(NOW))


def days_only(part: rollups.Plan) -> tuple[list[str], list[tuple[str, str]]]:
    """The path before the monthly rollups (ADR 0087), kept here only: every whole day from the daily rows."""
    return [], [(part.first, part.last)]


async def report(store: FeedbackStore, domain: Domain, days: int, expected: Tally) -> dict[str, Any]:
    """The cold report of the last ``days``: p50 of ``RUNS``, exact against the tally, RSS growth; run by run
    taking turns with the same report whose whole days all come from the daily rollups (``days_only``)."""
    import gc
    from unittest import mock

    options = ReportSettings(cache_seconds=0)
    service = ReportService(domain, options, None, StoreSource([store]))
    gc.collect()
    before = peak = rss_mb()
    times: dict[bool, list[float]] = {True: [], False: []}
    exact = True
    for k in range(RUNS):
        for months in (True, False) if k % 2 == 0 else (False, True):  # neither always first
            from_, _to = window_of(days)
            to = format_instant(to_ticks(NOW) + (2 * k + months) * 10_000)  # a window never asked before
            window = build_window(from_, to, NOW, options)
            with mock.patch.object(rollups, "month_cover", rollups.month_cover if months else days_only):
                started = time.perf_counter()
                answer_ = (await service.view(window)).to_json()
                times[months].append((time.perf_counter() - started) * 1000)
            exact &= check_counts(answer_, expected)
            del answer_
            peak = max(peak, rss_mb())
    return {
        "cold": summary_ms(times[True]),
        "coldDaysOnly": summary_ms(times[False]),
        "exact": exact,
        "rssGrowthMb": round(peak - before, 1),
        "items": expected.total,
    }


async def searches(store: FeedbackStore, tpls: list[Template], days: int) -> list[dict[str, Any]]:
    from_, to = window_of(days)
    common, rare, pair = search_words(tpls)
    out = []
    for q in (common, rare, pair):
        for s in (None, STORES[0]):
            flt = ItemFilter(from_=from_, to=to, q=q, store=s)
            found = await answer(store, flt)
            same = found == await answer(store, flt, use_copy=False)
            copy_ms, rows_ms = await p50s_ms(store, flt, (True, False))
            name = f"q={q}" + (f", store={s}" if s else "")
            out.append({"search": name, "matching": found[1], "ms": copy_ms, "rowsCountMs": rows_ms, "same": same})
    return out


async def explain_year(store: FeedbackStore, biggest: str) -> list[str]:
    """The plans of the year's report statements (bench/chain_scale's set)."""
    from bench.chain_scale import explain
    from feedback_intelligence.report.window import build_window as window_for

    options = ReportSettings(cache_seconds=0)
    from_, _to = window_of(365)
    window = window_for(from_, None, NOW, options)
    plans = await explain(store, window, options.max_items, biggest)
    halves = rollups.plan(rollups.DAY, window.from_norm, window.to_norm, window.midpoint_norm)
    whole = rollups.plan(rollups.DAY, window.from_norm, window.to_norm)
    assert halves is not None and whole is not None
    flt = ItemFilter(from_=window.from_norm, to=window.to_norm)
    statements = {
        "issues over every row of the window (without the issue rollups)": aggregates._issue_statement(
            flt, window.midpoint_norm
        ),
        "issue themes over every row of the window": aggregates._issue_theme_statement(flt),
        "issues by store, whole days from the rollup": rollups.issue_statement(halves),
        "issues by category, whole days from the rollup": rollups.issue_category_statement(whole),
        "issue themes, whole days from the rollup": rollups.issue_theme_statement(whole),
    }
    async with store.engine.connect() as conn:
        for name, statement in statements.items():
            compiled = statement.compile(conn.sync_connection, compile_kwargs={"literal_binds": True})
            plan = (await conn.exec_driver_sql(f"EXPLAIN (ANALYZE, BUFFERS OFF, TIMING OFF) {compiled}")).all()
            plans += [f"-- {name}", *(str(line[0]) for line in plan)]
    return plans


async def main_async(args: argparse.Namespace) -> int:
    domain = load_domain("retail")
    derive_ = DomainDeriver(domain)
    tpls = templates(domain, random.Random(1_000_000))  # bench/search_scale's: the same words
    name = args.database or f"fi_chain_years_{args.items}"
    server = PG_ADMIN_DSN.split("://", 1)[1].rsplit("/", 1)[0]
    url = f"postgresql+asyncpg://{server}/{name}"
    found: dict[str, Any] = {"items": args.items, "stores": len(STORES), "days": YEARS_DAYS}
    if args.database is None:
        await _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await _admin(f'CREATE DATABASE "{name}"')
    try:
        store = FeedbackStore(url, derive=derive_)
        try:
            if args.database is None:
                started = time.perf_counter()
                await store.migrate()
                found["fill"] = await fill(url, args.items, tpls, derive_.rev, search=args.only != "report")
                found["fill"]["totalSeconds"] = round(time.perf_counter() - started, 1)
                print(f"filled: {found['fill']}", file=sys.stderr, flush=True)
            elif args.only != "report":  # a database left by an older release: its migrations first
                started = time.perf_counter()
                await store.migrate()
                found["migrateSeconds"] = round(time.perf_counter() - started, 1)
            found["rollups"] = await rollups_of(url)
            windows = {d: window_of(d) for d in WINDOWS_DAYS}
            tallies = await tally(url, args.items, tpls, windows)
            if args.only != "search":
                found["report"] = {d: await report(store, domain, d, tallies[d]) for d in WINDOWS_DAYS}
                print(f"report: {found['report']}", file=sys.stderr, flush=True)
                assert tallies[365].categories is not None
                found["plans"] = await explain_year(store, tallies[365].categories.most_common(1)[0][0])
            if args.only != "report":
                found["search"] = {d: await searches(store, tpls, d) for d in WINDOWS_DAYS}
        finally:
            await store.aclose()
    finally:
        if not args.keep and args.database is None:
            await _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    for line in found.get("plans", []):
        print(line)
    ok = True
    table: list[tuple[str, str, str]] = []
    for d, r in found.get("report", {}).items():
        passed = r["exact"] and r["cold"]["p50"] <= TARGET_MS and r["rssGrowthMb"] <= TARGET_RSS_MB
        ok = ok and passed
        table.append(
            (
                f"report, last {d} days ({r['items']:,} items)",
                f"cold p50 {r['cold']['p50']:.0f} ms · p90 {r['cold']['p90']:.0f} ms"
                f" (days only {r['coldDaysOnly']['p50']:.0f} · {r['coldDaysOnly']['p90']:.0f}) · exact {r['exact']}"
                f" · RSS +{r['rssGrowthMb']} MB",
                f"≤ {TARGET_MS:.0f} ms, ≤ {TARGET_RSS_MB:.0f} MB: {'PASS' if passed else 'FAIL'}",
            )
        )
    for d, rows in found.get("search", {}).items():
        for row in rows:
            ok = ok and row["same"]
            table.append(
                (
                    f"{row['search']}, last {d} days ({row['matching']:,})",
                    f"count from the copy {row['ms']} ms · on the rows {row['rowsCountMs']} ms",
                    f"same answer: {'PASS' if row['same'] else 'FAIL'}",
                )
            )
    print_table(f"chain_years: {args.items:,} items, {len(STORES)} stores, {YEARS_DAYS} days", table)
    write_result("chain_years", found)
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=ITEMS)
    parser.add_argument("--keep", action="store_true", help="leave the filled database")
    parser.add_argument("--database", help="measure a database a --keep run left (no fill)")
    parser.add_argument("--only", choices=("both", "report", "search"), default="both")
    return asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    raise SystemExit(main())
