"""Fixed slots against an adaptive limit on a GPU that batches, side by side in one run.

One simulated batching GPU (``sim/batching.py``, its documented defaults: a knee at 24 sequences) behind
the real gate (``LlmGate`` over one in-process pool, the 500 ms bounded wait), a fresh GPU and gate for
each row. Clerks arrive at random (Poisson) at ``--rate`` calls a second, more than the GPU can answer
in time at any setting, each call a desk text of ~``PROMPT_TOKENS`` prompt tokens structured into 40-80
output tokens. A row runs ``--warmup`` seconds before its ``--duration`` seconds of measurement; only
calls that arrive in the measurement count.

Rows: fixed 2 slots (the seed's Ollama setting), fixed at each value of a small sweep, fixed 64 (a guess
that trusts the server's own queue), and the adaptive limit (Gradient2 on latency per output token
against the no-load latency, floor 2, ceiling 64, yielding to a neighbour with room, its defaults:
ADR 0067, ADR 0071, ADR 0077, ADR 0080; the targets judge that row), beside it the rule before ADR 0077 (never yielding)
and with the per-token target an operator would set from the clerk's (``per_token_target_s``). Per row:
goodput (calls answered within the clerk's ``--target`` seconds, per minute), admitted p99 (arrival to
answer, of the calls the gate admitted), busy answers (shed in the bounded wait) and, for the adaptive
rows, the limit's range over the measurement.

Targets: adaptive goodput >= 0.9x the best fixed value of the sweep, its admitted p99 within the target,
and >= 3x fixed 2's goodput.

Then the neighbour (``--neighbour``): another application loads the same GPU from halfway through a
row's measurement to its end (``NEIGHBOUR_SEQS`` sequences kept running, long ones), and another half
is measured after it left; shown for fixed-best, fixed 64, adaptive (its defaults, the rule before
ADR 0077, and with the target) and, for the trade-off, adaptive at other tolerances (``--tolerances``),
other neighbour tolerances (``--neighbour-tolerances``) and further fixed limits
(``--neighbour-fixed``): our goodput and p99 before, beside it and once it is gone, and the
neighbour's latency per token (from 5 s after it arrived) against its solo value (target for adaptive:
<= 1.2x).

Prompt length (``--prompts``): desk texts of ``PROMPT_TOKENS`` until halfway, then report prose of
``LONG_PROMPT_TOKENS`` (the GPU's prefill grows with the prompt, ``sim/batching.py``); adaptive beside
fixed-best, the limit, p99 and answered/busy in tenths of the measurement.

Replicas (``--replicas``, Redis): three replicas, each its own gate, clerks shared among them in turn,
over the one GPU; once with the adaptive limit shared on Redis (ADR 0068), once with an in-process
limit each. The GPU counts the sequences it runs at once; target: never more than the shared limit's
highest value.

Through the OpenAI API (``--openai``): every call of ours goes as the ``openai`` backend kind sends it, the
app's own client (llm/openai_compat.py) over real HTTP to the simulated server's ``/v1/chat/completions``
(sim/openai_api.py, served in this process over the same batching GPU), the limit fed the reply's
``usage.completion_tokens`` and ``usage.prompt_tokens``; the neighbour keeps using the GPU directly.

.venv/bin/python -m bench.adaptive_limit [--duration 30] [--rate 20] [--neighbour] [--prompts] [--replicas]
    [--no-sweep [--fixed 24]] [--tolerances 1.2,1.3] [--neighbour-tolerances 1.15] [--neighbour-fixed 4,6]
    [--openai]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import statistics
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from bench.common import pct, pf, print_table, write_result
from feedback_intelligence.devtools.processes import free_port
from feedback_intelligence.gate.context import CallContext
from feedback_intelligence.gate.gate import LlmGate
from feedback_intelligence.gate.limit import FixedLimit, Gradient2Limit, Gradient2Settings, Limit
from feedback_intelligence.gate.local import LocalSlotPool
from feedback_intelligence.gate.pooled import PooledSlotPool
from feedback_intelligence.gate.redis_pool import RedisSlotPool
from feedback_intelligence.gate.slots import Grant, Priority, SlotPool
from feedback_intelligence.llm.backend import ChatMessage, Completion, CompletionRequest
from feedback_intelligence.llm.errors import LlmBusy
from feedback_intelligence.llm.openai_compat import OpenAICompatibleBackend
from feedback_intelligence.sim import SimConfig, create_sim_app
from feedback_intelligence.sim.batching import BatchingConfig, BatchingGpu

PROMPT_TOKENS = 300
LONG_PROMPT_TOKENS = 2000  # report prose: a window's entries in the prompt
OUTPUT_TOKENS = (40, 80)
CEILING = 64  # the server's declared parallelism (max_num_seqs)
SWEEP = (8, 16, 24, 32)
NEIGHBOUR_SEQS = 12
NEIGHBOUR_TOKENS = 60


Complete = Callable[[int, int], Awaitable[Completion]]  # (prompt tokens, output tokens) -> the answer


def direct(gpu: BatchingGpu) -> Complete:
    """A call straight on the GPU, its tokens as counted."""

    async def complete(prompt: int, output: int) -> Completion:
        await gpu.generate(prompt, output)
        return Completion("", prompt, output)

    return complete


@contextlib.asynccontextmanager
async def gpu_for(openai: bool) -> AsyncIterator[tuple[BatchingGpu, Complete]]:
    """A fresh GPU and how a call of ours reaches it: directly, or (``openai``) through the app's OpenAI
    client over HTTP to the simulated server on that GPU, the tokens read from the reply's ``usage``."""
    config = BatchingConfig(max_seqs=256)
    if not openai:
        gpu = BatchingGpu(config)
        try:
            yield gpu, direct(gpu)
        finally:
            await gpu.aclose()
        return
    import uvicorn

    sim = create_sim_app(SimConfig(parallel=256, batching=config, tokens_per_reply=OUTPUT_TOKENS[1]))
    assert sim.gpu is not None
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(sim, host="127.0.0.1", port=port, log_level="warning", lifespan="off"))
    serving = asyncio.ensure_future(server.serve())
    backend = OpenAICompatibleBackend(f"http://127.0.0.1:{port}/v1", "sim-model", slots=CEILING)
    try:
        while not server.started:
            if serving.done():
                serving.result()  # it could not start: say why
            await asyncio.sleep(0.01)

        async def complete(prompt: int, output: int) -> Completion:
            words = " ".join(["word"] * prompt)  # the sim counts a word a token
            return await backend.complete(CompletionRequest([ChatMessage("user", words)], max_tokens=output))

        yield sim.gpu, complete
    finally:
        await backend.aclose()
        server.should_exit = True
        await serving
        await sim.aclose()


