"""The load sweep behind capacity planning: clerks against the share of presses that end "busy".

For one backend and then two (sim-ollama, 2 parallel each, 1.5 s a call; ``FI_LLM_BACKENDS``, 500 ms
acquire timeout, one app process), the crowd of ``bench.crowd`` (think time 1-6 s, the desk's 503
policy: two jittered retries, then "busy") presses for ``--duration`` seconds at each clerk count of
``--per-slot`` x the pool's slots. Each point reports the share of presses that ended with the busy
message (after all three attempts), the share of attempts shed, the admitted p99, the throughput and
the backends' busy fraction (from the sims). The sims are reset between points; the same seed is used
throughout. ``docs/operations/capacity.md`` is built from its table.

Run: .venv/bin/python -m bench.chain_sweep [--backends 1 2 --per-slot 1 2 3 4 5 6 8 12 --duration 30
     --service-ms 1500 --think-s 1 6]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from contextlib import ExitStack
from typing import Any

from bench.chain import ACQUIRE_MS, PARALLEL, SERVICE_MS, crowd_phase, pool_env
from bench.common import write_result
from feedback_intelligence.devtools.processes import app_server, sim_ollama

PER_SLOT = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 12.0]


def point(backends: int, clerks: int, phase: dict[str, Any]) -> dict[str, Any]:
    """One row of the sweep from one crowd phase."""
    crowd = phase["crowd"]
    slots = backends * PARALLEL
    return {
        "backends": backends,
        "slots": slots,
        "clerks": clerks,
        "clerksPerSlot": round(clerks / slots, 2),
        "presses": crowd["presses"],
        "busyShare": crowd["busyShare"],
        "shedRate": crowd["shedRate"],
        "admittedP99Ms": crowd["admittedMs"]["p99"],
        "shedP99Ms": crowd["shedMs"]["p99"],
        "throughputPerS": crowd["throughputPerS"],
        "simBusy": round(sum(s["busy"] for s in phase["sims"]) / len(phase["sims"]), 3),
        "otherErrors": crowd["otherErrors"],
        "clientLagP99Ms": phase["client"]["lagMs"]["p99"],
    }


def run(
    backends: list[int],
    per_slot: list[float],
    duration_s: float,
    service_ms: int,
    seed: int,
    think_s: tuple[float, float] = (1.0, 6.0),
) -> list[dict]:
    rows: list[dict[str, Any]] = []
    for count in backends:
        with ExitStack() as stack:
            sims = [
                stack.enter_context(sim_ollama(parallel=PARALLEL, max_queue=8, service_ms=service_ms))
                for _ in range(count)
            ]
            app = stack.enter_context(app_server(pool_env(sims)))
            for ratio in per_slot:
                clerks = max(1, round(ratio * count * PARALLEL))
                phase = asyncio.run(
                    crowd_phase(
                        [app], sims, clerks=clerks, duration_s=duration_s, seed=seed, gate_name=None, think_s=think_s
                    )
                )
                rows.append(point(count, clerks, phase))
                print_row(rows[-1])
    return rows


HEADER = "backends slots clerks per-slot presses busy-share shed-rate admitted-p99 throughput sim-busy"


def print_row(row: dict[str, Any]) -> None:
    print(
        f"{row['backends']:>8} {row['slots']:>5} {row['clerks']:>6} {row['clerksPerSlot']:>8} {row['presses']:>7} "
        f"{row['busyShare']:>10.1%} {row['shedRate']:>9.1%} {row['admittedP99Ms'] or 0:>10.0f}ms "
        f"{row['throughputPerS']:>8.2f}/s {row['simBusy']:>8.1%}",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.chain_sweep", description=__doc__.split("\n\n")[0])
    parser.add_argument("--backends", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--per-slot", type=float, nargs="+", default=PER_SLOT, help="clerks per slot to try")
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--service-ms", type=int, default=SERVICE_MS)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--think-s", type=float, nargs=2, default=[1.0, 6.0], metavar=("MIN", "MAX"), help="a clerk's think time"
    )
    args = parser.parse_args(argv)
    print(HEADER, flush=True)
    think = (args.think_s[0], args.think_s[1])
    rows = run(args.backends, args.per_slot, args.duration, args.service_ms, args.seed, think)
    path = write_result(
        "chain_sweep",
        {
            "durationS": args.duration,
            "parallel": PARALLEL,
            "serviceMs": args.service_ms,
            "acquireTimeoutMs": ACQUIRE_MS,
            "thinkS": list(think),
            "seed": args.seed,
            "rows": rows,
        },
    )
    print(f"written: {path}")
    return 0 if not any(row["otherErrors"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
