"""The gate on Redis: what sharing it across replicas costs, measured side by side in one run.

1. Acquire-and-release overhead of an empty ``gate.run`` call: the Redis slot pool (Lua admission,
   a renewal task, Lua release: two round trips to the local Redis) versus the in-process pool,
   interleaved call by call so both see the same machine state. A Redis PING is measured alongside
   as the floor of one round trip.
2. A crowd over three replicas sharing one Redis gate (and one PostgreSQL store) in front of
   sim-ollama (2 parallel, 1.5 s per call, as in bench.crowd), the clerks spread over the three;
   then, unless ``--no-baseline``, the same crowd against one replica with the in-process gate.
   Whether three replicas shed as one: admitted and shed latencies, backend busy fraction, and the
   sim's own view (never more than 2 running, nothing queued inside it). The busy fraction is the
   sim's, from its reset to the crowd's deadline (clerks' first arrivals included, the drain not).

3. Lua time per release with W = 10, 100, 1000 waiters, today's pool beside the pool before the
   O(log W) acquire, on a private redis-server (``bench.gate_waiters``).

Run: .venv/bin/python -m bench.gate_redis [--iterations 5000] [--clerks 40 --duration 30] [--no-baseline]
     [--waiters 10 100 1000 | --no-waiters] [--waiters-only]
Needs the Redis at 127.0.0.1:6379 and the PostgreSQL at 127.0.0.1:5432 (trust auth, user postgres).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
import uuid
from contextlib import ExitStack
from typing import Any

import httpx
import redis.asyncio as aioredis

from bench import gate_waiters
from bench.common import pf, print_table, summary_ms, write_result
from feedback_intelligence.cli.crowd import CrowdResult, percentiles, run_crowd
from feedback_intelligence.devtools.databases import postgres_pair
from feedback_intelligence.devtools.processes import ServerProcess, app_server, sim_ollama
from feedback_intelligence.gate.context import CallContext
from feedback_intelligence.gate.gate import LlmGate
from feedback_intelligence.gate.local import LocalSlotPool
from feedback_intelligence.gate.pooled import PooledSlotPool
from feedback_intelligence.gate.redis_pool import RedisSlotPool
from feedback_intelligence.gate.slots import Grant

REDIS = "redis://127.0.0.1:6379/0"
REPLICAS = 3
PARALLEL = 2
SERVICE_MS = 1500
ACQUIRE_MS = 500
TARGETS = {
    "redisRunP99MaxMs": 5.0,  # ≤ 0.5 % of a 1 s LLM call
    "admittedP99MaxMs": 1.2 * SERVICE_MS + ACQUIRE_MS,
    "shedP99MaxMs": ACQUIRE_MS + 100,
    "busyMinFraction": 0.90,
    "simMaxWaitMaxMs": 50.0,
}


# -- 1. overhead of one empty gate.run ---------------------------------------------------------------


async def _nothing(_grant: Grant) -> None:
    return None


CALL = CallContext.interactive("bench", "bench")


async def gate_overhead(iterations: int) -> dict[str, Any]:
    local = LlmGate(
        PooledSlotPool.single(LocalSlotPool(PARALLEL, 1)), acquire_timeout_s=ACQUIRE_MS / 1000, call_timeout_s=30
    )
    pool = RedisSlotPool(REDIS, slots=PARALLEL, name=f"bench-{uuid.uuid4().hex[:8]}", lease_s=10)
    shared = LlmGate(PooledSlotPool.single(pool), acquire_timeout_s=ACQUIRE_MS / 1000, call_timeout_s=30)
    ping = aioredis.from_url(REDIS)
    local_ms: list[float] = []
    redis_ms: list[float] = []
    ping_ms: list[float] = []
    try:
        for _ in range(200):  # warm: connections, script SHAs, the listener
            await local.run(_nothing, CALL)
            await shared.run(_nothing, CALL)
            await ping.ping()
        for _ in range(iterations):
            started = time.perf_counter()
            await local.run(_nothing, CALL)
            local_ms.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            await shared.run(_nothing, CALL)
            redis_ms.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            await ping.ping()
            ping_ms.append((time.perf_counter() - started) * 1000)
        leaked = (await pool.occupancy()).in_use
    finally:
        await ping.aclose()
        await shared.aclose()
    local_s, redis_s, ping_s = summary_ms(local_ms), summary_ms(redis_ms), summary_ms(ping_ms)
    return {
        "iterations": iterations,
        "inProcessRunMs": local_s,
        "redisRunMs": redis_s,
        "redisPingMs": ping_s,
        "addedP50Ms": round(redis_s["p50"] - local_s["p50"], 3),
        "addedP99Ms": round(redis_s["p99"] - local_s["p99"], 3),
        "redisRunOverPingP50": round(redis_s["p50"] / ping_s["p50"], 2),
        "leasesLeftOver": leaked,
    }


# -- 2. the crowd over three replicas -----------------------------------------------------------------


def split(clerks: int, parts: int) -> list[int]:
    return [clerks // parts + (1 if i < clerks % parts else 0) for i in range(parts)]


def merge(results: list[CrowdResult]) -> dict[str, Any]:
    admitted = [ms for r in results for ms in r.admitted_latencies_ms]
    shed = [ms for r in results for ms in r.shed_latencies_ms]
    attempts = sum(r.attempts for r in results)
    errors: dict[str, int] = {}
    for r in results:
        for key, count in r.other_errors.items():
            errors[key] = errors.get(key, 0) + count
    duration = max(r.duration_s for r in results)
    return {
        "clerks": sum(r.clerks for r in results),
        "presses": sum(r.presses for r in results),
        "busyMessages": sum(r.busy for r in results),
        "attempts": attempts,
        "shedRate": round(len(shed) / attempts, 3) if attempts else 0.0,
        "throughputPerS": round(len(admitted) / duration, 3) if duration else 0.0,
        "admittedMs": percentiles(admitted),
        "shedMs": percentiles(shed),
        "otherErrors": errors,
        "perReplica": [{"admitted": len(r.admitted_latencies_ms), "shed": len(r.shed_latencies_ms)} for r in results],
    }


async def crowd_phase(
    sim: ServerProcess, apps: list[ServerProcess], clerks: int, duration_s: float, seed: int
) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=sim.url, timeout=30) as http, httpx.AsyncClient(timeout=5) as admin:
        await http.post("/sim/reset")

        async def at_deadline() -> dict[str, Any]:  # busy fraction over the pressing window, not the drain
            await asyncio.sleep(duration_s)
            return (await http.get("/sim/stats")).json()

        sampler = asyncio.create_task(at_deadline())
        results = await asyncio.gather(
            *(
                run_crowd(app.url, n, duration_s, seed=seed + i)
                for i, (app, n) in enumerate(zip(apps, split(clerks, len(apps)), strict=True))
            )
        )
        busy = await sampler
        stats = (await http.get("/sim/stats")).json()
        deadline = time.monotonic() + 5
        in_use = None
        while time.monotonic() < deadline:
            in_use = (await admin.get(apps[0].url + "/admin/status")).json()["gate"]["inUse"]
            if in_use == 0:
                break
            await asyncio.sleep(0.1)
    crowd = merge(list(results))
    return {
        "crowd": crowd,
        "simBusyFraction": round(busy["busyMs"] / (busy["elapsedMs"] * PARALLEL), 4),
        "sim": {k: stats[k] for k in ("completed", "cancelled", "rejectedBusy", "maxConcurrency", "maxWaitMs")},
        "gateInUseAfter": in_use,
    }


def run_crowds(clerks: int, duration_s: float, seed: int, baseline: bool) -> dict[str, Any]:
    phases: dict[str, Any] = {}
    common = {
        "FI_LLM_BACKEND": "ollama",
        "FI_LLM_MODEL": "sim-model",
        "FI_LLM_SLOTS": str(PARALLEL),
        "FI_LLM_ACQUIRE_TIMEOUT_MS": str(ACQUIRE_MS),
    }
    with sim_ollama(parallel=PARALLEL, max_queue=8, service_ms=SERVICE_MS) as sim:
        with postgres_pair() as (corpus, live), ExitStack() as stack:
            env = {
                **common,
                "FI_LLM_BASE_URL": sim.url,
                "FI_REDIS_URL": REDIS,
                "FI_GATE_NAME": f"bench-{uuid.uuid4().hex[:8]}",
                "FI_DATABASE_URL": corpus,
                "FI_LIVE_DATABASE_URL": live,
                "FI_VISITOR_SECRET": "bench-replicas",
            }
            apps = [stack.enter_context(app_server(env)) for _ in range(REPLICAS)]
            phases["threeReplicasRedis"] = asyncio.run(crowd_phase(sim, apps, clerks, duration_s, seed))
        if baseline:
            with app_server({**common, "FI_LLM_BASE_URL": sim.url}) as app:
                phases["oneReplicaInProcess"] = asyncio.run(
                    crowd_phase(sim, [app] * REPLICAS, clerks, duration_s, seed)
                )
    return phases


def verdicts(overhead: dict[str, Any], three: dict[str, Any]) -> dict[str, bool | None]:
    crowd = three["crowd"]
    return {
        "redisRunP99": overhead["redisRunMs"]["p99"] <= TARGETS["redisRunP99MaxMs"],
        "admittedP99": None
        if crowd["admittedMs"]["p99"] is None
        else crowd["admittedMs"]["p99"] <= TARGETS["admittedP99MaxMs"],
        "shedP99": None if crowd["shedMs"]["p99"] is None else crowd["shedMs"]["p99"] <= TARGETS["shedP99MaxMs"],
        "backendBusy": three["simBusyFraction"] >= TARGETS["busyMinFraction"],
        "sharedSlots": three["sim"]["maxConcurrency"] <= PARALLEL
        and three["sim"]["maxWaitMs"] <= TARGETS["simMaxWaitMaxMs"],
        "noOtherErrors": not crowd["otherErrors"],
        "noSlotLeaked": three["gateInUseAfter"] == 0 and overhead["leasesLeftOver"] == 0,
    }


def ms(summary: dict[str, Any]) -> str:
    return f"{summary['p50']} / {summary['p99']} ms (n={summary['n']})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.gate_redis", description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=5000, help="empty gate.run calls per pool")
    parser.add_argument("--clerks", type=int, default=40)
    parser.add_argument("--duration", type=float, default=30.0, help="seconds of crowd per phase")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--no-baseline", action="store_true", help="skip the one-replica in-process crowd")
    parser.add_argument("--waiters", type=int, nargs="+", default=[10, 100, 1000], help="W of the waiter sweep")
    parser.add_argument("--no-waiters", action="store_true", help="skip the waiter sweep")
    parser.add_argument("--waiters-only", action="store_true", help="run only the waiter sweep")
    args = parser.parse_args(argv)
    waiters_ok = True
    if not args.no_waiters:
        waiters_ok = gate_waiters.main(["--waiters", *map(str, args.waiters)]) == 0
        if args.waiters_only:
            return 0 if waiters_ok else 1

    overhead = asyncio.run(gate_overhead(args.iterations))
    phases = run_crowds(args.clerks, args.duration, args.seed, baseline=not args.no_baseline)
    three = phases["threeReplicasRedis"]
    judged = verdicts(overhead, three)
    result = {
        "replicas": REPLICAS,
        "parallel": PARALLEL,
        "serviceMs": SERVICE_MS,
        "acquireTimeoutMs": ACQUIRE_MS,
        "clerks": args.clerks,
        "durationS": args.duration,
        "seed": args.seed,
        "targets": TARGETS,
        "verdicts": judged,
        "gateRun": overhead,
        **phases,
    }
    path = write_result("gate_redis", result)

    c = three["crowd"]
    rows = [
        ("empty gate.run, in-process p50 / p99", ms(overhead["inProcessRunMs"]), ""),
        (
            "empty gate.run, Redis p50 / p99",
            ms(overhead["redisRunMs"]),
            f"p99 ≤ {TARGETS['redisRunP99MaxMs']:g} ms  {pf(judged['redisRunP99'])}",
        ),
        ("  added by Redis p50 / p99", f"{overhead['addedP50Ms']} / {overhead['addedP99Ms']} ms", ""),
        (
            "  Redis PING p50 (one round trip); run / ping",
            f"{overhead['redisPingMs']['p50']} ms; ×{overhead['redisRunOverPingP50']}",
            "",
        ),
        (
            "3 replicas: admitted p50 / p99",
            ms(c["admittedMs"]),
            f"p99 ≤ {TARGETS['admittedP99MaxMs']:g} ms  {pf(judged['admittedP99'])}",
        ),
        (
            "3 replicas: shed p50 / p99",
            ms(c["shedMs"]),
            f"p99 ≤ {TARGETS['shedP99MaxMs']:g} ms  {pf(judged['shedP99'])}",
        ),
        ("3 replicas: shed rate / presses ending busy", f"{c['shedRate']} / {c['busyMessages']} of {c['presses']}", ""),
        (
            "3 replicas: admitted / shed per replica",
            ", ".join(f"{r['admitted']}/{r['shed']}" for r in c["perReplica"]),
            "",
        ),
        (
            "3 replicas: throughput; backend busy (sim)",
            f"{c['throughputPerS']}/s; {three['simBusyFraction']:.1%}",
            f"busy ≥ 90%  {pf(judged['backendBusy'])}",
        ),
        (
            "3 replicas: sim max running / max queued wait",
            f"{three['sim']['maxConcurrency']} / {three['sim']['maxWaitMs']:.1f} ms",
            f"≤ {PARALLEL} / ≤ {TARGETS['simMaxWaitMaxMs']:g} ms  {pf(judged['sharedSlots'])}",
        ),
        (
            "3 replicas: errors other than 503; slots left",
            f"{c['otherErrors'] or 'none'}; {three['gateInUseAfter']}",
            f"none; 0  {pf(judged['noOtherErrors'] and judged['noSlotLeaked'])}",
        ),
    ]
    if "oneReplicaInProcess" in phases:
        one = phases["oneReplicaInProcess"]
        b = one["crowd"]
        rows += [
            ("1 replica in-process: admitted p50 / p99", ms(b["admittedMs"]), ""),
            ("1 replica in-process: shed p50 / p99", ms(b["shedMs"]), ""),
            (
                "1 replica in-process: throughput; busy (sim)",
                f"{b['throughputPerS']}/s; {one['simBusyFraction']:.1%}",
                "",
            ),
        ]
    print_table(
        f"gate on Redis: {args.iterations} empty runs; crowd of {args.clerks} clerks × {args.duration:g} s "
        f"over {REPLICAS} replicas, sim {PARALLEL} parallel × {SERVICE_MS} ms",
        rows,
    )
    print(f"written: {path}")
    return 0 if waiters_ok and all(v is not False for v in judged.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
