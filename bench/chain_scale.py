"""A chain's report window: the deterministic answer over 10,000, 100,000 and 1,000,000 items (ADR 0026).

For each size a database of its own (PostgreSQL: a fresh database on the local server; SQLite: a file)
is filled with a 30-day window of synthetic retail feedback — texts from the demo corpus, 20 stores,
skewed categories, realistic severities, types, alerts and review flags — written with COPY (PostgreSQL)
or batched inserts (SQLite), derived columns and alert child rows included (derived once per template
record by ``derivation.derive``, as a write would). Then ``ReportService.view`` — what ``GET /report``
answers — over ``StoreSource`` (grouped counts in the database, ``store/aggregates``), cold (the
deterministic cache off, so every answer is built), p50 of several runs; the counts are checked exactly
against the generator's own tally; the process's RSS growth over the runs; the statements' plans
(EXPLAIN) at the largest size. Targets (at 1,000,000 on PostgreSQL): ≤ 500 ms p50 cold, RSS growth
≤ 100 MB, and a curve that grows with what is shown rather than with the items.

Run: .venv/bin/python -m bench.chain_scale [--pg-sizes 10000,100000,1000000] [--sqlite-sizes 100000]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import text

from bench.common import print_table, summary_ms, write_result
from bench.procfs import rss_bytes
from feedback_intelligence.config import ReportSettings
from feedback_intelligence.demo.corpus import load_corpus
from feedback_intelligence.derivation import DomainDeriver, derive
from feedback_intelligence.deterministic.alerts import match_alerts
from feedback_intelligence.devtools.databases import postgres_database, sqlite_url
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.instants.ticks import to_ticks
from feedback_intelligence.instants.timestamps import format_instant
from feedback_intelligence.records import Derived, StoredFeedback, Structure
from feedback_intelligence.report.series import bucket_bounds
from feedback_intelligence.report.service import ReportService
from feedback_intelligence.report.sources import StoreSource
from feedback_intelligence.report.window import Window, build_window
from feedback_intelligence.store import aggregates, rollups
from feedback_intelligence.store.aggregates import ItemFilter
from feedback_intelligence.store.feedback_store import FeedbackStore

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
WINDOW_DAYS = 30
PG_SIZES = (10_000, 100_000, 1_000_000)
SQLITE_SIZES = (100_000,)
TARGET_ITEMS = 1_000_000
TARGET_MS = 500.0
TARGET_RSS_MB = 100.0
TEMPLATES = 600
STORES = tuple(f"s{n:02d}" for n in range(1, 21))
SEVERITIES = (("low", 0.45), ("medium", 0.33), ("high", 0.17), ("critical", 0.05))
TYPES = (("complaint", 0.55), ("praise", 0.15), ("suggestion", 0.15), ("question", 0.10), ("other", 0.05))
THEMES = ("hinta", "laatu", "saatavuus", "tuoreus", "palvelu", "jono", "hylly", "pakkaus", "takuu", "opasteet")
COLUMNS = (
    "id", "source", "text", "timestamp", "created_at", "structure_json", "structure_failed", "model_failed",
    "salvage_notes_json", "alerts_json", "corrections_json", "needs_review", "review_flags_json", "structure_due",
    "structure_attempts", "structure_preemptions", "store", "category", "severity", "type", "sentiment",
    "language", "severity_rank", "rated", "theme_base", "alert", "text_folded", "corrected_fields", "derived_rev",
)  # fmt: skip


def _pick(rng: random.Random, weighted: Sequence[tuple[str, float]]) -> str:
    return rng.choices([v for v, _ in weighted], weights=[w for _, w in weighted])[0]


@dataclass(frozen=True, slots=True)
class Template:
    record: StoredFeedback
    derived: Derived


def templates(domain: Domain, rng: random.Random) -> list[Template]:
    texts = [line["text"] for line in load_corpus(now=NOW)]
    categories = list(domain.categories)
    weights = [1.0 / (k + 1) for k in range(len(categories))]  # skewed: a few big categories
    out = []
    for k in range(TEMPLATES):
        text = rng.choice(texts)
        structure = None
        if rng.random() > 0.03:
            structure = Structure(
                rng.choices(categories, weights=weights)[0],
                rng.choice(THEMES),
                _pick(rng, SEVERITIES),
                _pick(rng, TYPES),
                "fi",
                None,
            )
        record = StoredFeedback(
            id=f"t{k}",
            source=rng.choice(domain.sources),
            text=text,
            timestamp="",
            created_at="",
            structure=structure,
            structure_failed=structure is None,
            alerts=tuple(match_alerts(text, domain)),
        )
        out.append(Template(record, derive(record, domain)))
    return out


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@dataclass
class Tally:
    """The generator's own count of what it wrote: the answer's counts are checked against it."""

    total: int = 0
    structure_failed: int = 0
    needs_review: int = 0
    categories: Counter[str] | None = None
    issues: Counter[str] | None = None  # the issue groups' counts

    def __post_init__(self) -> None:
        self.categories = Counter()
        self.issues = Counter()


def rows(
    n: int, tpls: list[Template], rev: str, rng: random.Random, tally: Tally, prefix: str = "c"
) -> Iterator[tuple[tuple[Any, ...], list[tuple[Any, ...]]]]:
    start = to_ticks(NOW - timedelta(days=WINDOW_DAYS))
    span = to_ticks(NOW) - start
    for k in range(n):
        t = tpls[rng.randrange(len(tpls))]
        r, d = t.record, t.derived
        stamp = format_instant(start + rng.randrange(span))
        review = rng.random() < 0.04
        tally.total += 1
        tally.structure_failed += r.structure_failed
        tally.needs_review += review
        if d.category is not None:
            assert tally.categories is not None
            tally.categories[d.category] += 1
        row = (
            f"{prefix}{k:07d}", r.source, r.text, stamp, stamp,
            _dumps(r.structure.to_json()) if r.structure else None, r.structure_failed, False, "[]",
            _dumps([a.to_json() for a in r.alerts]), None, review, "[]", False, 0, 0, rng.choice(STORES),
            d.category, d.severity, d.type, d.sentiment, d.language, d.severity_rank, d.rated, d.theme_base,
            d.alert, d.text_folded, d.corrected_fields, rev,
        )  # fmt: skip
        alerts = [(row[0], seq, a.category, a.pattern, _dumps(list(a.words))) for seq, a in enumerate(d.alerts)]
        yield row, alerts


BATCH = 20_000


async def fill_postgres(url: str, n: int, tpls: list[Template], rev: str, rng: random.Random, tally: Tally) -> None:
    import asyncpg

    dsn = url.replace("postgresql+asyncpg://", "postgresql://")
    conn = await asyncpg.connect(dsn)
    try:
        batch: list[tuple] = []
        hits: list[tuple] = []
        for row, alerts in rows(n, tpls, rev, rng, tally):
            batch.append(row)
            hits.extend(alerts)
            if len(batch) >= BATCH:
                await conn.copy_records_to_table("feedback", records=batch, columns=list(COLUMNS))
                await conn.copy_records_to_table("feedback_alerts", records=hits)
                batch, hits = [], []
        if batch:
            await conn.copy_records_to_table("feedback", records=batch, columns=list(COLUMNS))
            await conn.copy_records_to_table("feedback_alerts", records=hits)
        await conn.execute("VACUUM ANALYZE feedback")
        await conn.execute("VACUUM ANALYZE feedback_alerts")
    finally:
        await conn.close()


def fill_sqlite(path: Path, n: int, tpls: list[Template], rev: str, rng: random.Random, tally: Tally) -> None:
    import sqlite3

    db = sqlite3.connect(path)
    try:
        marks = ",".join("?" * len(COLUMNS))
        insert_row = f"INSERT INTO feedback ({','.join(COLUMNS)}) VALUES ({marks})"
        batch: list[tuple] = []
        hits: list[tuple] = []
        for row, alerts in rows(n, tpls, rev, rng, tally):
            batch.append(row)
            hits.extend(alerts)
            if len(batch) >= BATCH:
                with db:
                    db.executemany(insert_row, batch)
                    db.executemany("INSERT INTO feedback_alerts VALUES (?,?,?,?,?)", hits)
                batch, hits = [], []
        with db:
            db.executemany(insert_row, batch)
            db.executemany("INSERT INTO feedback_alerts VALUES (?,?,?,?,?)", hits)
        db.execute("ANALYZE")
    finally:
        db.close()


async def rebuild_rollups(store: FeedbackStore) -> dict[str, Any]:
    """The fill wrote the rows by COPY, past the write path: the rollups are rebuilt from them, as
    ``feedctl rollups rebuild`` does on an existing database (timed: what an operator waits for)."""
    started = time.perf_counter()
    async with store.engine.begin() as conn:
        made = await rollups.rebuild(conn)
        if conn.dialect.name == "postgresql":
            for table in made:
                await conn.execute(text(f"ANALYZE {table}"))
    return {"rollupSeconds": round(time.perf_counter() - started, 1), "rollupRows": made}


def rss_mb() -> float:
    return rss_bytes(os.getpid()) / 2**20


def check_counts(report: dict[str, Any], tally: Tally) -> bool:
    by_category = {t["category"]: t["count"] for t in report["themes"]}
    by_issue = {group["issue"]: group["count"] for group in report["issues"]}
    return (
        report["totalItems"] == tally.total
        and by_issue == dict(tally.issues or {})
        and report["structureFailedCount"] == tally.structure_failed
        and report["needsReviewCount"] == tally.needs_review
        and by_category == dict(tally.categories or {})
        and report["truncated"] is False
    )


async def explain(store: FeedbackStore, window: Window, limit: int, biggest: str) -> list[str]:
    """The plans of the answer's statements (PostgreSQL), for the record and to drop an unused index."""
    flt = ItemFilter(from_=window.from_norm, to=window.to_norm)
    days = rollups.plan(rollups.DAY, window.from_norm, window.to_norm, window.midpoint_norm)
    hours = rollups.plan(rollups.HOUR, window.from_norm, window.to_norm)
    assert days is not None and hours is not None
    start, end = days.row_ranges[1] if days.split else days.row_ranges[0]
    midpoint_day = aggregates._range_clauses([(start, end)], window.to_norm)[0]
    statements = {
        "counts over every row of the window (the path without rollups)": aggregates._count_statement(
            flt, window.midpoint_norm
        ),
        "themes over every row (without rollups)": aggregates._theme_statement(flt),
        "counts of the whole days, feedback_daily": rollups.count_statement(days, None),
        "themes of the whole days, theme_daily": rollups.theme_statement(days, None),
        "series of the whole hours, feedback_hourly, by hour (before the bucket bounds)": rollups.hours_statement(
            hours, None
        ),
        "series of the whole hours, feedback_hourly, by local day (what the report reads)": rollups.hours_statement(
            hours, None, bucket_bounds(window.from_ticks, window.to_ticks, ReportSettings().timezone)
        ),
        "counts of one edge range on the rows (index-only)": aggregates._count_statement(
            ItemFilter(), window.midpoint_norm, midpoint_day
        ),
        "alerts": aggregates._alert_statement(flt, limit),
        "sources of the biggest group, its most severe rank": aggregates._rank_part(flt, biggest, 4, limit),
        "newest of the biggest group": aggregates._newest_part(flt, biggest, limit),
        "counts, one store": aggregates._count_statement(
            ItemFilter(from_=window.from_norm, to=window.to_norm, store="s07"), window.midpoint_norm
        ),
    }
    out: list[str] = []
    async with store.engine.connect() as conn:
        for name, statement in statements.items():
            compiled = statement.compile(conn.sync_connection, compile_kwargs={"literal_binds": True})
            plan = (await conn.exec_driver_sql(f"EXPLAIN (ANALYZE, BUFFERS OFF, TIMING OFF) {compiled}")).all()
            out.append(f"-- {name}")
            out.extend(str(line[0]) for line in plan)
    return out


