"""Fixed slots against an adaptive limit on a GPU that batches, side by side in one run.

One simulated batching GPU (``sim/batching.py``, its documented defaults: a knee at 24 sequences) behind
the real gate (``LlmGate`` over one in-process pool, the 500 ms bounded wait), a fresh GPU and gate for
each row. Clerks arrive at random (Poisson) at ``--rate`` calls a second, more than the GPU can answer
in time at any setting, each call a desk text of ~``PROMPT_TOKENS`` prompt tokens structured into 40-80
output tokens. A row runs ``--warmup`` seconds before its ``--duration`` seconds of measurement; only
calls that arrive in the measurement count.

Rows: fixed 2 slots (the seed's Ollama setting), fixed at each value of a small sweep, fixed 64 (a guess
that trusts the server's own queue), and the adaptive limit (Gradient2 on latency per output token,
floor 2, ceiling 64, its defaults in ADR 0067), once with no latency target and once with the target
an operator would set from the clerk's (``per_token_target_s``; the targets judge that row). Per row:
goodput (calls answered within the clerk's ``--target`` seconds, per minute), admitted p99 (arrival to
answer, of the calls the gate admitted), busy answers (shed in the bounded wait) and, for the adaptive
rows, the limit's range over the measurement.

Targets: adaptive goodput >= 0.9x the best fixed value of the sweep, its admitted p99 within the target,
and >= 3x fixed 2's goodput.

Then the neighbour (``--neighbour``): another application starts loading the same GPU halfway through a
row (``NEIGHBOUR_SEQS`` sequences kept running, long ones); shown for fixed-best, fixed 64 and adaptive:
our goodput and p99 before and after, and the neighbour's latency per token (from 5 s after it arrived)
against its solo value.

.venv/bin/python -m bench.adaptive_limit [--duration 30] [--rate 20] [--neighbour]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bench.common import pct, pf, print_table, write_result
from feedback_intelligence.gate.context import CallContext
from feedback_intelligence.gate.gate import LlmGate
from feedback_intelligence.gate.limit import FixedLimit, Gradient2Limit, Gradient2Settings, Limit
from feedback_intelligence.gate.local import LocalSlotPool
from feedback_intelligence.gate.pooled import PooledSlotPool
from feedback_intelligence.gate.slots import Grant, Priority
from feedback_intelligence.llm.backend import Completion
from feedback_intelligence.llm.errors import LlmBusy
from feedback_intelligence.sim.batching import BatchingConfig, BatchingGpu

PROMPT_TOKENS = 300
OUTPUT_TOKENS = (40, 80)
CEILING = 64  # the server's declared parallelism (max_num_seqs)
SWEEP = (8, 16, 24, 32)
NEIGHBOUR_SEQS = 12
NEIGHBOUR_TOKENS = 60


@dataclass
class Row:
    name: str
    answered: list[tuple[float, float]] = field(default_factory=list)  # (arrival, latency)
    shed: list[float] = field(default_factory=list)  # arrivals
    limits: list[tuple[float, int]] = field(default_factory=list)  # (time, limit) over the run
    neighbour_per_token: list[tuple[float, float]] = field(default_factory=list)  # (start, s/token)

    def window(self, start: float, end: float) -> tuple[list[float], int]:
        latencies = [lat for at, lat in self.answered if start <= at < end]
        return latencies, sum(1 for at in self.shed if start <= at < end)


def goodput(latencies: list[float], seconds: float, target_s: float) -> float:
    return sum(1 for lat in latencies if lat <= target_s) * 60 / seconds


def p99(latencies: list[float]) -> float | None:
    return pct(latencies, 0.99) if latencies else None


async def run_row(
    name: str,
    limit: Limit,
    *,
    rate: float,
    warmup_s: float,
    duration_s: float,
    seed: int,
    neighbour_at: float | None = None,
) -> tuple[Row, float]:
    """One row: a fresh GPU and gate, Poisson clerks for warm-up + duration; returns the row and the
    loop time the measurement started."""
    gpu = BatchingGpu(BatchingConfig(max_seqs=256))
    pool = LocalSlotPool(limit.current, background_reserve=0, limit=limit)
    gate = LlmGate(PooledSlotPool.single(pool, "gpu"), acquire_timeout_s=0.5, call_timeout_s=120)
    rng = random.Random(seed)
    row = Row(name)
    loop = asyncio.get_running_loop()
    begin = loop.time()
    measure_at = begin + warmup_s
    end_at = measure_at + duration_s
    context = CallContext(priority=Priority.INTERACTIVE, route="interpret", visitor="desk")
    calls: set[asyncio.Task[None]] = set()

    async def call(arrival: float, output: int) -> None:
        async def work(grant: Grant) -> Completion:
            await gpu.generate(PROMPT_TOKENS, output)
            return Completion("", PROMPT_TOKENS, output)

        try:
            await gate.run(work, context)
        except LlmBusy:
            row.shed.append(arrival)
            return
        row.answered.append((arrival, loop.time() - arrival))

    async def neighbour() -> None:
        assert neighbour_at is not None
        await asyncio.sleep(max(0.0, neighbour_at - loop.time()))

        async def one() -> None:
            while loop.time() < end_at:
                started = loop.time()
                await gpu.generate(PROMPT_TOKENS, NEIGHBOUR_TOKENS)
                row.neighbour_per_token.append((started, (loop.time() - started) / NEIGHBOUR_TOKENS))

        await asyncio.gather(*(one() for _ in range(NEIGHBOUR_SEQS)))

    async def watch() -> None:
        while loop.time() < end_at:
            row.limits.append((loop.time(), pool.slots))
            await asyncio.sleep(0.25)

    helpers = [asyncio.ensure_future(watch())]
    if neighbour_at is not None:
        helpers.append(asyncio.ensure_future(neighbour()))
    now = begin
    while (now := now + rng.expovariate(rate)) < end_at:
        await asyncio.sleep(max(0.0, now - loop.time()))
        task = asyncio.ensure_future(call(loop.time(), rng.randint(*OUTPUT_TOKENS)))
        calls.add(task)
        task.add_done_callback(calls.discard)
    await asyncio.gather(*calls, *helpers)
    await gpu.aclose()
    await gate.aclose()
    return row, measure_at


def adaptive_limit(target_s_per_token: float = 0.0) -> Gradient2Limit:
    """ADR 0067's defaults (floor 2, tolerance 1.5), the declared parallelism as ceiling."""
    return Gradient2Limit("gpu", Gradient2Settings(floor=2, ceiling=CEILING, target_s_per_token=target_s_per_token))


