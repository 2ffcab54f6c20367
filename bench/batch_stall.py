"""The event loop's worst stall while four full bulk-import batches are stored at once (``feedctl serve``).

For each engine (SQLite, PostgreSQL) and each kind of item, against a fresh ``feedctl serve`` (the
structure-later worker off, no model), in one run:

1. quiet: ``GET /livez`` every 20 ms from another process, on one kept-alive connection (the floor);
2. four writers send a full batch each at once (``POST /feedback/batch``, 1,000 items saved for later,
   ids unique), ``--rounds`` (2) batches each; a shed batch (``503``) is sent again after its
   ``Retry-After``, as ``feedctl load`` does. The same probes run meanwhile.

Two kinds of item: **short**, demo-corpus texts made unique (~120 characters, an import of desk notes),
and **long**, texts of ``FI_TEXT_STORE_MAX_CHARS`` (4,000 characters, ~4.8 MB a batch: the most CPU a
batch's rules can be handed within the body cap). The event loop serves ``/livez`` between everything
else it does, so a probe's answer time is how long the loop kept a client waiting (the quiet floor,
~1–5 ms, is its own round trip). Also reported: the rows a second of the four writers together, the
sheds, and that every item is stored exactly once (the writers' ``created`` + ``accepted`` against the
items sent, and the channel's rows).

Target: while the batches are stored, the longest ``/livez`` answer ≤ 0.2 s, on both engines, for both
kinds, every item stored once.

``--against PATH`` runs every phase also against the service code of another checkout (e.g. a worktree
of ``main``), alternating with this one's: a before/after in one run on the same machine. ``--pool`` runs
every phase with the batch pool off (``FI_BATCH_PROCESSES=0``: the rules in a thread of the service) and
on (a worker process per usable core, docs/adr/0074), side by side.

Run: .venv/bin/python -m bench.batch_stall [--rounds 2] [--kinds short,long] [--engines sqlite,postgresql] [--pool]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from bench.common import pf, print_table, summary_ms, write_result
from feedback_intelligence.demo.corpus import load_corpus
from feedback_intelligence.devtools.databases import postgres_pair
from feedback_intelligence.devtools.processes import app_server

TARGET_STALL_MS = 200.0
PROBE_EVERY_S = 0.02
QUIET_S = 5.0
WRITERS = 4
FULL_BATCH = 1000  # FI_BATCH_MAX_ITEMS' default
WARM_ITEMS = 100  # one batch first: connections, the lexicons' caches
LONG_CHARS = 4000  # FI_TEXT_STORE_MAX_CHARS' default
KINDS = ("short", "long")
ENGINES = ("sqlite", "postgresql")
STORES = ("hki-1", "tre-1", "tku-1", "oulu-1")
ENV = {
    "FI_LLM_BACKEND": "ollama",
    "FI_LLM_BASE_URL": "http://127.0.0.1:9",  # no model: a batch never calls one
    "FI_LLM_MODEL": "none",
    "FI_STRUCTURE_WORKER": "false",  # the import alone
}


def batch_items(prefix: str, count: int, kind: str) -> list[dict[str, Any]]:
    """``count`` items saved for later with unique ids and texts (a corpus text and a running number;
    ``long``: repeated to LONG_CHARS)."""
    corpus = load_corpus()
    made = []
    for n in range(count):
        entry = corpus[n % len(corpus)]
        tag = f" (#{prefix}-{n})"
        text = entry["text"] + tag
        if kind == "long":
            text = ((entry["text"] + " ") * (LONG_CHARS // (len(entry["text"]) + 1) + 1))[: LONG_CHARS - len(tag)] + tag
        made.append(
            {
                "id": f"{prefix}-{n:07d}",
                "source": entry["source"],
                "text": text,
                "timestamp": entry["timestamp"],
                "store": STORES[n % len(STORES)],
                "structureLater": True,
            }
        )
    return made


def _probe(url: str, ready: Any, stop: Any, results: Any) -> None:
    """``GET /livez`` every PROBE_EVERY_S (or at once after a late answer) until ``stop``, ``ready`` after the
    first: each probe's answer time (ms) and the statuses that were not 200."""
    samples: list[float] = []
    failures: list[str] = []
    with httpx.Client(timeout=30) as client:
        next_at = time.monotonic()
        while not stop.is_set():
            started = time.monotonic()
            try:
                status = client.get(url + "/livez").status_code
                if status != 200:
                    failures.append(str(status))
            except httpx.HTTPError as exc:
                failures.append(type(exc).__name__)
            samples.append((time.monotonic() - started) * 1000)
            ready.set()
            next_at = max(next_at + PROBE_EVERY_S, time.monotonic())
            time.sleep(max(0.0, next_at - time.monotonic()))
    results.put({"samples": samples, "failures": failures})


