"""Bulk import: rows per second on PostgreSQL through the batch endpoint against today's item-by-item
path, side by side in one run against one real ``feedctl serve`` process; then where a batch's time goes.

1. Over HTTP, one app process on two fresh PostgreSQL databases (the structure-later worker off, so the
   import alone is measured): the item-by-item path (``POST /feedback``, 8 writers, as ``feedctl load``
   sent it) and the batch path (``POST /feedback/batch``, chunks of 1,000, one writer and two), for two
   kinds of item: saved for later (``structureLater``: the rules' proposal is computed per row, as a
   history import needs) and with an ``acceptedStructure`` (no proposal). Texts are demo-corpus texts
   made unique, so no cache of the process answers for a row.
2. In process, per row of a batch: the deterministic layers (``IngestService.record_many``, as a batch
   runs them), and the insert on PostgreSQL two ways: ``FeedbackStore.insert_batch`` (SQLAlchemy's
   multi-row VALUES pages, ``ON CONFLICT DO NOTHING``) and COPY into a temporary table followed by
   ``INSERT … SELECT … ON CONFLICT DO NOTHING`` (the alternative ADR 0027 weighed).

Target: the batch path ≥ 10,000 rows/s over HTTP (issue 25).

Run: .venv/bin/python -m bench.bulk_import [--single-rows 600] [--batch-rows 5000]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import sys
import time
from collections.abc import Iterator
from typing import Any

import httpx

from bench.common import pf, print_table, write_result
from feedback_intelligence.api.models import FeedbackIn
from feedback_intelligence.demo.corpus import load_corpus
from feedback_intelligence.derivation import DomainDeriver
from feedback_intelligence.devtools.databases import postgres_database, postgres_pair
from feedback_intelligence.devtools.processes import app_server
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.services.channels import Channel
from feedback_intelligence.services.ingest import IngestCommand, IngestService
from feedback_intelligence.store.feedback_store import FeedbackStore, _derived_values, _record_to_row
from feedback_intelligence.store.schema import feedback
from feedback_intelligence.text import morphology

TARGET_ROWS_PER_S = 10_000
CHUNK = 1000
SINGLE_WRITERS = 8
STORES = ("hki-1", "tre-1", "tku-1", "oulu-1")
STRUCTURE = {"category": "maito_kylma", "theme": "maito", "severity": "medium", "type": "complaint", "language": "fi"}
KINDS = ("later", "accepted")


def items(prefix: str, count: int, kind: str) -> list[dict[str, Any]]:
    """``count`` import items: unique texts (a corpus text and a running number), spread timestamps, stores."""
    corpus = load_corpus()
    made = []
    for n in range(count):
        entry = corpus[n % len(corpus)]
        item: dict[str, Any] = {
            "id": f"{prefix}-{n:07d}",
            "source": entry["source"],
            "text": f"{entry['text']} (#{prefix}{n})",
            "timestamp": entry["timestamp"],
            "store": STORES[n % len(STORES)],
        }
        if kind == "accepted":
            item["acceptedStructure"] = dict(STRUCTURE)
        else:
            item["structureLater"] = True
        made.append(item)
    return made


async def item_by_item(url: str, rows: list[dict[str, Any]]) -> float:
    """Today's path: one POST per item, ``SINGLE_WRITERS`` at once; returns the wall time."""
    queue: Iterator[dict[str, Any]] = iter(rows)

    async def writer(http: httpx.AsyncClient) -> None:
        for row in queue:
            answer = await http.post("/feedback", json=row)
            assert answer.status_code in (201, 202), (answer.status_code, answer.text)

    async with httpx.AsyncClient(base_url=url, timeout=120) as http:
        started = time.perf_counter()
        await asyncio.gather(*(writer(http) for _ in range(SINGLE_WRITERS)))
        return time.perf_counter() - started


async def batched(url: str, rows: list[dict[str, Any]], writers: int) -> float:
    """The batch path: chunks of ``CHUNK`` items, ``writers`` requests at once; returns the wall time."""
    chunks = iter([rows[i : i + CHUNK] for i in range(0, len(rows), CHUNK)])

    async def writer(http: httpx.AsyncClient) -> None:
        for chunk in chunks:
            answer = await http.post("/feedback/batch", json={"items": chunk})
            assert answer.status_code == 200, (answer.status_code, answer.text[:300])
            body = answer.json()
            assert body["created"] + body["accepted"] == len(chunk), {k: v for k, v in body.items() if k != "results"}

    async with httpx.AsyncClient(base_url=url, timeout=600) as http:
        started = time.perf_counter()
        await asyncio.gather(*(writer(http) for _ in range(writers)))
        return time.perf_counter() - started