def per_token_target_s(clerk_target_s: float) -> float:
    """What an operator sets FI_LLM_ADAPTIVE_TARGET_MS_PER_TOKEN to: the clerk's target over the longest
    reply's tokens, 30 % of it left for prefill and the bounded wait."""
    return clerk_target_s * 0.7 / OUTPUT_TOKENS[1]


@dataclass
class Figures:
    goodput: float
    p99_s: float | None
    answered: int
    shed: int
    limit_range: tuple[int, int] | None = None

    def cells(self) -> str:
        p99_text = "–" if self.p99_s is None else f"{self.p99_s:.2f} s"
        text = f"{self.goodput:.0f}/min · p99 {p99_text} · {self.answered} answered, {self.shed} busy"
        if self.limit_range is not None:
            text += f" · limit {self.limit_range[0]}-{self.limit_range[1]}"
        return text


def figures(row: Row, start: float, end: float, target_s: float, adaptive: bool) -> Figures:
    latencies, shed = row.window(start, end)
    limits = [value for at, value in row.limits if start <= at < end]
    return Figures(
        goodput=goodput(latencies, end - start, target_s),
        p99_s=p99(latencies),
        answered=len(latencies),
        shed=shed,
        limit_range=(min(limits), max(limits)) if adaptive and limits else None,
    )


async def side_by_side(args: argparse.Namespace) -> dict[str, Any]:
    rows: dict[str, Figures] = {}
    kinds: list[tuple[str, Callable[[], Limit]]] = [
        ("fixed 2", lambda: FixedLimit(2)),
        *[(f"fixed {n}", lambda n=n: FixedLimit(n)) for n in SWEEP],
        (f"fixed {CEILING}", lambda: FixedLimit(CEILING)),
        ("adaptive, no target", adaptive_limit),
        ("adaptive", lambda: adaptive_limit(per_token_target_s(args.target))),
    ]
    for name, make in kinds:
        row, start = await run_row(
            name, make(), rate=args.rate, warmup_s=args.warmup, duration_s=args.duration, seed=args.seed
        )
        rows[name] = figures(row, start, start + args.duration, args.target, name.startswith("adaptive"))
        print(f"{name}: {rows[name].cells()}", flush=True)
    best = max((f"fixed {n}" for n in SWEEP), key=lambda name: rows[name].goodput)
    adaptive, fixed2 = rows["adaptive"], rows["fixed 2"]
    checks = {
        "vs_best": adaptive.goodput >= 0.9 * rows[best].goodput,
        "p99": adaptive.p99_s is not None and adaptive.p99_s <= args.target,
        "vs_fixed2": adaptive.goodput >= 3 * fixed2.goodput,
    }
    table = [(name, f.cells(), "") for name, f in rows.items()]
    table += [
        (
            f"adaptive ÷ best fixed ({best})",
            f"{adaptive.goodput / max(rows[best].goodput, 1e-9):.2f}×",
            f">= 0.9× {pf(checks['vs_best'])}",
        ),
        (
            "adaptive admitted p99",
            "–" if adaptive.p99_s is None else f"{adaptive.p99_s:.2f} s",
            f"<= {args.target:g} s {pf(checks['p99'])}",
        ),
        (
            "adaptive ÷ fixed 2",
            f"{adaptive.goodput / max(fixed2.goodput, 1e-9):.2f}×",
            f">= 3× {pf(checks['vs_fixed2'])}",
        ),
    ]
    print_table(
        f"Goodput (answered within {args.target:g} s, per minute) at {args.rate:g} calls/s on a batching GPU", table
    )
    return {
        "rows": {name: vars(f) for name, f in rows.items()},
        "best_fixed": best,
        "checks": checks,
    }


