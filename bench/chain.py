"""A chain-sized room on this machine: three replicas on one Redis gate and one PostgreSQL, four GPUs.

Four sim-ollama processes (2 parallel each, ``--service-ms`` a call) behind one gate of 8 slots
(``FI_LLM_BACKENDS``, a Redis lease set per backend, 500 ms acquire timeout), shared by three
``feedctl serve`` replicas on one Redis and one pair of fresh PostgreSQL databases. A crowd of
160 clerks (the crowd of ``bench.crowd``: think time 1-6 s, the desk's 503 policy of two jittered
retries honouring ``Retry-After``) presses for 60 s, split evenly over the replicas. 20 clerks per
slot is the overload of ``bench.crowd`` (40 clerks on 2 slots), so the one-GPU figures are the yardstick.

Measured: admitted and shed p99 over every replica; each backend's busy fraction from its own sim
(``busyMs`` over elapsed x parallel, reset to the crowd's deadline); nothing queued below the gate (each
sim's longest wait for a slot and its peak concurrency); no slot leaked (every replica's gate
``inUse`` and the Redis lease sets after the run). The crowd runs in this one process: its event
loop's lag (a 50 ms ticker's overshoot) and CPU share are reported, so a saturated client shows.

Run: .venv/bin/python -m bench.chain [--clerks 160 --duration 60 --sims 4 --replicas 3]
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

from bench.common import pf, print_table, sim_pool_env, write_result
from feedback_intelligence.cli.crowd import CrowdResult, percentiles, run_crowd
from feedback_intelligence.devtools.processes import ServerProcess, app_server, sim_ollama

REDIS = "redis://127.0.0.1:6379/0"
PARALLEL = 2
SERVICE_MS = 1500
ACQUIRE_MS = 500
VISITOR_SECRET = "the-chain-bench-replicas-share-this-secret"


def targets_for(service_ms: int = SERVICE_MS, acquire_ms: int = ACQUIRE_MS) -> dict[str, float]:
    """The one-GPU yardstick of ``bench.crowd``, for the whole chain."""
    return {
        "admittedP99MaxMs": 1.2 * service_ms + acquire_ms,
        "shedP99MaxMs": acquire_ms + 100,
        "busyMinFraction": 0.90,
        "simMaxWaitMs": 50.0,
    }


def evaluate(result: dict[str, Any], goal: dict[str, float]) -> dict[str, bool | None]:
    """PASS/FAIL of each target (``None`` when there is nothing to judge)."""
    crowd = result["crowd"]
    admitted, shed = crowd["admittedMs"]["p99"], crowd["shedMs"]["p99"]
    sims = result["sims"]
    leak = result["leak"]
    return {
        "admittedP99": None if admitted is None else admitted <= goal["admittedP99MaxMs"],
        "shedP99": None if shed is None else shed <= goal["shedP99MaxMs"],
        "everyBackendBusy": all(s["busy"] >= goal["busyMinFraction"] for s in sims),
        "nothingQueuedBelowTheGate": all(
            s["maxConcurrency"] <= s["parallel"] and s["maxWaitMs"] <= goal["simMaxWaitMs"] for s in sims
        ),
        "noSlotLeaked": not any(leak["gateInUse"]) and leak["redisLeases"] == 0,
        "noOtherErrors": not crowd["otherErrors"],
        "notCapped": not crowd["capped"],
    }


def merge(results: list[CrowdResult], duration_s: float) -> dict[str, Any]:
    """One summary of the crowds of every replica (latencies pooled, counts added)."""
    admitted = [ms for r in results for ms in r.admitted_latencies_ms]
    shed = [ms for r in results for ms in r.shed_latencies_ms]
    presses = sum(r.presses for r in results)
    attempts = sum(r.attempts for r in results)
    errors: dict[str, int] = {}
    for r in results:
        for key, count in r.other_errors.items():
            errors[key] = errors.get(key, 0) + count
    return {
        "clerks": sum(r.clerks for r in results),
        "presses": presses,
        "results": sum(r.results for r in results),
        "busyMessages": sum(r.busy for r in results),
        "busyShare": round(sum(r.busy for r in results) / presses, 3) if presses else None,
        "attempts": attempts,
        "shedRate": round(len(shed) / attempts, 3) if attempts else 0.0,
        "throughputPerS": round(len(admitted) / duration_s, 3),
        "admittedMs": percentiles(admitted),
        "shedMs": percentiles(shed),
        "pressMs": percentiles([ms for r in results for ms in r.press_latencies_ms]),
        "otherErrors": errors,
        "capped": any(r.capped for r in results),
        "drainS": round(max(r.drain_s for r in results), 1),
        "perReplica": [{"admitted": len(r.admitted_latencies_ms), "shed": len(r.shed_latencies_ms)} for r in results],
    }


class LoopLag:
    """How late this process's event loop wakes a 50 ms ticker: a saturated client shows here."""

    def __init__(self, tick_s: float = 0.05) -> None:
        self.tick_s = tick_s
        self.lags_ms: list[float] = []
        self._task: asyncio.Task[None] | None = None
        self._cpu0 = 0.0
        self._wall0 = 0.0
        self.cpu_share: float | None = None

    async def _run(self) -> None:
        while True:
            before = time.perf_counter()
            await asyncio.sleep(self.tick_s)
            self.lags_ms.append(max(0.0, (time.perf_counter() - before - self.tick_s) * 1000))

    def start(self) -> None:
        self._cpu0, self._wall0 = time.process_time(), time.perf_counter()
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> dict[str, Any]:
        self.cpu_share = (time.process_time() - self._cpu0) / (time.perf_counter() - self._wall0)
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        return {"lagMs": percentiles(self.lags_ms), "cpuShareOfOneCore": round(self.cpu_share, 3)}