@dataclass
class Row:
    name: str
    answered: list[tuple[float, float]] = field(default_factory=list)  # (arrival, latency)
    shed: list[float] = field(default_factory=list)  # arrivals
    limits: list[tuple[float, int]] = field(default_factory=list)  # (time, limit) over the run
    neighbour_per_token: list[tuple[float, float]] = field(default_factory=list)  # (start, s/token)
    running: list[tuple[float, int]] = field(default_factory=list)  # (time, sequences the GPU runs)
    peak_running: int = 0  # the most sequences the GPU ran at once (its own count, every step)

    def window(self, start: float, end: float) -> tuple[list[float], int]:
        latencies = [lat for at, lat in self.answered if start <= at < end]
        return latencies, sum(1 for at in self.shed if start <= at < end)


def goodput(latencies: list[float], seconds: float, target_s: float) -> float:
    return sum(1 for lat in latencies if lat <= target_s) * 60 / seconds


def p99(latencies: list[float]) -> float | None:
    return pct(latencies, 0.99) if latencies else None


async def drive(
    row: Row,
    gates: list[LlmGate],
    gpu: BatchingGpu,
    limit_now: Callable[[], Awaitable[int]],
    *,
    rate: float,
    warmup_s: float,
    duration_s: float,
    seed: int,
    neighbour_at: float | None = None,
    neighbour_until: float | None = None,
    long_prompts_at: float | None = None,
    complete: Complete | None = None,
) -> float:
    """Poisson clerks for warm-up + duration, each call to the next of ``gates`` in turn (replicas behind a
    balancer), every gate over the one ``gpu``; the limit read every 0.25 s. The neighbour runs from
    ``neighbour_at`` to ``neighbour_until`` (default: the end; loop times). Prompts are ``PROMPT_TOKENS``
    long, ``LONG_PROMPT_TOKENS`` from ``long_prompts_at`` (loop time) on. Returns when the measurement
    started (loop time). A call of ours goes through ``complete`` (default: straight on the GPU)."""
    reach = complete or direct(gpu)
    rng = random.Random(seed)
    loop = asyncio.get_running_loop()
    begin = loop.time()
    measure_at = begin + warmup_s
    end_at = measure_at + duration_s
    context = CallContext(priority=Priority.INTERACTIVE, route="interpret", visitor="desk")
    calls: set[asyncio.Task[None]] = set()

    async def call(gate: LlmGate, arrival: float, output: int) -> None:
        prompt = PROMPT_TOKENS if long_prompts_at is None or arrival < long_prompts_at else LONG_PROMPT_TOKENS

        async def work(grant: Grant) -> Completion:
            return await reach(prompt, output)

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
            while loop.time() < (end_at if neighbour_until is None else neighbour_until):
                started = loop.time()
                await gpu.generate(PROMPT_TOKENS, NEIGHBOUR_TOKENS)
                row.neighbour_per_token.append((started, (loop.time() - started) / NEIGHBOUR_TOKENS))

        await asyncio.gather(*(one() for _ in range(NEIGHBOUR_SEQS)))

    async def watch() -> None:
        while loop.time() < end_at:
            row.limits.append((loop.time(), await limit_now()))
            row.running.append((loop.time(), gpu.running))
            await asyncio.sleep(0.25)

    helpers = [asyncio.ensure_future(watch())]
    if neighbour_at is not None:
        helpers.append(asyncio.ensure_future(neighbour()))
    now = begin
    turn = 0
    while (now := now + rng.expovariate(rate)) < end_at:
        await asyncio.sleep(max(0.0, now - loop.time()))
        task = asyncio.ensure_future(call(gates[turn % len(gates)], loop.time(), rng.randint(*OUTPUT_TOKENS)))
        turn += 1
        calls.add(task)
        task.add_done_callback(calls.discard)
    await asyncio.gather(*calls, *helpers)
    row.peak_running = gpu.peak_running
    return measure_at