@contextmanager
def probing(url: str) -> Iterator[dict[str, Any]]:
    """Probes from a process of their own, the first answered before the block runs, the last after it;
    the dict is filled when it ends."""
    spawn = multiprocessing.get_context("spawn")
    ready, stop, results = spawn.Event(), spawn.Event(), spawn.Queue()
    prober = spawn.Process(target=_probe, args=(url, ready, stop, results), daemon=True)
    prober.start()
    if not ready.wait(60):
        raise RuntimeError(f"no /livez answer from {url}")
    found: dict[str, Any] = {}
    try:
        yield found
    finally:
        stop.set()
        found.update(results.get(timeout=60))
        prober.join(timeout=30)


async def _writers(url: str, bodies: list[list[bytes]]) -> dict[str, Any]:
    """One writer per list of bodies, all at once; each body sent until it is not shed (after
    ``Retry-After``). Returns the counts of the answers and the wall time."""
    totals = {"created": 0, "accepted": 0, "duplicate": 0, "invalid": 0, "sheds": 0, "failures": []}

    async def writer(http: httpx.AsyncClient, own: list[bytes]) -> None:
        for body in own:
            while True:
                answer = await http.post(
                    url + "/feedback/batch", content=body, headers={"content-type": "application/json"}
                )
                if answer.status_code != 503 or "retry-after" not in answer.headers:
                    break
                totals["sheds"] += 1
                await asyncio.sleep(float(answer.headers["retry-after"]))
            if answer.status_code != 200:
                totals["failures"].append(f"{answer.status_code} {answer.text[:200]}")
                continue
            counts = answer.json()
            for key in ("created", "accepted", "duplicate", "invalid"):
                totals[key] += counts[key]

    async with httpx.AsyncClient(timeout=600) as http:
        started = time.monotonic()
        await asyncio.gather(*(writer(http, own) for own in bodies))
        totals["seconds"] = time.monotonic() - started
    return totals


def _summary(ms: list[float]) -> dict[str, float]:
    return {key: round(value, 1) for key, value in summary_ms(ms).items()} | {"max": round(max(ms), 1)}


def _encoded(items: list[dict[str, Any]]) -> bytes:
    return json.dumps({"items": items}, ensure_ascii=False).encode()


