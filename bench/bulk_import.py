"""Bulk import: rows per second on PostgreSQL through the batch endpoint against today's item-by-item
path, side by side in one run against real ``feedctl serve`` processes; then where a batch's time goes.

1. Over HTTP, on two fresh PostgreSQL databases (the structure-later worker off, so the import alone is
   measured): against one service process, the item-by-item path (``POST /feedback``, 8 writers, as
   ``feedctl load`` sent it) and the batch path (``POST /feedback/batch``, chunks of 1,000, one writer
   and two); then against two replicas sharing Redis, two and four writers spread over them. For two
   kinds of item: saved for later (``structureLater``: the rules' proposal is computed per row, as a
   history import needs) and with an ``acceptedStructure`` (no proposal). Texts are demo-corpus texts
   made unique, so no cache of the process answers for a row.
   For each batch run, the CPU each process spent per row (the service, PostgreSQL, this client) and the
   most rows a second the machine's cores could give at that cost.
2. In process, per row of a batch: the deterministic layers (``IngestService.record_many``, as a batch
   runs them), the derivation, ``FeedbackStore.insert_batch`` as a batch runs it (COPY, rollups, alert
   rows), and the rows alone into the table both ways it knows: SQLAlchemy's multi-row VALUES pages
   (what SQLite takes) and COPY into a temporary table followed by ``INSERT … SELECT`` (PostgreSQL's,
   ADR 0037), with wall time and the CPU of Python and of PostgreSQL.

3. ``--pool``: the batch pool off (``FI_BATCH_PROCESSES=0``, a thread of the service) and on (a worker
   per usable core), side by side in one run: two service processes on the same two fresh PostgreSQL
   databases, one writer, the kinds and the two services taking turns for ``--rounds`` rounds; rows a
   second, the CPU split per row (the service's workers counted with it), what the cores allow at that
   cost, and each process's resident memory after the run. Only this, with ``--pool-only``.

Target: the batch path ≥ 10,000 rows/s over HTTP (ADR 0027); with the pool, ≥ 5,000 rows/s accepted from
one service process (ADR 0074).

Run: .venv/bin/python -m bench.bulk_import [--single-rows 600] [--batch-rows 5000] [--pool | --pool-only]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import httpx

from bench.common import pf, print_table, write_result
from bench.procfs import children_of, cpu_seconds, pids_named, rss_bytes
from feedback_intelligence.api.models import FeedbackIn
from feedback_intelligence.cli import loop_pauses
from feedback_intelligence.demo.corpus import load_corpus
from feedback_intelligence.derivation import DomainDeriver
from feedback_intelligence.devtools.databases import postgres_database, postgres_pair
from feedback_intelligence.devtools.processes import app_server
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.services.batch_pool import BatchPool
from feedback_intelligence.services.channels import Channel
from feedback_intelligence.services.ingest import IngestCommand, IngestService
from feedback_intelligence.store import copy_rows, values_rows
from feedback_intelligence.store.derived_rows import rows_of
from feedback_intelligence.store.feedback_store import FeedbackStore
from feedback_intelligence.text import morphology

TARGET_ROWS_PER_S = 10_000
POOL_TARGET_ROWS_PER_S = 5_000  # accepted rows, one service process with its pool (ADR 0074)
CORES = os.cpu_count() or 1
CHUNK = 1000
SINGLE_WRITERS = 8
REDIS = "redis://127.0.0.1:6379/0"
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


async def batched(urls: list[str], rows: list[dict[str, Any]], writers: int) -> float:
    """The batch path: chunks of ``CHUNK`` items, ``writers`` requests at once, writer i sending to
    ``urls[i % len(urls)]`` (replicas as a load balancer would spread them), a shed chunk sent again after
    its ``Retry-After``; returns the wall time."""
    chunks = iter([rows[i : i + CHUNK] for i in range(0, len(rows), CHUNK)])

    async def writer(http: httpx.AsyncClient, url: str) -> None:
        for chunk in chunks:
            answer = await http.post(f"{url}/feedback/batch", json={"items": chunk})
            while answer.status_code == 503 and "retry-after" in answer.headers:  # shed: as feedctl load does
                await asyncio.sleep(float(answer.headers["retry-after"]))
                answer = await http.post(f"{url}/feedback/batch", json={"items": chunk})
            assert answer.status_code == 200, (answer.status_code, answer.text[:300])
            body = answer.json()
            assert body["created"] + body["accepted"] == len(chunk), {k: v for k, v in body.items() if k != "results"}

    async with httpx.AsyncClient(timeout=600) as http:
        started = time.perf_counter()
        await asyncio.gather(*(writer(http, urls[i % len(urls)]) for i in range(writers)))
        return time.perf_counter() - started


#: (service processes, writers) of the batch runs; two processes are replicas sharing Redis.
BATCH_RUNS = ((1, 1), (1, 2), (2, 2), (2, 4))


def over_http(single_rows: int, batch_rows: int) -> dict[str, Any]:
    env = {
        "FI_LLM_BACKEND": "ollama",
        "FI_LLM_BASE_URL": "http://127.0.0.1:9",  # no model: neither path calls one
        "FI_LLM_MODEL": "none",
        "FI_STRUCTURE_WORKER": "false",
    }
    results: dict[str, Any] = {}
    counter = itertools.count()
    with postgres_pair("fi_bench_bulk") as (corpus, live):
        env = {**env, "FI_DATABASE_URL": corpus, "FI_LIVE_DATABASE_URL": live}
        for processes in sorted({p for p, _ in BATCH_RUNS}):
            with ExitStack() as stack:
                # one by one, so the first migrates alone; replicas share the gate through Redis
                replica_env = env if processes == 1 else {**env, "FI_REDIS_URL": REDIS}
                apps = [stack.enter_context(app_server(replica_env)) for _ in range(processes)]
                urls = [app.url for app in apps]
                # connections, caches of the lexicons
                asyncio.run(batched(urls, items(f"warm-batch{processes}", 200 * processes, "later"), processes))
                if processes == 1:
                    asyncio.run(item_by_item(urls[0], items("warm1", 40, "later")))
                for kind in KINDS:
                    if processes == 1:
                        rows = items(f"s{next(counter)}", single_rows, kind)
                        wall = asyncio.run(item_by_item(urls[0], rows))
                        results[f"{kind}/item-by-item"] = _rate(kind, "item by item", SINGLE_WRITERS, len(rows), wall)
                    for writers in (w for p, w in BATCH_RUNS if p == processes):
                        rows = items(f"b{next(counter)}", batch_rows, kind)
                        with CpuSplit([app.proc.pid for app in apps], len(rows)) as cpu:
                            wall = asyncio.run(batched(urls, rows, writers))
                        entry = _rate(kind, f"batch of {CHUNK}", writers, len(rows), wall)
                        key = f"{kind}/batch/{processes}x{writers}"
                        results[key] = {**entry, "processes": processes, "cpuUsPerRow": cpu.per_row_us}
    return results


#: The services of ``--pool``: their settings and writers. "on, 2 slots": two batches at once, so one
#: batch's transaction overlaps the next one's rules in the workers.
POOL_MODES: tuple[tuple[str, dict[str, str], int], ...] = (
    ("off", {"FI_BATCH_PROCESSES": "0"}, 1),
    ("on", {}, 1),  # FI_BATCH_PROCESSES unset: the usable cores
    ("on, 2 slots", {"FI_BATCH_SLOTS": "2"}, 2),
)


def pool_side_by_side(batch_rows: int, rounds: int) -> dict[str, Any]:
    """The pool off and on, one service process each on the same databases, taking turns."""
    env = {
        "FI_LLM_BACKEND": "ollama",
        "FI_LLM_BASE_URL": "http://127.0.0.1:9",
        "FI_LLM_MODEL": "none",
        "FI_STRUCTURE_WORKER": "false",
    }
    runs: dict[str, list[dict[str, Any]]] = {}
    memory: dict[str, dict[str, float]] = {}
    counter = itertools.count()
    with postgres_pair("fi_bench_pool") as (corpus, live), ExitStack() as stack:
        env = {**env, "FI_DATABASE_URL": corpus, "FI_LIVE_DATABASE_URL": live}
        apps = {}
        for mode, settings, writers in POOL_MODES:
            apps[mode] = stack.enter_context(app_server({**env, **settings}))
            # connections, the lexicons' caches, the pool's workers
            asyncio.run(batched([apps[mode].url], items(f"warm-{next(counter)}", 1000 * writers, "later"), writers))
        for _ in range(rounds):
            for kind in KINDS:
                for mode, _settings, writers in POOL_MODES:
                    rows = items(f"p{next(counter)}", batch_rows, kind)
                    with CpuSplit([apps[mode].proc.pid], len(rows)) as cpu:
                        wall = asyncio.run(batched([apps[mode].url], rows, writers))
                    entry = {**_rate(kind, f"pool {mode}", writers, len(rows), wall), "cpuUsPerRow": cpu.per_row_us}
                    runs.setdefault(f"{kind}/{mode}", []).append(entry)
        for mode, app in apps.items():
            workers = [pid for pid in children_of(app.proc.pid) if rss_bytes(pid) > 100e6]  # not the tracker
            memory[mode] = {
                "serviceMb": round(rss_bytes(app.proc.pid) / 1e6),
                "workersMb": [round(rss_bytes(pid) / 1e6) for pid in workers],
            }
    return {"runs": runs, "memory": memory, "rounds": rounds, "rows": batch_rows}


def pool_rows(pool: dict[str, Any]) -> list[tuple[str, str, str]]:
    rows: list[tuple[str, str, str]] = []
    for kind in KINDS:
        target = POOL_TARGET_ROWS_PER_S if kind == "accepted" else None
        off = pool["runs"][f"{kind}/off"]
        for mode, _settings, writers in POOL_MODES:
            for n, (entry, before) in enumerate(zip(pool["runs"][f"{kind}/{mode}"], off, strict=True), start=1):
                cpu = entry["cpuUsPerRow"]
                rows.append(
                    (
                        f"{kind}, round {n}: pool {mode}, 1 service process, {writers} writer(s)",
                        f"{entry['rowsPerS']} rows/s (×{entry['rowsPerS'] / before['rowsPerS']:.2f} of off)",
                        f"≥ {target}: {pf(entry['rowsPerS'] >= target)}" if target and mode != "off" else "",
                    )
                )
                rows.append(
                    (
                        "  CPU per row: service with its workers (its process alone) / PostgreSQL / client",
                        f"{cpu['service']} ({cpu['serviceProcess']}) / {cpu['postgres']} / {cpu['client']} µs",
                        f"{CORES} cores allow {cpu['ceilingRowsPerS']} rows/s",
                    )
                )
    for mode, found in pool["memory"].items():
        rows.append(
            (
                f"resident memory, pool {mode}: the service; each worker",
                f"{found['serviceMb']} MB",
                f"{found['workersMb']} MB",
            )
        )
    return rows


class CpuSplit:
    """CPU per row while a block runs: the service (and its children), PostgreSQL (every ``postgres``
    process: backends, WAL writer, checkpointer) and this process (the client). Their sum over the
    machine's cores is the most rows a second these cores can give, however the work is spread."""

    def __init__(self, service_pids: list[int], rows: int) -> None:
        self.service_pids, self.rows = service_pids, rows
        self.per_row_us: dict[str, float] = {}

    def _now(self) -> dict[str, float]:
        service = [*self.service_pids, *(child for pid in self.service_pids for child in children_of(pid))]
        postgres = cpu_seconds(pids_named("postgres"))
        return {"service": cpu_seconds(service), "postgres": postgres, "client": time.process_time()}

    def _own(self) -> float:
        """The service processes alone, without their children (the batch pool's workers)."""
        return cpu_seconds(self.service_pids)

    def __enter__(self) -> CpuSplit:
        self.before, self.own_before = self._now(), self._own()
        return self

    def __exit__(self, *exc: object) -> None:
        after = self._now()
        self.per_row_us = {k: round((after[k] - self.before[k]) * 1e6 / self.rows, 1) for k in after}
        self.per_row_us["total"] = round(sum(self.per_row_us.values()), 1)
        # what the service process itself spent (the event loop's process): its own ceiling is 10⁶ / this
        self.per_row_us["serviceProcess"] = round((self._own() - self.own_before) * 1e6 / self.rows, 1)
        self.per_row_us["ceilingRowsPerS"] = round(CORES * 1e6 / self.per_row_us["total"])


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
            out["insertBatch"] = await _per_row(lambda chunk: store.insert_batch(chunk, bump="version"), records)
            for way, insert_rows in (("values", values_rows.insert_new), ("copy", copy_rows.insert_new)):
                renamed = [r.__class__(**{**_fields(r), "id": f"{way}-{r.id}"}) for r in records]
                out[f"rows/{way}"] = await _per_row(
                    lambda chunk, insert_rows=insert_rows: _rows_only(store, chunk, insert_rows), renamed
                )
            # as feedctl serve runs (docs/adr/0043): its lock turns and start-up's objects out of the collections
            loop_pauses.shorten_lock_turns()
            loop_pauses.freeze_what_start_up_made()
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