def over_http(single_rows: int, batch_rows: int) -> dict[str, Any]:
    env = {
        "FI_LLM_BACKEND": "ollama",
        "FI_LLM_BASE_URL": "http://127.0.0.1:9",  # no model: neither path calls one
        "FI_LLM_MODEL": "none",
        "FI_STRUCTURE_WORKER": "false",
    }
    results: dict[str, Any] = {}
    counter = itertools.count()
    with (
        postgres_pair("fi_bench_bulk") as (corpus, live),
        app_server({**env, "FI_DATABASE_URL": corpus, "FI_LIVE_DATABASE_URL": live}) as app,
    ):
        asyncio.run(batched(app.url, items("warm", 200, "later"), 1))  # connections, caches of the lexicons
        asyncio.run(item_by_item(app.url, items("warm1", 40, "later")))
        for kind in KINDS:
            rows = items(f"s{next(counter)}", single_rows, kind)
            wall = asyncio.run(item_by_item(app.url, rows))
            results[f"{kind}/item-by-item"] = _rate(kind, "item by item", SINGLE_WRITERS, len(rows), wall)
            for writers in (1, 2):
                rows = items(f"b{next(counter)}", batch_rows, kind)
                wall = asyncio.run(batched(app.url, rows, writers))
                results[f"{kind}/batch/{writers}"] = _rate(kind, f"batch of {CHUNK}", writers, len(rows), wall)
    return results


def _rate(kind: str, path: str, writers: int, rows: int, wall_s: float) -> dict[str, Any]:
    return {
        "kind": kind,
        "path": path,
        "writers": writers,
        "rows": rows,
        "seconds": round(wall_s, 2),
        "rowsPerS": round(rows / wall_s, 1),
    }


async def in_process(rows: int) -> dict[str, Any]:
    """Per row of a batch: reading the item, the deterministic layers, the derivation, and the two ways to
    insert on PostgreSQL; and how long a 1,000-row batch holds the event loop."""
    domain = load_domain("retail")
    morphology.warm()
    service = IngestService(domain, None)  # type: ignore[arg-type]  # a batch never reaches the model
    deriver = DomainDeriver(domain)
    out: dict[str, Any] = {"rows": rows}
    for kind in KINDS:
        raw = items(f"p{kind}", rows, kind)
        started = time.perf_counter()
        for item in raw:
            FeedbackIn.model_validate(item)
        out[f"validate/{kind}"] = round((time.perf_counter() - started) * 1e6 / rows, 1)
        commands = [_command(item) for item in raw]
        service.record(commands[0])
        started = time.perf_counter()
        records = service.record_many(commands)  # what a batch runs (its languages in one parallel call)
        out[f"record/{kind}"] = round((time.perf_counter() - started) * 1e6 / rows, 1)
        started = time.perf_counter()
        for record in records:
            deriver(record)
        out[f"derive/{kind}"] = round((time.perf_counter() - started) * 1e6 / rows, 1)
    async with postgres_database("fi_bench_bulk") as url:
        store = FeedbackStore(url, derive=deriver)
        await store.migrate()
        try:
            # with the derivation (in its thread), the rollups and the alert rows: what a batch's store does
            out["insertBatchUs"] = await _per_row(lambda chunk: store.insert_batch(chunk, bump="version"), records)
            copied = [r.__class__(**{**_fields(r), "id": "c" + r.id}) for r in records]
            out["copyUs"] = await _per_row(lambda chunk: _copy_insert(store, chunk), copied)
            out["loopHold"] = await _loop_hold(service, store, items("hold", CHUNK, "later"))
        finally:
            await store.aclose()
    return out


async def _loop_hold(service: IngestService, store: FeedbackStore, raw: list[dict[str, Any]]) -> dict[str, float]:
    """The longest the event loop waited for its turn while one batch of ``raw`` was stored (a 5 ms
    ticker's overshoot), and that batch's wall time."""
    lags: list[float] = []
    done = asyncio.Event()

    async def ticker() -> None:
        while not done.is_set():
            before = time.perf_counter()
            await asyncio.sleep(0.005)
            lags.append(time.perf_counter() - before - 0.005)

    channel = Channel("corpus", store)
    task = asyncio.create_task(ticker())
    started = time.perf_counter()
    await service.ingest_batch(channel, [_command(item) for item in raw])
    wall = time.perf_counter() - started
    done.set()
    await task
    return {"maxLagMs": round(max(lags) * 1000, 1), "batchS": round(wall, 2), "ticks": len(lags)}


def _fields(record: Any) -> dict[str, Any]:
    return {name: getattr(record, name) for name in record.__dataclass_fields__}