def gate_over(pool: SlotPool[Any]) -> LlmGate:
    return LlmGate(PooledSlotPool.single(pool, "gpu"), acquire_timeout_s=0.5, call_timeout_s=120)


async def run_row(
    name: str,
    limit: Limit,
    *,
    rate: float,
    warmup_s: float,
    duration_s: float,
    seed: int,
    neighbour_at: float | None = None,
    neighbour_until: float | None = None,
    long_prompts_at: float | None = None,
    openai: bool = False,
) -> tuple[Row, float]:
    """One row: a fresh GPU and one gate (``openai``: calls through the OpenAI API, :func:`gpu_for`);
    returns the row and the loop time the measurement started."""
    pool = LocalSlotPool(limit.current, background_reserve=0, limit=limit)
    gate = gate_over(pool)
    row = Row(name)

    async def limit_now() -> int:
        return pool.slots

    try:
        async with gpu_for(openai) as (gpu, complete):
            measure_at = await drive(
                row,
                [gate],
                gpu,
                limit_now,
                rate=rate,
                warmup_s=warmup_s,
                duration_s=duration_s,
                seed=seed,
                neighbour_at=neighbour_at,
                neighbour_until=neighbour_until,
                long_prompts_at=long_prompts_at,
                complete=complete,
            )
    finally:
        await gate.aclose()
    return row, measure_at


