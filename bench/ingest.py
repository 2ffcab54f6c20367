"""What a desk save costs: rows per second into SQLite and PostgreSQL, and the deterministic layers per item.

1. Desk saves with an accepted structure (no LLM) through ``IngestService`` + ``FeedbackStore``
   directly (duplicate check, timestamp, alerts, override, insert, change counter), one at a time and
   8 at once, into a fresh SQLite file and a fresh database on the local PostgreSQL, side by side.
2. The same saves over HTTP (``POST /live/feedback`` on a real ``feedctl serve`` process).
3. The deterministic layers on the demo corpus's texts, in µs per item: timestamp normalisation,
   alerts, category override (vulgarity density and keyword rules), injection scan. Each item is a
   text the process has not seen before (a corpus text with a unique suffix), so the fold of the
   text is paid for as it is in production; the lexicon's own folds stay cached, as they do there.

Run: .venv/bin/python -m bench.ingest [--rows 2000] [--skip-http] [--skip-postgres]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx

from bench.common import print_table, summary_ms, write_result
from feedback_intelligence.demo.corpus import load_corpus
from feedback_intelligence.deterministic.alerts import match_alerts
from feedback_intelligence.deterministic.category_override import apply_override, forced_category
from feedback_intelligence.deterministic.injection import detect_injection_signals, review_flags
from feedback_intelligence.devtools.databases import postgres_database
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.instants.timestamps import normalize_timestamp
from feedback_intelligence.records import Structure
from feedback_intelligence.services.channels import LIVE, Channel
from feedback_intelligence.services.ingest import IngestCommand, IngestService
from feedback_intelligence.store.feedback_store import FeedbackStore

CONCURRENCY = (1, 8)
SEVERITIES = ("low", "medium", "high", "critical")
TYPES = ("complaint", "praise", "suggestion", "question", "other")


class NoLlm:
    """Stands in for the structuring service: a desk save with an accepted structure never calls it."""

    async def structure(self, *_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("a save with an accepted structure must not reach the LLM")


def desk_saves(count: int, domain: Domain, *, seed: int = 3, prefix: str = "bench") -> list[IngestCommand]:
    """``count`` desk saves: demo-corpus texts and timestamps, a clerk-accepted structure, unique ids."""
    rng = random.Random(seed)
    corpus = load_corpus()
    rated = [c for c in domain.categories if not domain.is_demoted(c)]
    saves = []
    for n in range(count):
        entry = corpus[n % len(corpus)]
        saves.append(
            IngestCommand(
                source="desk",
                text=entry["text"],
                timestamp=entry["timestamp"],
                id=f"{prefix}-{n:06d}",
                accepted_structure=Structure(
                    rng.choice(rated), "teema", rng.choice(SEVERITIES), rng.choice(TYPES), "fi"
                ),
            )
        )
    return saves


async def _save_all(
    service: IngestService, channel: Channel, saves: list[IngestCommand], concurrency: int
) -> tuple[float, list[float]]:
    latencies: list[float] = []
    queue = iter(saves)

    async def worker() -> None:
        for command in queue:
            started = time.perf_counter()
            await service.ingest(channel, command, visitor="bench")
            latencies.append((time.perf_counter() - started) * 1000)

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return time.perf_counter() - started, latencies


async def store_rows_per_s(url: str, rows: int, concurrency: int, domain: Domain) -> dict[str, Any]:
    store = FeedbackStore(url, name=LIVE)
    await store.migrate()
    channel = Channel(LIVE, store)
    service = IngestService(domain, NoLlm())  # type: ignore[arg-type]
    try:
        await _save_all(service, channel, desk_saves(20, domain, prefix="warm"), 1)  # connections, statements
        wall_s, latencies = await _save_all(service, channel, desk_saves(rows, domain), concurrency)
        stored = await store.count()
        version = await channel.version()
    finally:
        await store.aclose()
    assert stored == rows + 20 and version == rows + 20, (stored, version)
    return {
        "rows": rows,
        "concurrency": concurrency,
        "rowsPerS": round(rows / wall_s, 1),
        "saveMs": summary_ms(latencies),
    }


@asynccontextmanager
async def sqlite_url() -> AsyncIterator[str]:
    with tempfile.TemporaryDirectory(prefix="fi-bench-") as tmp:
        yield f"sqlite+aiosqlite:///{Path(tmp) / 'live.db'}"


async def direct(rows: int, domain: Domain, engines: list[str]) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for engine in engines:
        for concurrency in CONCURRENCY:
            make = sqlite_url if engine == "sqlite" else postgres_database
            async with make() as url:
                results[f"{engine}/{concurrency}"] = {
                    "engine": engine,
                    **await store_rows_per_s(url, rows, concurrency, domain),
                }
    return results


async def http_saves(app_url: str, saves: list[IngestCommand], concurrency: int) -> tuple[float, list[float]]:
    latencies: list[float] = []
    queue = iter(saves)

    async def worker(http: httpx.AsyncClient) -> None:
        for c in queue:
            s = c.accepted_structure
            assert s is not None
            body = {
                "id": c.id,
                "source": c.source,
                "text": c.text,
                "timestamp": c.timestamp,
                "acceptedStructure": {
                    "category": s.category,
                    "theme": s.theme,
                    "severity": s.severity,
                    "type": s.type,
                    "language": s.language,
                },
            }
            started = time.perf_counter()
            response = await http.post("/live/feedback", json=body)
            latencies.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 201, (response.status_code, response.text)

    async with httpx.AsyncClient(base_url=app_url, timeout=60) as http:
        started = time.perf_counter()
        await asyncio.gather(*(worker(http) for _ in range(concurrency)))
        return time.perf_counter() - started, latencies


async def http_rows_per_s(engine: str, rows: int, concurrency: int, domain: Domain) -> dict[str, Any]:
    from feedback_intelligence.devtools.processes import app_server

    # No LLM is involved in these saves; the backend points nowhere on purpose.
    base = {"FI_LLM_BACKEND": "ollama", "FI_LLM_BASE_URL": "http://127.0.0.1:9", "FI_LLM_MODEL": "none"}
    async with _two_databases(engine) as (corpus_url, live_url):
        env = {**base, "FI_DATABASE_URL": corpus_url, "FI_LIVE_DATABASE_URL": live_url}
        with app_server(env) as app:
            await http_saves(app.url, desk_saves(20, domain, prefix="warm"), 1)
            wall_s, latencies = await http_saves(app.url, desk_saves(rows, domain), concurrency)
    return {
        "engine": engine,
        "rows": rows,
        "concurrency": concurrency,
        "rowsPerS": round(rows / wall_s, 1),
        "saveMs": summary_ms(latencies),
    }


def over_http(rows: int, domain: Domain, engines: list[str]) -> dict[str, Any]:
    return {
        f"{engine}/{concurrency}": asyncio.run(http_rows_per_s(engine, rows, concurrency, domain))
        for engine in engines
        for concurrency in CONCURRENCY
    }


@asynccontextmanager
async def _two_databases(engine: str) -> AsyncIterator[tuple[str, str]]:
    if engine == "sqlite":
        with tempfile.TemporaryDirectory(prefix="fi-bench-") as tmp:
            yield f"sqlite:///{tmp}/feedback.db", f"sqlite:///{tmp}/desk-live.db"
        return
    async with postgres_database() as corpus_url, postgres_database() as live_url:
        yield corpus_url, live_url


def deterministic_layers(domain: Domain, items: int, *, seed: int = 5) -> dict[str, Any]:
    """µs per item of each layer in ingest's order, on texts never seen before by this process."""
    corpus = load_corpus()
    rng = random.Random(seed)
    rated = [c for c in domain.categories if not domain.is_demoted(c)]
    layers: dict[str, list[float]] = {"timestamp": [], "alerts": [], "override": [], "injection": [], "total": []}
    # warm the lexicon folds once (a running service has them cached)
    for entry in corpus[:5]:
        alerts = match_alerts(entry["text"], domain)
        forced_category(entry["text"], Structure("muu", "t", "low", "other", "fi"), alerts, domain)
        detect_injection_signals(entry["text"])
    clock = time.perf_counter_ns
    texts = 0
    for n in range(items):
        entry = corpus[n % len(corpus)]
        text = f"{entry['text']} (#{n})"  # unique: no fold cache hit for the text itself
        structure = Structure(rng.choice(rated), "teema", rng.choice(SEVERITIES), rng.choice(TYPES), "fi")
        t0 = clock()
        normalize_timestamp(entry["timestamp"])
        t1 = clock()
        alerts = match_alerts(text, domain)
        t2 = clock()
        apply_override(structure, forced_category(text, structure, alerts, domain))
        t3 = clock()
        review_flags(detect_injection_signals(text), structure)
        t4 = clock()
        for key, ns in (
            ("timestamp", t1 - t0),
            ("alerts", t2 - t1),
            ("override", t3 - t2),
            ("injection", t4 - t3),
            ("total", t4 - t0),
        ):
            layers[key].append(ns / 1000)
        texts += len(text)
    return {
        "items": items,
        "meanChars": round(texts / items, 1),
        "us": {
            key: {
                "p50": round(statistics.median(v), 1),
                "mean": round(statistics.fmean(v), 1),
                "p99": round(sorted(v)[int(0.99 * len(v))], 1),
            }
            for key, v in layers.items()
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.ingest", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=2000, help="saves per configuration (direct)")
    parser.add_argument("--http-rows", type=int, default=1000, help="saves per configuration over HTTP")
    parser.add_argument("--layer-items", type=int, default=5000)
    parser.add_argument("--skip-http", action="store_true")
    parser.add_argument("--skip-postgres", action="store_true")
    args = parser.parse_args(argv)
    domain = load_domain("retail")
    engines = ["sqlite"] if args.skip_postgres else ["sqlite", "postgresql"]

    layers = deterministic_layers(domain, args.layer_items)
    result: dict[str, Any] = {"deterministicLayers": layers, "direct": asyncio.run(direct(args.rows, domain, engines))}
    if not args.skip_http:
        result["http"] = over_http(args.http_rows, domain, engines)
    path = write_result("ingest", result)

    rows = []
    for label, block in (("direct", result["direct"]), ("HTTP", result.get("http") or {})):
        for entry in block.values():
            rows.append(
                (
                    f"{label}: desk saves into {entry['engine']}, {entry['concurrency']} at once",
                    f"{entry['rowsPerS']} rows/s (p50 {entry['saveMs']['p50']} ms, p99 {entry['saveMs']['p99']} ms)",
                    "",
                )
            )
    us = layers["us"]
    for key in ("timestamp", "alerts", "override", "injection", "total"):
        rows.append(
            (
                f"deterministic layer per item: {key} (p50 / mean / p99)",
                f"{us[key]['p50']} / {us[key]['mean']} / {us[key]['p99']} µs",
                "",
            )
        )
    print_table(
        f"ingest: desk saves (no LLM), {args.rows} rows direct, {args.http_rows} over HTTP; "
        f"layers over {layers['items']} texts of {layers['meanChars']} chars",
        rows,
    )
    print(f"written: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