async def measure(store: FeedbackStore, domain: Domain, tally: Tally, runs: int, options: ReportSettings) -> dict:
    service = ReportService(domain, options, None, StoreSource([store]))
    gc.collect()
    before = rss_mb()
    peak = before
    times: list[float] = []
    exact = True
    shown = 0
    for k in range(runs):
        # a window never asked before (its end a millisecond later each run): cold, built from the database
        window = build_window(
            format_instant(to_ticks(NOW - timedelta(days=WINDOW_DAYS))),
            format_instant(to_ticks(NOW) + k * 10_000),
            NOW,
            options,
        )
        started = time.perf_counter()
        report = (await service.view(window)).to_json()
        times.append((time.perf_counter() - started) * 1000)
        exact &= check_counts(report, tally)
        shown = len(report["alerts"]) + sum(len(t["sources"]) + len(t["feedbackIds"]) for t in report["themes"])
        del report
        peak = max(peak, rss_mb())
    return {
        "cold": summary_ms(times),
        "runs": runs,
        "exact": exact,
        "rssGrowthMb": round(peak - before, 1),
        "examplesShown": shown,
        "themes": len(tally.categories or {}),
    }


async def one_size(engine: str, n: int, domain: Domain, args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(n)
    derive_ = DomainDeriver(domain)
    tpls = templates(domain, rng)
    tally = Tally()
    options = ReportSettings(cache_seconds=0, max_window_days=92)
    runs = 5 if n >= 1_000_000 else 9
    started = time.perf_counter()
    if engine == "postgresql":
        async with postgres_database("fi_chain_bench") as url:
            store = FeedbackStore(url, derive=derive_)
            await store.migrate()
            await fill_postgres(url, n, tpls, derive_.rev, rng, tally)
            fill_s = time.perf_counter() - started
            rollup = await rebuild_rollups(store)
            try:
                result = await measure(store, domain, tally, runs, options)
                _say(engine, n, result, time.perf_counter() - started)
                if n == max(args.pg_sizes):
                    window = build_window(
                        format_instant(to_ticks(NOW - timedelta(days=WINDOW_DAYS))), None, NOW, options
                    )
                    assert tally.categories is not None
                    biggest = tally.categories.most_common(1)[0][0]
                    try:
                        result["plans"] = await explain(store, window, options.max_items, biggest)
                    except Exception as exc:  # the figures stand without the plans
                        result["plans"] = [f"EXPLAIN failed: {exc}"]
            finally:
                await store.aclose()
    else:
        with tempfile.TemporaryDirectory(prefix="fi-chain-") as tmp:
            url = sqlite_url(Path(tmp))
            store = FeedbackStore(url, derive=derive_)
            await store.migrate()
            await store.aclose()
            await asyncio.to_thread(fill_sqlite, Path(tmp) / "feedback.db", n, tpls, derive_.rev, rng, tally)
            fill_s = time.perf_counter() - started
            store = FeedbackStore(url, derive=derive_)
            rollup = await rebuild_rollups(store)
            try:
                result = await measure(store, domain, tally, runs, options)
                _say(engine, n, result, time.perf_counter() - started)
            finally:
                await store.aclose()
    result.update(engine=engine, items=n, fillSeconds=round(fill_s, 1), fillRowsPerS=round(n / fill_s), **rollup)
    return result


def _say(engine: str, n: int, result: dict[str, Any], elapsed_s: float) -> None:
    print(
        f"{engine} {n:>9,}: cold p50 {result['cold']['p50']:.0f} ms, p99 {result['cold']['p99']:.0f} ms, "
        f"exact {result['exact']}, RSS +{result['rssGrowthMb']} MB, {result['examplesShown']} examples "
        f"({elapsed_s:.0f} s with the fill)",
        file=sys.stderr,
        flush=True,
    )


def _sizes(raw: str) -> list[int]:
    return [int(x) for x in raw.split(",") if x.strip()]


async def main_async(args: argparse.Namespace) -> int:
    domain = load_domain("retail")
    results = [await one_size("postgresql", n, domain, args) for n in args.pg_sizes]
    results += [await one_size("sqlite", n, domain, args) for n in args.sqlite_sizes]
    table: list[tuple[str, str, str]] = []
    for r in results:
        table.append(
            (
                f"{r['engine']} {r['items']:,}",
                f"p50 {r['cold']['p50']:.0f} ms · p99 {r['cold']['p99']:.0f} ms",
                f"exact {r['exact']} · RSS +{r['rssGrowthMb']} MB · {r['examplesShown']} examples",
            )
        )
    print_table(f"chain_scale: cold deterministic answer, {WINDOW_DAYS}-day window", table)
    pg = {r["items"]: r for r in results if r["engine"] == "postgresql"}
    ok = all(r["exact"] for r in results)
    verdicts: dict[str, Any] = {"exact": ok}
    if pg:
        for line in pg[max(pg)].get("plans", []):
            print(line)
    if TARGET_ITEMS in pg:
        big = pg[TARGET_ITEMS]
        verdicts["p50Ms"] = big["cold"]["p50"] <= TARGET_MS
        verdicts["rssMb"] = big["rssGrowthMb"] <= TARGET_RSS_MB
        ok = ok and verdicts["p50Ms"] and verdicts["rssMb"]
    if 100_000 in pg and TARGET_ITEMS in pg:
        verdicts["growthX"] = round(pg[TARGET_ITEMS]["cold"]["p50"] / pg[100_000]["cold"]["p50"], 2)
    print(json.dumps(verdicts), file=sys.stderr)
    write_result("chain_scale", {"results": results, "verdicts": verdicts})
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pg-sizes", type=_sizes, default=list(PG_SIZES))
    parser.add_argument("--sqlite-sizes", type=_sizes, default=list(SQLITE_SIZES))
    return asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