async def loop_hold_side_by_side(rounds: int) -> dict[str, list[dict[str, float]]]:
    """The event loop's longest wait while one 1,000-row batch saved for later is stored, the pool off (the
    rules in a thread) and on (2 workers), taking turns, as ``feedctl serve`` sets the interpreter."""
    domain = load_domain("retail")
    morphology.warm()
    pool = BatchPool(domain, 2)
    services = {"off": IngestService(domain, None), "on": IngestService(domain, None, pool=pool)}  # type: ignore[arg-type]
    found: dict[str, list[dict[str, float]]] = {"off": [], "on": []}
    async with postgres_database("fi_bench_hold") as url:
        store = FeedbackStore(url, derive=DomainDeriver(domain))
        await store.migrate()
        try:
            loop_pauses.shorten_lock_turns()
            for mode, service in services.items():  # the workers' start, the lexicons' caches
                await service.ingest_batch(
                    Channel("corpus", store), [_command(i) for i in items(f"w{mode}", 300, "later")]
                )
            loop_pauses.freeze_what_start_up_made()
            for n in range(rounds):
                for mode, service in services.items():
                    found[mode].append(await _loop_hold(service, store, items(f"h{mode}{n}", CHUNK, "later")))
        finally:
            await store.aclose()
            await pool.aclose()
    return found


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


