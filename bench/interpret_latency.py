"""Interpret latency on the packaged model: the theme-only prompt vs the full schema, side by side in one run.

The retail domain's ``priorFields`` let the rules decide category, severity, type, sentiment and language,
so the structuring service asks the embedded model for the theme alone (ADR 0022). This bench
measures what that buys on the shipped evaluation set: one embedded backend (the packaged SmolLM2 through
llama.cpp, 2 slots as the service runs it, 1 thread each on this 2-core machine), one gate, two
structuring services over it — the shipped theme-only one and the full six-field schema of before. Each
item goes to both at once, one per engine, so both modes see the same load at the same moment. The
latency is :meth:`StructuringService.structure` (prompt, gate, generation, parse, at most one re-prompt,
guards): what ``POST /interpret`` waits for, less its few milliseconds of HTTP and routing.

Also reported per mode: re-prompts, failed structures, and how often the theme guard replaced the model's
theme (the figure the theme-only prompt must not make worse).

Run: .venv/bin/python -m bench.interpret_latency [--limit N] [--split dev|holdout|all]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from typing import Any

from bench.common import print_table, summary_ms, write_result
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.evaluation.dataset import load_set, select
from feedback_intelligence.gate.context import CallContext
from feedback_intelligence.gate.gate import LlmGate
from feedback_intelligence.gate.local import LocalSlotPool
from feedback_intelligence.gate.pooled import PooledSlotPool
from feedback_intelligence.llm.embedded import EmbeddedBackend
from feedback_intelligence.prompting.runner import PromptRunner
from feedback_intelligence.structuring.prompt import StructuringPrompt
from feedback_intelligence.structuring.service import StructuringResult, StructuringService

SLOTS = 2
MODES = ("full schema", "theme only")


async def _timed(svc: StructuringService, text: str) -> tuple[float, StructuringResult]:
    started = time.perf_counter()
    result = await svc.structure(text, CallContext.interactive("bench", "interpret"))
    return (time.perf_counter() - started) * 1000, result


async def run(texts: list[str]) -> dict[str, Any]:
    domain = load_domain("retail")
    backend = EmbeddedBackend(None, slots=SLOTS, context_tokens=4096)
    await backend.start()
    await backend.wait_loaded()
    gate = LlmGate(
        PooledSlotPool.single(LocalSlotPool(SLOTS, background_reserve=0)), acquire_timeout_s=600, call_timeout_s=600
    )
    runner = PromptRunner(gate, backend)
    services = {
        "theme only": StructuringService(runner, domain),
        # the same domain and guards, the full prompt and schema of before (a prompt given turns theme-only off)
        "full schema": StructuringService(runner, domain, prompt=StructuringPrompt.for_domain(domain)),
    }
    assert services["theme only"].theme_only and not services["full schema"].theme_only
    latencies: dict[str, list[float]] = {m: [] for m in MODES}
    counts: dict[str, dict[str, int]] = {m: {"retried": 0, "failed": 0, "themeReplaced": 0} for m in MODES}
    themes: dict[str, list[str | None]] = {m: [] for m in MODES}  # what the model wrote, for a look
    try:
        await _timed(services["theme only"], "lämmittely")  # the first call of an engine pays its warm-up
        await _timed(services["full schema"], "lämmittely")
        started = time.perf_counter()
        for number, text in enumerate(texts, start=1):
            # both at once, one per engine: the same moment's load for both modes
            pair = await asyncio.gather(*(_timed(services[m], text) for m in MODES))
            for mode, (ms, result) in zip(MODES, pair, strict=True):
                latencies[mode].append(ms)
                counts[mode]["retried"] += result.retried
                counts[mode]["failed"] += result.failed
                counts[mode]["themeReplaced"] += any(r.field == "theme" for r in result.rejections)
                written = [r.model_value for r in result.rejections if r.field == "theme"]
                shown = result.structure.theme if result.structure else None
                themes[mode].append(written[0] if written else shown)
            if number % 20 == 0 or number == len(texts):
                print(f"  {number}/{len(texts)} items, {time.perf_counter() - started:.0f} s", flush=True)
    finally:
        await backend.aclose()
    prompts = {
        "theme only": len(services["theme only"].prompt.render("")),
        "full schema": len(services["full schema"].prompt.render("")),
    }
    return {
        "items": len(texts),
        "slots": SLOTS,
        "cpus": os.cpu_count(),
        "loadAverage": os.getloadavg(),
        "latencyMs": {m: summary_ms(latencies[m]) for m in MODES},
        "counts": counts,
        "promptChars": prompts,
        "modelThemes": themes,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="Only the first N items (the edit loop).")
    parser.add_argument("--split", default="all", choices=("dev", "holdout", "all"))
    parser.add_argument("--every", type=int, default=1, help="Every Nth item (an even sample of the set).")
    args = parser.parse_args(argv)
    items = select(load_set(load_domain("retail")), args.split)[:: args.every][: args.limit]
    result = asyncio.run(run([item.text for item in items]))
    result["split"] = args.split
    result["every"] = args.every
    full, theme = result["latencyMs"]["full schema"], result["latencyMs"]["theme only"]
    rows = [
        ("interpret p50, full vs theme only", f"{full['p50']:,.0f} vs {theme['p50']:,.0f} ms", ""),
        ("interpret p90, full vs theme only", f"{full['p90']:,.0f} vs {theme['p90']:,.0f} ms", ""),
        ("p50 ratio theme only / full", f"{theme['p50'] / full['p50']:.2f}", "< 1"),
        ("p90 ratio theme only / full", f"{theme['p90'] / full['p90']:.2f}", "< 1"),
        (
            "prompt characters (without the text)",
            f"{result['promptChars']['full schema']} vs {result['promptChars']['theme only']}",
            "",
        ),
    ]
    for mode in MODES:
        c = result["counts"][mode]
        rows.append(
            (
                f"{mode}: re-prompted / failed / theme replaced",
                f"{c['retried']} / {c['failed']} / {c['themeReplaced']} of {result['items']}",
                "",
            )
        )
    print_table(f"interpret latency · embedded SmolLM2 · {result['items']} items ({args.split})", rows)
    print(f"results: {write_result('interpret_latency', result)}")
    return 0 if theme["p50"] < full["p50"] else 1


if __name__ == "__main__":
    sys.exit(main())