def split(clerks: int, parts: int) -> list[int]:
    return [clerks // parts + (1 if i < clerks % parts else 0) for i in range(parts)]


async def redis_leases(gate_name: str) -> int:
    """Leases left in every lease set of the gate (``fi:gate:<name>:<backend>:leases``)."""
    import redis.asyncio as aioredis

    client = aioredis.from_url(REDIS)
    try:
        total = 0
        async for key in client.scan_iter(match=f"fi:gate:{gate_name}:*:leases"):
            total += int(await client.zcard(key))
        return total
    finally:
        await client.aclose()


async def crowd_phase(
    apps: list[ServerProcess],
    sims: list[ServerProcess],
    *,
    clerks: int,
    duration_s: float,
    seed: int,
    gate_name: str | None,
    drain_cap_s: float = 120.0,
    think_s: tuple[float, float] = (1.0, 6.0),
) -> dict[str, Any]:
    """Reset the sims, run the crowd split over ``apps``, then read busy, queueing and leaks."""
    async with httpx.AsyncClient(timeout=30) as http:
        await asyncio.gather(*(http.post(s.url + "/sim/reset") for s in sims))
        start = [r.json() for r in await asyncio.gather(*(http.get(s.url + "/sim/stats") for s in sims))]
        at_deadline: list[dict[str, Any]] = []
        deadline_gate = asyncio.Event()

        async def sample() -> None:  # the first replica's crowd to reach the deadline samples the sims
            if not deadline_gate.is_set():
                deadline_gate.set()
                at_deadline.extend(
                    r.json() for r in await asyncio.gather(*(http.get(s.url + "/sim/stats") for s in sims))
                )

        lag = LoopLag()
        lag.start()
        results = await asyncio.gather(
            *(
                run_crowd(
                    app.url,
                    n,
                    duration_s,
                    think_s=think_s,
                    seed=seed + i,
                    http_timeout_s=60.0,
                    drain_timeout_s=drain_cap_s,
                    at_deadline=sample,
                )
                for i, (app, n) in enumerate(zip(apps, split(clerks, len(apps)), strict=True))
            )
        )
        client = await lag.stop()
        in_use = await settle(http, apps)
        end = [r.json() for r in await asyncio.gather(*(http.get(s.url + "/sim/stats") for s in sims))]
    sims_out = [
        {
            "busy": round((d["busyMs"] - s["busyMs"]) / ((d["elapsedMs"] - s["elapsedMs"]) * PARALLEL), 4),
            "completed": e["completed"],
            "maxConcurrency": e["maxConcurrency"],
            "maxWaitMs": e["maxWaitMs"],
            "rejectedBusy": e["rejectedBusy"],
            "parallel": e["config"]["parallel"],
        }
        for s, d, e in zip(start, at_deadline, end, strict=True)
    ]
    return {
        "crowd": merge(list(results), max(r.duration_s for r in results)),
        "sims": sims_out,
        "client": client,
        "leak": {"gateInUse": in_use, "redisLeases": await redis_leases(gate_name) if gate_name else 0},
    }


async def settle(http: httpx.AsyncClient, apps: list[ServerProcess], timeout_s: float = 5.0) -> list[int]:
    """Each replica's gate ``inUse`` once the crowd is over (polled briefly: a release may trail)."""
    deadline = time.monotonic() + timeout_s
    while True:
        in_use = [(await http.get(app.url + "/admin/status")).json()["gate"]["inUse"] for app in apps]
        if not any(in_use) or time.monotonic() > deadline:
            return in_use
        await asyncio.sleep(0.1)


def pool_env(sims: list[ServerProcess], **extra: str) -> dict[str, str]:
    return sim_pool_env([s.url for s in sims], slots=PARALLEL, acquire_ms=ACQUIRE_MS, **extra)


def run(*, clerks: int, duration_s: float, sims: int, replicas: int, service_ms: int, seed: int) -> dict[str, Any]:
    from feedback_intelligence.devtools.databases import postgres_pair

    gate_name = f"chain-{uuid.uuid4().hex[:10]}"
    with ExitStack() as stack:
        corpus, live = stack.enter_context(postgres_pair("fi_bench"))
        started = [
            stack.enter_context(sim_ollama(parallel=PARALLEL, max_queue=8, service_ms=service_ms)) for _ in range(sims)
        ]
        env = pool_env(
            started,
            FI_REDIS_URL=REDIS,
            FI_GATE_NAME=gate_name,
            FI_DATABASE_URL=corpus,
            FI_LIVE_DATABASE_URL=live,
            FI_VISITOR_SECRET=VISITOR_SECRET,
        )
        apps = [stack.enter_context(app_server(env)) for _ in range(replicas)]  # one by one: no migration race
        return asyncio.run(
            crowd_phase(apps, started, clerks=clerks, duration_s=duration_s, seed=seed, gate_name=gate_name)
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.chain", description=__doc__.split("\n\n")[0])
    parser.add_argument("--clerks", type=int, default=160)
    parser.add_argument("--duration", type=float, default=60.0)
    parser.add_argument("--sims", type=int, default=4)
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--service-ms", type=int, default=SERVICE_MS)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    result = run(
        clerks=args.clerks,
        duration_s=args.duration,
        sims=args.sims,
        replicas=args.replicas,
        service_ms=args.service_ms,
        seed=args.seed,
    )
    goal = targets_for(args.service_ms)
    verdicts = evaluate(result, goal)
    path = write_result(
        "chain",
        {
            "clerks": args.clerks,
            "durationS": args.duration,
            "sims": args.sims,
            "replicas": args.replicas,
            "parallel": PARALLEL,
            "serviceMs": args.service_ms,
            "acquireTimeoutMs": ACQUIRE_MS,
            "seed": args.seed,
            "targets": goal,
            "verdicts": verdicts,
            **result,
        },
    )
    c, sims, client = result["crowd"], result["sims"], result["client"]
    print_table(
        f"chain: {args.clerks} clerks, {args.duration:g} s, {args.replicas} replicas, "
        f"{args.sims} sims x {PARALLEL} slots x {args.service_ms} ms",
        [
            (
                "admitted p50 / p99",
                f"{c['admittedMs']['p50']} / {c['admittedMs']['p99']} ms (n={c['admittedMs']['n']})",
                f"p99 ≤ {goal['admittedP99MaxMs']:g} ms  {pf(verdicts['admittedP99'])}",
            ),
            (
                "shed p50 / p99",
                f"{c['shedMs']['p50']} / {c['shedMs']['p99']} ms (n={c['shedMs']['n']})",
                f"p99 ≤ {goal['shedP99MaxMs']:g} ms  {pf(verdicts['shedP99'])}",
            ),
            ("shed rate; presses ending busy", f"{c['shedRate']}; {c['busyMessages']} of {c['presses']}", ""),
            ("throughput", f"{c['throughputPerS']}/s", ""),
            (
                "backend busy (sim)",
                ", ".join(f"{s['busy']:.1%}" for s in sims),
                f"each ≥ 90%  {pf(verdicts['everyBackendBusy'])}",
            ),
            (
                "sim peak concurrency; longest wait in a sim",
                f"{[s['maxConcurrency'] for s in sims]}; {max(s['maxWaitMs'] for s in sims):.2f} ms",
                f"≤ {PARALLEL}; ≤ {goal['simMaxWaitMs']:g} ms  {pf(verdicts['nothingQueuedBelowTheGate'])}",
            ),
            ("calls per backend", f"{[s['completed'] for s in sims]}", ""),
            ("admitted / shed per replica", f"{c['perReplica']}", ""),
            (
                "after: gate inUse per replica; Redis leases",
                f"{result['leak']['gateInUse']}; {result['leak']['redisLeases']}",
                f"0; 0  {pf(verdicts['noSlotLeaked'])}",
            ),
            ("errors other than 503", f"{c['otherErrors'] or 'none'}", f"none  {pf(verdicts['noOtherErrors'])}"),
            (
                "client loop lag p50 / p99 / max; client CPU",
                f"{client['lagMs']['p50']} / {client['lagMs']['p99']} / {client['lagMs']['max']} ms; "
                f"{client['cpuShareOfOneCore']:.0%} of a core",
                "",
            ),
        ],
    )
    print(f"written: {path}")
    return 0 if all(v is not False for v in verdicts.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