async def _per_row(insert: Any, records: list[Any]) -> dict[str, float]:
    """Per row: the wall time, this process's CPU (the derivation's thread included) and PostgreSQL's."""
    postgres = pids_named("postgres")
    started, cpu, pg = time.perf_counter(), time.process_time(), cpu_seconds(postgres)
    for i in range(0, len(records), CHUNK):
        await insert(records[i : i + CHUNK])
    per_row = 1e6 / len(records)
    return {
        "wallUs": round((time.perf_counter() - started) * per_row, 1),
        "pythonUs": round((time.process_time() - cpu) * per_row, 1),
        "postgresUs": round((cpu_seconds(postgres) - pg) * per_row, 1),
    }


async def _rows_only(store: FeedbackStore, records: list[Any], insert_rows: Any) -> None:
    """Only the rows (with their derived columns) into the table, one transaction per chunk, by one of the
    two ways ``insert_batch`` has: no rollups, alert rows or cases, so the two ways compare alone."""
    _derived, rows = rows_of(records, store.derive)
    async with store.engine.begin() as conn:
        assert len(await insert_rows(conn, rows)) == len(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bulk_import", description=__doc__.split("\n\n")[0])
    parser.add_argument("--single-rows", type=int, default=600, help="items per kind on the item-by-item path")
    parser.add_argument("--batch-rows", type=int, default=5000, help="items per kind and writer count, batched")
    parser.add_argument("--process-rows", type=int, default=2000, help="rows of the in-process split")
    parser.add_argument("--pool", action="store_true", help="also the batch pool off and on, side by side")
    parser.add_argument("--pool-only", action="store_true", help="only the batch pool off and on")
    parser.add_argument("--pool-rows", type=int, default=5000, help="items per kind, pool mode and round")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of the pool's side by side")
    parser.add_argument("--loop-hold-only", action="store_true", help="only the loop's wait, pool off and on")
    args = parser.parse_args(argv)

    if args.loop_hold_only:
        holds = asyncio.run(loop_hold_side_by_side(args.rounds))
        path = write_result("bulk_import_loop_hold", holds)
        print_table(
            "the event loop's longest wait while one 1,000-row batch saved for later is stored",
            [
                (
                    f"round {n + 1}: pool off / on",
                    f"{off['maxLagMs']} / {on['maxLagMs']} ms",
                    f"{off['batchS']} / {on['batchS']} s",
                )
                for n, (off, on) in enumerate(zip(holds["off"], holds["on"], strict=True))
            ],
        )
        print(f"written: {path}")
        return 0

    pool = pool_side_by_side(args.pool_rows, args.rounds) if args.pool or args.pool_only else None
    if args.pool_only:
        assert pool is not None
        path = write_result("bulk_import_pool", pool)
        print_table(
            f"bulk import on PostgreSQL, the batch pool off and on: {args.pool_rows} items a run", pool_rows(pool)
        )
        print(f"written: {path}")
        accepted = max(
            entry["rowsPerS"] for key, runs in pool["runs"].items() if key.startswith("accepted/on") for entry in runs
        )
        return 0 if accepted >= POOL_TARGET_ROWS_PER_S else 1

    http = over_http(args.single_rows, args.batch_rows)
    split = asyncio.run(in_process(args.process_rows))
    best = max(entry["rowsPerS"] for key, entry in http.items() if "/batch/" in key)
    result = {"http": http, "inProcess": split, "targetRowsPerS": TARGET_ROWS_PER_S, "bestBatchRowsPerS": best}
    if pool is not None:
        result["pool"] = pool
    path = write_result("bulk_import", result)

    rows: list[tuple[str, str, str]] = []
    for kind in KINDS:
        single = http[f"{kind}/item-by-item"]["rowsPerS"]
        rows.append((f"{kind}: item by item, {SINGLE_WRITERS} writers", f"{single} rows/s", ""))
        for processes, writers in BATCH_RUNS:
            entry = http[f"{kind}/batch/{processes}x{writers}"]
            cpu = entry["cpuUsPerRow"]
            rows.append(
                (
                    f"{kind}: batch of {CHUNK}, {processes} service process(es), {writers} writer(s)",
                    f"{entry['rowsPerS']} rows/s (×{entry['rowsPerS'] / single:.1f})",
                    f"≥ {TARGET_ROWS_PER_S}: {pf(entry['rowsPerS'] >= TARGET_ROWS_PER_S)}",
                )
            )
            rows.append(
                (
                    "  CPU per row: service / PostgreSQL / client",
                    f"{cpu['service']} / {cpu['postgres']} / {cpu['client']} µs",
                    f"{CORES} cores give at most {cpu['ceilingRowsPerS']} rows/s",
                )
            )
    for kind in KINDS:
        for part in ("validate", "record", "derive"):
            rows.append((f"in process: {part} per row ({kind})", f"{split[f'{part}/{kind}']} µs", ""))
    for label, key in (
        ("insert_batch (derive, COPY, rollups, alert rows)", "insertBatch"),
        ("rows only, VALUES pages", "rows/values"),
        ("rows only, COPY + INSERT … SELECT", "rows/copy"),
    ):
        part = split[key]
        rows.append(
            (
                f"in process: {label} per row",
                f"{part['wallUs']} µs",
                f"CPU: Python {part['pythonUs']}, PostgreSQL {part['postgresUs']} µs",
            )
        )
    hold = split["loopHold"]
    rows.append(("event loop's longest wait during a 1,000-row batch", f"{hold['maxLagMs']} ms", f"{hold['batchS']} s"))
    if pool is not None:
        rows.extend(pool_rows(pool))
    print_table(
        f"bulk import on PostgreSQL: {args.single_rows} items item by item, {args.batch_rows} batched, per kind",
        rows,
    )
    print(f"written: {path}")
    return 0 if best >= TARGET_ROWS_PER_S else 1


if __name__ == "__main__":
    sys.exit(main())