def phase(
    engine: str,
    kind: str,
    writers: int,
    rounds: int,
    batch: int,
    code: Path | None = None,
    pool: str | None = None,
) -> dict[str, Any]:
    """One server (``code``: another checkout's service; ``pool``: off or on), quiet probes, then the
    writers with probes."""
    env = dict(ENV) if code is None else {**ENV, "PYTHONPATH": str(code)}
    if pool == "off":
        env["FI_BATCH_PROCESSES"] = "0"  # on: unset, a worker per usable core
    with _databases(engine, env) as env, app_server(env) as app:
        warm = _encoded(batch_items(f"warm-{kind}", WARM_ITEMS, kind))
        httpx.post(app.url + "/feedback/batch", content=warm, headers={"content-type": "application/json"}, timeout=600)
        tag = f"{kind}-{time.time_ns()}"
        bodies = [
            [_encoded(batch_items(f"{tag}-w{w}r{r}", batch, kind)) for r in range(rounds)] for w in range(writers)
        ]
        with probing(app.url) as quiet:
            time.sleep(QUIET_S)
        with probing(app.url) as loaded:
            sent = asyncio.run(_writers(app.url, bodies))
        rows = httpx.get(app.url + "/admin/status", timeout=60).json()["channels"]["corpus"]["rows"] - WARM_ITEMS
    during = loaded["samples"]
    items = writers * rounds * batch
    answered = sent["created"] + sent["accepted"] == items and not sent["failures"] and sent["duplicate"] == 0
    return {
        "engine": engine,
        "kind": kind,
        "code": str(code) if code else "this checkout",
        "pool": pool,
        "quietMs": _summary(quiet["samples"]),
        "duringMs": _summary(during),
        "probeFailures": quiet["failures"] + loaded["failures"],
        "items": items,
        "rowsPerS": round(items / sent["seconds"], 1),
        "seconds": round(sent["seconds"], 2),
        "sheds": sent["sheds"],
        "answers": {k: sent[k] for k in ("created", "accepted", "duplicate", "invalid")},
        "failures": sent["failures"][:5],
        "corpusRows": rows,
        "storedOnce": answered and rows == items,
    }


@contextmanager
def _databases(engine: str, env: dict[str, str]) -> Iterator[dict[str, str]]:
    if engine == "sqlite":
        yield env  # app_server's fresh temp files
        return
    with postgres_pair("fi_bench_stall") as (corpus, live):
        yield {**env, "FI_DATABASE_URL": corpus, "FI_LIVE_DATABASE_URL": live}


def verdict(result: dict[str, Any]) -> bool:
    return result["duringMs"]["max"] <= TARGET_STALL_MS and result["storedOnce"] and not result["probeFailures"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.batch_stall", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2, help="full batches each writer sends")
    parser.add_argument("--writers", type=int, default=WRITERS)
    parser.add_argument("--batch", type=int, default=FULL_BATCH, help="items a batch")
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--engines", default=",".join(ENGINES))
    parser.add_argument("--against", type=Path, help="another checkout whose service runs each phase too")
    parser.add_argument("--pool", action="store_true", help="each phase with the batch pool off and on")
    args = parser.parse_args(argv)

    runs: list[dict[str, Any]] = []
    pools: list[str | None] = ["off", "on"] if args.pool else [None]
    for engine in args.engines.split(","):
        for kind in args.kinds.split(","):
            for code in ([args.against] if args.against else []) + [None]:
                for pool in pools:
                    runs.append(phase(engine, kind, args.writers, args.rounds, args.batch, code, pool))
    ours = [run for run in runs if run["code"] == "this checkout" and run["pool"] != "off"]
    ok = all(verdict(run) for run in ours)
    path = write_result("batch_stall", {"runs": runs, "targetStallMs": TARGET_STALL_MS, "pass": ok})

    rows: list[tuple[str, str, str]] = []
    for run in runs:
        label = f"{run['engine']}, {run['kind']}" + (f" ({run['code']})" if args.against else "")
        label += f", pool {run['pool']}" if run["pool"] else ""
        during = run["duringMs"]
        rows.append(
            (
                f"{label}: longest /livez answer, {args.writers} batches of {args.batch} at once",
                f"{during['max']} ms (p99 {during['p99']}, p50 {during['p50']}; quiet max {run['quietMs']['max']})",
                f"≤ {TARGET_STALL_MS:.0f} ms: {pf(verdict(run))}" if run in ours else "",
            )
        )
        rows.append(
            (
                "  rows/s of the writers together; sheds; every item stored once",
                f"{run['rowsPerS']} ({run['seconds']} s); {run['sheds']}; {run['storedOnce']}",
                "",
            )
        )
    print_table(f"the event loop during {args.writers} bulk-import batches at once (bench/batch_stall)", rows)
    print(f"written: {path}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