async def with_neighbour(args: argparse.Namespace, best: int) -> dict[str, Any]:
    """The neighbour arrives halfway: our figures before and after, its latency per token against solo."""
    solo_gpu = BatchingGpu()
    per_token: list[float] = []

    async def alone() -> None:
        for _ in range(3):
            started = time.monotonic()
            await solo_gpu.generate(PROMPT_TOKENS, NEIGHBOUR_TOKENS)
            per_token.append((time.monotonic() - started) / NEIGHBOUR_TOKENS)

    await asyncio.gather(*(alone() for _ in range(NEIGHBOUR_SEQS)))
    await solo_gpu.aclose()
    solo = statistics.median(per_token)
    results: dict[str, Any] = {"neighbour_solo_ms_per_token": round(solo * 1000, 2)}
    table = [("neighbour alone", f"{solo * 1000:.1f} ms/token", "")]
    for name, make in [
        (f"fixed {best}", lambda: FixedLimit(best)),
        (f"fixed {CEILING}", lambda: FixedLimit(CEILING)),
        ("adaptive", lambda: adaptive_limit(per_token_target_s(args.target))),
    ]:
        half = args.duration / 2
        loop = asyncio.get_running_loop()
        row, start = await run_row(
            name,
            make(),
            rate=args.rate,
            warmup_s=args.warmup,
            duration_s=args.duration,
            seed=args.seed,
            neighbour_at=loop.time() + args.warmup + half,
        )
        # "Before" ends a target's time before the neighbour, so no call of it ran beside the neighbour.
        before = figures(row, start, start + half - args.target, args.target, name == "adaptive")
        after = figures(row, start + half, start + args.duration, args.target, name == "adaptive")
        theirs = [s for at, s in row.neighbour_per_token if at >= start + half + 5]  # once the limit had 5 s
        ratio = statistics.median(theirs) / solo if theirs else None
        results[name] = {"before": vars(before), "after": vars(after), "neighbour_vs_solo": ratio}
        table.append((f"{name}, before", before.cells(), ""))
        table.append((f"{name}, with the neighbour", after.cells(), ""))
        table.append((f"{name}: neighbour ÷ its solo", "–" if ratio is None else f"{ratio:.2f}×", "<= 1.2× (adaptive)"))
    print_table("The neighbour starts loading the same GPU halfway", table)
    return results


async def main_async(args: argparse.Namespace) -> int:
    result: dict[str, Any] = {"settings": vars(args)}
    result["side_by_side"] = await side_by_side(args)
    if args.neighbour:
        best = int(result["side_by_side"]["best_fixed"].split()[-1])
        result["neighbour"] = await with_neighbour(args, best)
    result["per_token_target_ms"] = round(per_token_target_s(args.target) * 1000, 1)
    write_result("adaptive_limit", result)
    return 0 if all(result["side_by_side"]["checks"].values()) else 1


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.adaptive_limit", description=__doc__)
    parser.add_argument("--rate", type=float, default=20.0, help="clerks' calls a second (Poisson)")
    parser.add_argument("--duration", type=float, default=30.0, help="seconds measured per row")
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds before the measurement, per row")
    parser.add_argument("--target", type=float, default=4.0, help="the clerk's latency target, seconds")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--neighbour", action="store_true", help="also the neighbour arriving halfway")
    raise SystemExit(asyncio.run(main_async(parser.parse_args())))


if __name__ == "__main__":
    main()
