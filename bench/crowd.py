"""A roomful of clerks: shed (our gate) versus the deep queue a user gets without it, side by side.

One run starts sim-ollama (2 parallel, 1.5 s per call; it schedules like Ollama: a loaded model runs
``parallel`` requests and queues every further one without bound) and, one after the other, two app
processes in front of it, each facing the same crowd (40 clerks for 60 s, the desk's 503 policy,
think times 1-6 s, the same seed):

(a) ours: 2 slots, 500 ms acquire timeout, sim max-queue 8 (it bounds only a cold model's queue);
(b) no gate: the app admits everything (64 slots, a 60 s acquire timeout that is never reached with
    40 clerks, no background reserve, a 1-hour call deadline) and the clerks wait as long as it
    takes, so the requests pile up in the sim's unbounded queue as they do in a warm Ollama.

At the deadline no clerk starts a new press; presses under way finish (capped at ``--drain-cap-s``).
Backend busy fraction is taken from the sim (busyMs delta over elapsed x parallel, running calls
included) and from the gate's ``fi_gate_busy_slot_seconds_total`` (which counts a call when it ends),
both over the crowd's active window.

Run: .venv/bin/python -m bench.crowd [--clerks 40 --duration 60]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from typing import Any

import httpx

from bench.common import pf, print_table, write_result
from feedback_intelligence.cli.crowd import SAMPLE_TEXTS, run_crowd
from feedback_intelligence.devtools.processes import app_server, sim_ollama

PARALLEL = 2
SERVICE_MS = 1500
ACQUIRE_MS = 500
SIM_MAX_QUEUE = 8
OURS = {"FI_LLM_SLOTS": str(PARALLEL), "FI_LLM_ACQUIRE_TIMEOUT_MS": str(ACQUIRE_MS)}
# Settings cap FI_LLM_SLOTS at 64; a closed crowd of at most 64 clerks never has more requests in flight.
NO_GATE = {
    "FI_LLM_SLOTS": "64",
    "FI_LLM_ACQUIRE_TIMEOUT_MS": "60000",
    "FI_LLM_CALL_TIMEOUT_S": "3600",
    "FI_LLM_BACKGROUND_RESERVE": "0",
}
NO_GATE_MAX_CLERKS = 64


def targets_for(service_ms: int = SERVICE_MS, acquire_ms: int = ACQUIRE_MS) -> dict[str, float]:
    return {
        "admittedP99MaxMs": 1.2 * service_ms + acquire_ms,
        "shedP99MaxMs": acquire_ms + 100,
        "busyMinFraction": 0.90,
        "deepOverOursMinRatio": 10.0,
    }


def evaluate(ours: dict[str, Any], deep: dict[str, Any], targets: dict[str, float]) -> dict[str, bool | None]:
    """PASS/FAIL of each target (``None`` when there is nothing to judge, e.g. no shed at all)."""
    crowd, deep_crowd = ours["crowd"], deep["crowd"]
    admitted_p99 = crowd["admittedMs"]["p99"]
    shed_p99 = crowd["shedMs"]["p99"]
    deep_p99 = deep_crowd["admittedMs"]["p99"]
    return {
        "admittedP99": None if admitted_p99 is None else admitted_p99 <= targets["admittedP99MaxMs"],
        "shedP99": None if shed_p99 is None else shed_p99 <= targets["shedP99MaxMs"],
        "backendBusy": ours["simBusyFraction"] >= targets["busyMinFraction"],
        "noOtherErrors": not crowd["otherErrors"] and not ours["edgeCheck"]["rejected"],
        "noSlotLeaked": ours["leak"]["gateInUse"] == 0 and ours["leak"]["simInFlight"] == 0,
        "deepQueueRatio": (
            None if deep_p99 is None or not admitted_p99 else deep_p99 >= targets["deepOverOursMinRatio"] * admitted_p99
        ),
        "notCapped": not crowd["capped"] and not deep_crowd["capped"],
    }


async def edge_check(app_url: str) -> dict[str, Any]:
    """Two concurrent interprets from this (loopback) client: the per-client in-flight cap and the rate
    limit must not apply to loopback callers, or the crowd would meet 429s no real room of clerks sees."""
    async with httpx.AsyncClient(base_url=app_url, timeout=60) as http:
        responses = await asyncio.gather(*(http.post("/interpret", json={"text": t}) for t in SAMPLE_TEXTS[:2]))
    codes = [r.status_code for r in responses]
    return {"statuses": codes, "rejected": [c for c in codes if c == 429]}


async def settle(app: httpx.AsyncClient, sim: httpx.AsyncClient, timeout_s: float = 5.0) -> dict[str, Any]:
    """Gate slots in use and sim requests in flight once the crowd is over (polled briefly: a release may
    trail the last response by a few milliseconds)."""
    deadline = time.monotonic() + timeout_s
    while True:
        status = (await app.get("/admin/status")).json()
        stats = (await sim.get("/sim/stats")).json()
        leak = {"gateInUse": status["gate"]["inUse"], "simInFlight": stats["inFlight"], "simQueued": stats["queued"]}
        if (leak["gateInUse"] == 0 and leak["simInFlight"] == 0) or time.monotonic() > deadline:
            return leak
        await asyncio.sleep(0.1)


async def phase(
    app_url: str, sim_url: str, *, clerks: int, duration_s: float, seed: int, drain_cap_s: float, http_timeout_s: float
) -> dict[str, Any]:
    async with (
        httpx.AsyncClient(base_url=app_url, timeout=30) as app,
        httpx.AsyncClient(base_url=sim_url, timeout=30) as sim,
    ):
        check = await edge_check(app_url)
        await sim.post("/sim/reset")
        start = (await sim.get("/sim/stats")).json()
        at_deadline: dict[str, Any] = {}

        async def sample() -> None:
            at_deadline.update((await sim.get("/sim/stats")).json())

        result = await run_crowd(
            app_url,
            clerks,
            duration_s,
            seed=seed,
            http_timeout_s=http_timeout_s,
            drain_timeout_s=drain_cap_s,
            at_deadline=sample,
        )
        leak = await settle(app, sim)
        end = (await sim.get("/sim/stats")).json()
    elapsed_ms = at_deadline["elapsedMs"] - start["elapsedMs"]
    busy_ms = at_deadline["busyMs"] - start["busyMs"]
    return {
        "crowd": result.summary(),
        "edgeCheck": check,
        "simBusyFraction": round(busy_ms / (elapsed_ms * PARALLEL), 4),
        "gateBusyFraction": result.busy_slot_fraction,
        "simAtDeadline": {
            k: at_deadline[k]
            for k in ("completed", "maxWaitMs", "maxConcurrency", "busyMs", "elapsedMs", "queued", "inFlight")
        },
        "simAtEnd": {k: end[k] for k in ("completed", "cancelled", "rejectedBusy", "maxWaitMs", "maxConcurrency")},
        "leak": leak,
    }


def run(clerks: int, duration_s: float, seed: int, drain_cap_s: float) -> dict[str, Any]:
    if clerks > NO_GATE_MAX_CLERKS:
        raise SystemExit(f"--clerks must be at most {NO_GATE_MAX_CLERKS}: the no-gate app has 64 slots")
    common = {"FI_LLM_BACKEND": "ollama", "FI_LLM_MODEL": "sim-model", "FI_LLM_CALL_TIMEOUT_S": "120"}
    phases: dict[str, Any] = {}
    with sim_ollama(parallel=PARALLEL, max_queue=SIM_MAX_QUEUE, service_ms=SERVICE_MS) as sim:
        for name, env, http_timeout_s in (("ours", OURS, 60.0), ("noGate", NO_GATE, drain_cap_s + duration_s)):
            with app_server({**common, "FI_LLM_BASE_URL": sim.url, **env}) as app:
                started = time.monotonic()
                phases[name] = asyncio.run(
                    phase(
                        app.url,
                        sim.url,
                        clerks=clerks,
                        duration_s=duration_s,
                        seed=seed,
                        drain_cap_s=drain_cap_s,
                        http_timeout_s=http_timeout_s,
                    )
                )
                phases[name]["wallS"] = round(time.monotonic() - started, 1)
                phases[name]["env"] = env
    return phases


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.crowd", description=__doc__.split("\n\n")[0])
    parser.add_argument("--clerks", type=int, default=40)
    parser.add_argument("--duration", type=float, default=60.0, help="seconds in which clerks press")
    parser.add_argument("--seed", type=int, default=7, help="same crowd for both phases")
    parser.add_argument("--drain-cap-s", type=float, default=600.0, help="longest wait for presses under way")
    args = parser.parse_args(argv)

    phases = run(args.clerks, args.duration, args.seed, args.drain_cap_s)
    ours, deep = phases["ours"], phases["noGate"]
    targets = targets_for()
    verdicts = evaluate(ours, deep, targets)
    result = {
        "clerks": args.clerks,
        "durationS": args.duration,
        "seed": args.seed,
        "parallel": PARALLEL,
        "serviceMs": SERVICE_MS,
        "acquireTimeoutMs": ACQUIRE_MS,
        "simMaxQueue": SIM_MAX_QUEUE,
        "capacityPerS": round(PARALLEL * 1000 / SERVICE_MS, 3),
        "targets": targets,
        "verdicts": verdicts,
        **phases,
    }
    path = write_result("crowd", result)

    c, d = ours["crowd"], deep["crowd"]
    ratio = (
        round(d["admittedMs"]["p99"] / c["admittedMs"]["p99"], 1)
        if d["admittedMs"]["p99"] and c["admittedMs"]["p99"]
        else None
    )
    print_table(
        f"crowd: {args.clerks} clerks, {args.duration:g} s, sim {PARALLEL} parallel x {SERVICE_MS} ms "
        f"(capacity {result['capacityPerS']}/s); shared 2-core machine",
        [
            (
                "(a) ours: admitted p50 / p99",
                f"{c['admittedMs']['p50']} / {c['admittedMs']['p99']} ms (n={c['admittedMs']['n']})",
                f"p99 ≤ {targets['admittedP99MaxMs']:g} ms  {pf(verdicts['admittedP99'])}",
            ),
            (
                "(a) shed p50 / p99",
                f"{c['shedMs']['p50']} / {c['shedMs']['p99']} ms (n={c['shedMs']['n']})",
                f"p99 ≤ {targets['shedP99MaxMs']:g} ms  {pf(verdicts['shedP99'])}",
            ),
            (
                "(a) shed rate (of attempts) / presses ending busy",
                f"{c['shedRate']} / {c['busyMessages']} of {c['presses']}",
                "",
            ),
            ("(a) throughput (admitted / wall s)", f"{c['throughputPerS']}/s", ""),
            (
                "(a) backend busy, sim / gate metric",
                f"{ours['simBusyFraction']:.1%} / {(ours['gateBusyFraction'] or 0):.1%}",
                f"sim ≥ 90%  {pf(verdicts['backendBusy'])}",
            ),
            (
                "(a) errors other than 503; loopback edge check",
                f"{c['otherErrors'] or 'none'}; {ours['edgeCheck']['statuses']}",
                f"none  {pf(verdicts['noOtherErrors'])}",
            ),
            (
                "(a) after the run: gate inUse / sim inFlight",
                f"{ours['leak']['gateInUse']} / {ours['leak']['simInFlight']}",
                f"0 / 0  {pf(verdicts['noSlotLeaked'])}",
            ),
            (
                "(b) no gate: admitted p50 / p99",
                f"{d['admittedMs']['p50']} / {d['admittedMs']['p99']} ms (n={d['admittedMs']['n']})",
                f"p99 ≥ 10 × ours  {pf(verdicts['deepQueueRatio'])}",
            ),
            ("(b) p99 ratio no-gate / ours", f"×{ratio}", ""),
            ("(b) sim maxWaitMs (queued before service)", f"{deep['simAtEnd']['maxWaitMs']:.0f} ms", ""),
            (
                "(b) throughput; busy (sim); drain after deadline",
                f"{d['throughputPerS']}/s; {deep['simBusyFraction']:.1%}; {d['drainS']} s",
                "",
            ),
            (
                "drain capped (either phase)",
                f"{c['capped'] or d['capped']} (cap {args.drain_cap_s:g} s)",
                pf(verdicts["notCapped"]),
            ),
        ],
    )
    print(f"written: {path}")
    return 0 if all(v is not False for v in verdicts.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
