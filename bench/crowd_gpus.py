"""One GPU versus two behind one gate: the same crowd of clerks against one sim, then against two.

Each sim runs 2 calls in parallel at 1.5 s a call (as in ``bench.crowd``); the app admits 2 slots per
backend with the 500 ms acquire timeout. The same crowd (same seed, think times 1-6 s) presses for
``--duration`` seconds against (a) one backend and (b) two (``FI_LLM_BACKENDS``). Targets: throughput
of (b) at least 1.9 x (a), the admitted p99 of (b) at most 1.1 x (a) (unchanged: a call never waits
behind another inside a backend), each backend busy >= 90 %, each sim never above its 2 slots, and
no slot leaked.

Run: .venv/bin/python -m bench.crowd_gpus [--clerks 40 --duration 60]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from contextlib import ExitStack
from typing import Any

import httpx

from bench.common import pf, print_table, sim_pool_env, write_result
from feedback_intelligence.cli.crowd import run_crowd
from feedback_intelligence.devtools.processes import ServerProcess, app_server, sim_ollama

PARALLEL = 2
SERVICE_MS = 1500
ACQUIRE_MS = 500


def targets() -> dict[str, float]:
    return {"throughputMinRatio": 1.9, "admittedP99MaxRatio": 1.1, "busyMinFraction": 0.90}


def evaluate(one: dict[str, Any], two: dict[str, Any], goal: dict[str, float]) -> dict[str, bool | None]:
    """PASS/FAIL of each target (``None`` when there is nothing to judge)."""
    t1, t2 = one["crowd"]["throughputPerS"], two["crowd"]["throughputPerS"]
    p1, p2 = one["crowd"]["admittedMs"]["p99"], two["crowd"]["admittedMs"]["p99"]
    return {
        "throughput": None if not t1 else t2 >= goal["throughputMinRatio"] * t1,
        "admittedP99": None if not p1 or p2 is None else p2 <= goal["admittedP99MaxRatio"] * p1,
        "backendBusy": all(b >= goal["busyMinFraction"] for phase in (one, two) for b in phase["simBusy"]),
        "perBackendSlots": all(c <= PARALLEL for phase in (one, two) for c in phase["simMaxConcurrency"]),
        "noSlotLeaked": one["leak"] == 0 and two["leak"] == 0,
        "noOtherErrors": not one["crowd"]["otherErrors"] and not two["crowd"]["otherErrors"],
    }


def env_for(sims: list[ServerProcess]) -> dict[str, str]:
    return sim_pool_env([s.url for s in sims], slots=PARALLEL, acquire_ms=ACQUIRE_MS, first=0)


async def phase(app_url: str, sims: list[ServerProcess], *, clerks: int, duration_s: float, seed: int) -> dict:
    async with httpx.AsyncClient(timeout=30) as http:
        for sim in sims:
            await http.post(sim.url + "/sim/reset")
        start = [(await http.get(s.url + "/sim/stats")).json() for s in sims]
        at_deadline: list[dict[str, Any]] = []

        async def sample() -> None:
            at_deadline.extend([(await http.get(s.url + "/sim/stats")).json() for s in sims])

        result = await run_crowd(
            app_url, clerks, duration_s, seed=seed, http_timeout_s=60.0, drain_timeout_s=60.0, at_deadline=sample
        )
        deadline = time.monotonic() + 5
        while (
            leak := (await http.get(app_url + "/admin/status")).json()["gate"]["inUse"]
        ) and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        end = [(await http.get(s.url + "/sim/stats")).json() for s in sims]
    busy = [
        round((d["busyMs"] - s["busyMs"]) / ((d["elapsedMs"] - s["elapsedMs"]) * PARALLEL), 4)
        for s, d in zip(start, at_deadline, strict=True)
    ]
    return {
        "crowd": result.summary(),
        "simBusy": busy,
        "simCompleted": [e["completed"] for e in end],
        "simMaxConcurrency": [e["maxConcurrency"] for e in end],
        "simMaxWaitMs": [e["maxWaitMs"] for e in end],
        "leak": leak,
    }


def run(clerks: int, duration_s: float, seed: int) -> dict[str, Any]:
    phases: dict[str, Any] = {}
    with ExitStack() as stack:
        sims = [
            stack.enter_context(sim_ollama(parallel=PARALLEL, max_queue=8, service_ms=SERVICE_MS)) for _ in range(2)
        ]
        for name, used in (("oneGpu", sims[:1]), ("twoGpus", sims)):
            with app_server(env_for(used)) as app:
                phases[name] = asyncio.run(phase(app.url, used, clerks=clerks, duration_s=duration_s, seed=seed))
    return phases


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.crowd_gpus", description=__doc__.split("\n\n")[0])
    parser.add_argument("--clerks", type=int, default=40)
    parser.add_argument("--duration", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    phases = run(args.clerks, args.duration, args.seed)
    one, two = phases["oneGpu"], phases["twoGpus"]
    goal = targets()
    verdicts = evaluate(one, two, goal)
    path = write_result(
        "crowd_gpus",
        {
            "clerks": args.clerks,
            "durationS": args.duration,
            "seed": args.seed,
            "parallel": PARALLEL,
            "serviceMs": SERVICE_MS,
            "targets": goal,
            "verdicts": verdicts,
            **phases,
        },
    )
    c1, c2 = one["crowd"], two["crowd"]
    ratio = round(c2["throughputPerS"] / c1["throughputPerS"], 2) if c1["throughputPerS"] else None
    print_table(
        f"crowd over GPUs: {args.clerks} clerks, {args.duration:g} s, sims {PARALLEL} x {SERVICE_MS} ms",
        [
            (
                "throughput one / two",
                f"{c1['throughputPerS']}/s / {c2['throughputPerS']}/s (×{ratio})",
                f"≥ ×{goal['throughputMinRatio']}  {pf(verdicts['throughput'])}",
            ),
            (
                "admitted p99 one / two",
                f"{c1['admittedMs']['p99']} / {c2['admittedMs']['p99']} ms",
                f"two ≤ ×{goal['admittedP99MaxRatio']}  {pf(verdicts['admittedP99'])}",
            ),
            ("shed p99 one / two", f"{c1['shedMs']['p99']} / {c2['shedMs']['p99']} ms", ""),
            ("sim busy one; two", f"{one['simBusy']}; {two['simBusy']}", f"≥ 90%  {pf(verdicts['backendBusy'])}"),
            (
                "sim max concurrency; max wait",
                f"{one['simMaxConcurrency']} {two['simMaxConcurrency']}; "
                f"{one['simMaxWaitMs']} {two['simMaxWaitMs']} ms",
                f"≤ {PARALLEL}  {pf(verdicts['perBackendSlots'])}",
            ),
            ("calls per backend (two)", f"{two['simCompleted']}", ""),
            ("gate inUse after", f"{one['leak']} / {two['leak']}", f"0  {pf(verdicts['noSlotLeaked'])}"),
        ],
    )
    print(f"written: {path}")
    return 0 if all(v is not False for v in verdicts.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