def _command(item: dict[str, Any]) -> IngestCommand:
    from feedback_intelligence.records import Structure

    accepted = item.get("acceptedStructure")
    return IngestCommand(
        source=item["source"],
        text=item["text"],
        timestamp=item["timestamp"],
        id=item["id"],
        accepted_structure=Structure(**accepted) if accepted else None,
        structure_later=bool(item.get("structureLater")),
        store=item["store"],
    )


async def _per_row(insert: Any, records: list[Any]) -> float:
    started = time.perf_counter()
    for i in range(0, len(records), CHUNK):
        await insert(records[i : i + CHUNK])
    return round((time.perf_counter() - started) * 1e6 / len(records), 1)


async def _copy_insert(store: FeedbackStore, records: list[Any]) -> set[str]:
    """COPY into a temporary table, then INSERT … SELECT … ON CONFLICT DO NOTHING, in one transaction (the
    derivation included; no rollups, alert rows or cases: a lower bound of what this path would cost)."""
    columns = [c.name for c in feedback.columns]
    derive = store.derive
    assert derive is not None
    made = [{**_record_to_row(r), **_derived_values(derive(r), derive.rev)} for r in records]
    defaults = {"revision": 1}  # COPY sends every column: what the server would default
    rows = [tuple(row.get(c, defaults.get(c)) for c in columns) for row in made]
    async with store.engine.connect() as conn:
        raw = (await conn.get_raw_connection()).driver_connection
        async with raw.transaction():
            await raw.execute(
                "CREATE TEMP TABLE IF NOT EXISTS feedback_in (LIKE feedback INCLUDING DEFAULTS) ON COMMIT DELETE ROWS"
            )
            await raw.copy_records_to_table("feedback_in", records=rows, columns=columns)
            names = ", ".join(columns)
            inserted = await raw.fetch(
                f"INSERT INTO feedback ({names}) SELECT {names} FROM feedback_in "
                "ON CONFLICT (id) DO NOTHING RETURNING id"
            )
            await raw.execute("UPDATE counters SET value = value + 1 WHERE name = 'version'")
    assert len(inserted) == len(records)
    return {row["id"] for row in inserted}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bulk_import", description=__doc__.split("\n\n")[0])
    parser.add_argument("--single-rows", type=int, default=600, help="items per kind on the item-by-item path")
    parser.add_argument("--batch-rows", type=int, default=5000, help="items per kind and writer count, batched")
    parser.add_argument("--process-rows", type=int, default=2000, help="rows of the in-process split")
    args = parser.parse_args(argv)

    http = over_http(args.single_rows, args.batch_rows)
    split = asyncio.run(in_process(args.process_rows))
    best = max(entry["rowsPerS"] for key, entry in http.items() if "/batch/" in key)
    result = {"http": http, "inProcess": split, "targetRowsPerS": TARGET_ROWS_PER_S, "bestBatchRowsPerS": best}
    path = write_result("bulk_import", result)

    rows: list[tuple[str, str, str]] = []
    for kind in KINDS:
        single = http[f"{kind}/item-by-item"]["rowsPerS"]
        rows.append((f"{kind}: item by item, {SINGLE_WRITERS} writers", f"{single} rows/s", ""))
        for writers in (1, 2):
            entry = http[f"{kind}/batch/{writers}"]
            rows.append(
                (
                    f"{kind}: batch of {CHUNK}, {writers} writer(s)",
                    f"{entry['rowsPerS']} rows/s (×{entry['rowsPerS'] / single:.1f})",
                    f"≥ {TARGET_ROWS_PER_S}: {pf(entry['rowsPerS'] >= TARGET_ROWS_PER_S)}",
                )
            )
    for kind in KINDS:
        for part in ("validate", "record", "derive"):
            rows.append((f"in process: {part} per row ({kind})", f"{split[f'{part}/{kind}']} µs", ""))
    rows.append(("in process: insert_batch per row (derive, VALUES, rollups)", f"{split['insertBatchUs']} µs", ""))
    rows.append(("in process: COPY + INSERT … SELECT per row", f"{split['copyUs']} µs", ""))
    hold = split["loopHold"]
    rows.append(("event loop's longest wait during a 1,000-row batch", f"{hold['maxLagMs']} ms", f"{hold['batchS']} s"))
    print_table(
        f"bulk import on PostgreSQL: {args.single_rows} items item by item, {args.batch_rows} batched, per kind",
        rows,
    )
    print(f"written: {path}")
    return 0 if best >= TARGET_ROWS_PER_S else 1


if __name__ == "__main__":
    sys.exit(main())