def adaptive_limit(
    target_s_per_token: float = 0.0, tolerance: float = 1.6, neighbour_tolerance: float = 1.2
) -> Gradient2Limit:
    """The defaults (floor 2, tolerance 1.6, no target, yielding to a neighbour within 1.2× with room;
    ADR 0067, ADR 0071, ADR 0077, ADR 0080), the declared parallelism as ceiling. ``neighbour_tolerance``
    0: the rule before ADR 0077, which never yields."""
    settings = Gradient2Settings(
        floor=2,
        ceiling=CEILING,
        tolerance=tolerance,
        target_s_per_token=target_s_per_token,
        neighbour_tolerance=neighbour_tolerance,
    )
    return Gradient2Limit("gpu", settings)


OLD_RULE = "adaptive, never yielding (before ADR 0077)"


def old_rule() -> Gradient2Limit:
    return adaptive_limit(neighbour_tolerance=0)


def target_name(args: argparse.Namespace) -> str:
    return f"adaptive, {per_token_target_s(args.target) * 1000:.0f} ms/token target"


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
        ("adaptive", adaptive_limit),
        (OLD_RULE, old_rule),
        (target_name(args), lambda: adaptive_limit(per_token_target_s(args.target))),
    ]
    for name, make in kinds:
        row, start = await run_row(
            name,
            make(),
            rate=args.rate,
            warmup_s=args.warmup,
            duration_s=args.duration,
            seed=args.seed,
            openai=args.openai,
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
    """The neighbour arrives halfway through the measurement and leaves at its end; another half follows.
    Our figures before, beside it and once it is gone; its latency per token against solo."""
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
    kinds: list[tuple[str, Callable[[], Limit]]] = [
        *[(f"fixed {n}", lambda n=n: FixedLimit(n)) for n in args.neighbour_fixed],
        (f"fixed {best}", lambda: FixedLimit(best)),
        (f"fixed {CEILING}", lambda: FixedLimit(CEILING)),
        ("adaptive", adaptive_limit),
        (OLD_RULE, old_rule),
        (target_name(args), lambda: adaptive_limit(per_token_target_s(args.target))),
        *[(f"adaptive, tolerance {t:g}", lambda t=t: adaptive_limit(tolerance=t)) for t in args.tolerances],
        *[
            (f"adaptive, neighbour tolerance {t:g}", lambda t=t: adaptive_limit(neighbour_tolerance=t))
            for t in args.neighbour_tolerances
        ],
    ]
    for name, make in kinds:
        adaptive = name.startswith("adaptive")
        half = args.duration / 2
        loop = asyncio.get_running_loop()
        row, start = await run_row(
            name,
            make(),
            rate=args.rate,
            warmup_s=args.warmup,
            duration_s=args.duration + half,
            seed=args.seed,
            neighbour_at=loop.time() + args.warmup + half,
            neighbour_until=loop.time() + args.warmup + args.duration,
            openai=args.openai,
        )
        # "Before" ends a target's time before the neighbour, so no call of it ran beside the neighbour.
        before = figures(row, start, start + half - args.target, args.target, adaptive)
        after = figures(row, start + half, start + args.duration, args.target, adaptive)
        gone = figures(row, start + args.duration, start + args.duration + half, args.target, adaptive)
        theirs = [s for at, s in row.neighbour_per_token if at >= start + half + 5]  # once the limit had 5 s
        ratio = statistics.median(theirs) / solo if theirs else None
        results[name] = {"before": vars(before), "after": vars(after), "gone": vars(gone), "neighbour_vs_solo": ratio}
        table.append((f"{name}, before", before.cells(), ""))
        table.append((f"{name}, with the neighbour", after.cells(), ""))
        table.append((f"{name}, once it is gone", gone.cells(), ""))
        table.append((f"{name}: neighbour ÷ its solo", "–" if ratio is None else f"{ratio:.2f}×", "<= 1.2× (adaptive)"))
    print_table("The neighbour loads the same GPU from halfway to the end of the measurement, then leaves", table)
    return results


def _window_cells(row: Row, start: float, end: float, target_s: float) -> str:
    latencies, shed = row.window(start, end)
    limits = [value for at, value in row.limits if start <= at < end]
    limit = "–" if not limits else (f"{min(limits)}" if min(limits) == max(limits) else f"{min(limits)}-{max(limits)}")
    worst = p99(latencies)
    return f"limit {limit} · p99 {'–' if worst is None else f'{worst:.1f} s'} · {len(latencies)}/{shed}"


async def prompt_length(args: argparse.Namespace, fixed: int) -> dict[str, Any]:
    """Short desk texts, then long report prose from halfway: the limit over time, adaptive beside fixed."""
    runs: dict[str, tuple[Row, float]] = {}
    for name, make in [
        ("adaptive", adaptive_limit),
        ("never yielding", old_rule),
        (f"fixed {fixed}", lambda: FixedLimit(fixed)),
    ]:
        loop = asyncio.get_running_loop()
        runs[name] = await run_row(
            name,
            make(),
            rate=args.rate,
            warmup_s=args.warmup,
            duration_s=args.duration,
            seed=args.seed,
            long_prompts_at=loop.time() + args.warmup + args.duration / 2,
            openai=args.openai,
        )
    from rich.console import Console
    from rich.table import Table

    table = Table("seconds", "prompts", *(f"{name}: limit · p99 · answered/busy" for name in runs))
    table.title = f"Prompts of {PROMPT_TOKENS} tokens, then {LONG_PROMPT_TOKENS} from halfway ({args.rate:g} calls/s)"
    step = args.duration / 10
    for i in range(10):
        at = i * step
        cells = [_window_cells(row, start + at, start + at + step, args.target) for row, start in runs.values()]
        table.add_row(f"{at:.0f}-{at + step:.0f}", "short" if at < args.duration / 2 else "long", *cells)
    Console(width=140).print(table)
    result: dict[str, Any] = {}
    half = args.duration / 2
    for name, (row, start) in runs.items():
        adaptive = name != f"fixed {fixed}"
        # "Short" ends a target's time before the switch, so no call of it ran beside a long prompt.
        short = figures(row, start, start + half - args.target, args.target, adaptive)
        long = figures(row, start + half + args.target, start + args.duration, args.target, adaptive)
        result[name] = {"short": vars(short), "long": vars(long)}
        print(f"{name}: short prompts {short.cells()}; long prompts (from {args.target:g} s after) {long.cells()}")
    return result


def three_replicas(
    settings: Gradient2Settings, redis: str | None
) -> tuple[list[SlotPool[Any]], Callable[[], Awaitable[int]]]:
    """Three replicas' pools of one backend: on ``redis``, one limit they share; without, one each. And
    what the GPU may be sent at once: the shared limit as Redis admits against it, or the three summed."""
    if redis is not None:
        name = f"bench-limit-{uuid.uuid4().hex[:8]}"
        shared = [
            RedisSlotPool(redis, slots=CEILING, background_reserve=0, name=name, adaptive=settings, backend="gpu")
            for _ in range(3)
        ]

        async def shared_limit() -> int:
            return (await shared[0].occupancy()).slots

        return list(shared), shared_limit
    local = [LocalSlotPool(2, background_reserve=0, limit=Gradient2Limit("gpu", settings)) for _ in range(3)]

    async def limits_summed() -> int:
        return sum(pool.slots for pool in local)

    return list(local), limits_summed


async def shared_replicas(args: argparse.Namespace) -> dict[str, Any]:
    """Three replicas, each its own gate, over the one GPU: the adaptive limit shared on Redis against three
    in-process limits of their own. The GPU's own count of sequences it runs at once against the limit."""
    settings = Gradient2Settings(floor=2, ceiling=CEILING)  # the defaults
    result: dict[str, Any] = {}
    table = []
    for name in ("shared on Redis", "each replica its own"):
        pools, limit_now = three_replicas(settings, args.redis if name == "shared on Redis" else None)
        gates = [gate_over(pool) for pool in pools]
        row = Row(name)
        try:
            async with gpu_for(args.openai) as (gpu, complete):
                start = await drive(
                    row,
                    gates,
                    gpu,
                    limit_now,
                    rate=args.rate,
                    warmup_s=args.warmup,
                    duration_s=args.duration,
                    seed=args.seed,
                    complete=complete,
                )
        finally:
            for gate in gates:
                await gate.aclose()
        measured = figures(row, start, start + args.duration, args.target, adaptive=True)
        limit_max = max(value for _, value in row.limits)
        above = sum(1 for (_, running), (_, limit) in zip(row.running, row.limits, strict=True) if running > limit)
        result[name] = {
            **vars(measured),
            "gpu_peak_running": row.peak_running,
            "limit_max": limit_max,
            "ticks_gpu_above_limit": above,
            "ticks": len(row.running),
        }
        table.append((name, measured.cells(), ""))
        table.append(
            (
                f"{name}: GPU's most at once / limit's most",
                f"{row.peak_running} / {limit_max} (above the limit at {above} of {len(row.running)} reads)",
                f"<= limit {pf(row.peak_running <= limit_max)}" if name == "shared on Redis" else "",
            )
        )
    result["check"] = result["shared on Redis"]["gpu_peak_running"] <= result["shared on Redis"]["limit_max"]
    print_table(f"Three replicas over one batching GPU at {args.rate:g} calls/s", table)
    return result


async def main_async(args: argparse.Namespace) -> int:
    result: dict[str, Any] = {"settings": vars(args)}
    checks: list[bool] = []
    best = args.fixed
    if not args.no_sweep:
        result["side_by_side"] = await side_by_side(args)
        checks += result["side_by_side"]["checks"].values()
        best = int(result["side_by_side"]["best_fixed"].split()[-1])
    if args.neighbour:
        result["neighbour"] = await with_neighbour(args, best)
    if args.prompts:
        result["prompt_length"] = await prompt_length(args, best)
    if args.replicas:
        result["replicas"] = await shared_replicas(args)
        checks.append(result["replicas"]["check"])
    result["per_token_target_ms"] = round(per_token_target_s(args.target) * 1000, 1)
    write_result("adaptive_limit", result)
    return 0 if all(checks) else 1


def _floats(text: str) -> list[float]:
    return [float(part) for part in text.split(",") if part]


def _ints(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part]


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.adaptive_limit", description=__doc__)
    parser.add_argument("--rate", type=float, default=20.0, help="clerks' calls a second (Poisson)")
    parser.add_argument("--duration", type=float, default=30.0, help="seconds measured per row")
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds before the measurement, per row")
    parser.add_argument("--target", type=float, default=4.0, help="the clerk's latency target, seconds")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--neighbour", action="store_true", help="also the neighbour arriving halfway")
    parser.add_argument("--prompts", action="store_true", help="also prompts turning long halfway")
    parser.add_argument("--replicas", action="store_true", help="also three replicas sharing the limit on Redis")
    parser.add_argument("--no-sweep", action="store_true", help="skip the side-by-side sweep (then --fixed is best)")
    parser.add_argument("--fixed", type=int, default=24, help="the fixed value to compare with when not swept")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0", help="the Redis of --replicas")
    parser.add_argument(
        "--tolerances", type=_floats, default=[], help="neighbour: adaptive also at these tolerances (a,b)"
    )
    parser.add_argument(
        "--neighbour-tolerances",
        type=_floats,
        default=[],
        help="neighbour: adaptive also at these neighbour tolerances (a,b): the trade-off",
    )
    parser.add_argument(
        "--neighbour-fixed", type=_ints, default=[], help="neighbour: also these fixed limits (a,b): the trade-off"
    )
    parser.add_argument(
        "--openai", action="store_true", help="our calls through the OpenAI API (the app's client, real HTTP)"
    )
    raise SystemExit(asyncio.run(main_async(parser.parse_args())))


if __name__ == "__main__":
    main()
