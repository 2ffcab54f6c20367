"""The CPU of ``/interpret`` outside the model: the rules' reading of a text, read once (ADR 0073) against the
old path that read it four or five times (``bench/legacy_interpret.py``), side by side in one run.

Both paths run the real structuring service, guards and preview behind a real gate, in front of a backend
that answers at once with a fixed valid reply, over the eval sets' texts (retail and game). Each call is
timed as this process's CPU time (``time.process_time``). Every measured call is of a text no cache has
seen: the eval text with a number appended, a new one for each call (the evidence LRU, the folded-text and
language caches are keyed by the text, so a repeat would hide the cost); the per-word caches (morphology,
lemmas) are warmed first by one unmeasured pass, and what is alive then is frozen out of the garbage
collector's passes, as in a running service (``loop_pauses``). The two paths alternate per text. The old
path asks lingua for every text's language; today's decides a text by its words when they leave no doubt
(ADR 0084).

A third measure is the floor both paths share, which no reading of the text changes: the prompt rendered,
the call through the gate and runner to the instant backend, the personal-data scan of the preview. The
table gives the ratio of what is above it too (the rules' share of the call).

Target: the new path's mean CPU per call at most half the old path's (×0.5).

Run: .venv/bin/python -m bench.interpret_cpu [--rounds 3] [--limit N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.common import pf, print_table, summary_ms, write_result
from bench.legacy_interpret import LegacyInterpretService, LegacyStructuringService
from bench.legacy_rules import lingua_alone
from feedback_intelligence.cli.loop_pauses import freeze_what_start_up_made
from feedback_intelligence.deterministic.personal_data import personal_data_json
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.gate.context import CallContext
from feedback_intelligence.gate.gate import LlmGate
from feedback_intelligence.gate.local import LocalSlotPool
from feedback_intelligence.gate.pooled import PooledSlotPool
from feedback_intelligence.llm.testing import FakeBackend
from feedback_intelligence.prompting.runner import PromptRunner
from feedback_intelligence.services.interpret import InterpretService
from feedback_intelligence.structuring.service import StructuringService

DOMAINS = ("retail", "game")
TARGET_RATIO = 0.5
# a fixed valid reply per domain: a theme the guards judge against each text (kept, or replaced by the prior's)
REPLIES = {"retail": {"theme": "kassajono"}, "game": {"theme": "matchmaking queue"}}
EVAL = Path(__file__).resolve().parent.parent / "feedback_intelligence" / "domains"


def eval_texts(domain: str, limit: int | None = None) -> list[str]:
    lines = (EVAL / domain / "eval" / "set.jsonl").read_text(encoding="utf-8").splitlines()
    texts = [json.loads(line)["text"] for line in lines if line.strip()]
    return texts[:limit] if limit is not None else texts


def runner(backend: FakeBackend) -> PromptRunner:
    gate = LlmGate(
        PooledSlotPool.single(LocalSlotPool(1, background_reserve=0)), acquire_timeout_s=5.0, call_timeout_s=30.0
    )
    return PromptRunner(gate, backend)  # type: ignore[arg-type]


@dataclass
class Paths:
    old: InterpretService
    new: InterpretService
    backend: FakeBackend


def paths(domain: Domain, reply: dict[str, str]) -> Paths:
    backend = FakeBackend(reply=json.dumps(reply, ensure_ascii=False))
    old = LegacyInterpretService(domain, LegacyStructuringService(runner(backend), domain))
    new = InterpretService(domain, StructuringService(runner(backend), domain))
    return Paths(old, new, backend)


async def interpret(service: InterpretService, text: str) -> None:
    """``service``'s answer to ``text``; the old path's with every language asked of lingua."""
    if isinstance(service, LegacyInterpretService):
        with lingua_alone():
            await service.interpret(text, visitor="bench")
    else:
        await service.interpret(text, visitor="bench")


async def _cpu_ms(service: InterpretService, text: str) -> float:
    start = time.process_time()
    await interpret(service, text)
    return (time.process_time() - start) * 1000


async def _floor_ms(service: InterpretService, text: str) -> float:
    """What any path spends on ``text`` outside the rules: prompt, gate, runner, backend, personal data."""
    structuring = service.structuring
    start = time.process_time()
    await structuring.runner.complete(
        structuring.prompt.render(text),
        CallContext.interactive("bench", "interpret"),
        max_tokens=structuring.max_tokens,
        temperature=structuring.temperature,
        json_schema=structuring.json_schema,
        deadline_s=structuring.deadline_s,
    )
    personal_data_json(text, service.domain)
    return (time.process_time() - start) * 1000


async def measure_domain(name: str, *, rounds: int, limit: int | None) -> dict[str, Any]:
    domain = load_domain(name)
    texts = eval_texts(name, limit)
    p = paths(domain, REPLIES[name])
    for text in texts:  # warm the per-word caches and the lexicons, unmeasured
        await interpret(p.old, text)
        await interpret(p.new, text)
    freeze_what_start_up_made()  # as the service does once started: the warm heap is not walked again
    old: list[float] = []
    new: list[float] = []
    floor: list[float] = []
    fresh = 0
    for r in range(rounds):
        for i, text in enumerate(texts):
            order = [(p.old, old), (p.new, new)] if (i + r) % 2 == 0 else [(p.new, new), (p.old, old)]
            for service, into in order:
                fresh += 1
                into.append(await _cpu_ms(service, f"{text} {fresh}"))
            fresh += 1
            floor.append(await _floor_ms(p.new, f"{text} {fresh}"))
        p.backend.requests.clear()
    above = (sum(new) - sum(floor)) / (sum(old) - sum(floor))
    return {
        "texts": len(texts),
        "old": summary_ms(old) | {"mean": round(statistics.fmean(old), 3)},
        "new": summary_ms(new) | {"mean": round(statistics.fmean(new), 3)},
        "floor": summary_ms(floor) | {"mean": round(statistics.fmean(floor), 3)},
        "ratio": round(sum(new) / sum(old), 3),
        "ratioAboveFloor": round(above, 3),
    }


async def measure(*, rounds: int = 3, limit: int | None = None) -> dict[str, Any]:
    by_domain = {name: await measure_domain(name, rounds=rounds, limit=limit) for name in DOMAINS}
    old, new, floor = (sum(d[k]["mean"] * d[k]["n"] for d in by_domain.values()) for k in ("old", "new", "floor"))
    return {
        "domains": by_domain,
        "ratio": round(new / old, 3),
        "ratioAboveFloor": round((new - floor) / (old - floor), 3),
        "targetRatio": TARGET_RATIO,
        "rounds": rounds,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.interpret_cpu", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="measured passes over the texts")
    parser.add_argument("--limit", type=int, default=None, help="at most this many texts of each eval set")
    args = parser.parse_args(argv)
    result = asyncio.run(measure(rounds=args.rounds, limit=args.limit))
    rows = []
    for name, d in result["domains"].items():
        o, n = d["old"], d["new"]
        rows.append(
            (
                f"{name} ({d['texts']} texts × {args.rounds}): CPU per call, old → new (mean · p50 · p90)",
                f"{o['mean']} → {n['mean']} · {o['p50']} → {n['p50']} · {o['p90']} → {n['p90']} ms (×{d['ratio']})",
                "",
            )
        )
        rows.append(
            (
                f"{name}: shared floor (prompt, gate, backend, personal data), mean; above it new ÷ old",
                f"{d['floor']['mean']} ms; ×{d['ratioAboveFloor']}",
                "",
            )
        )
    ok = result["ratio"] <= TARGET_RATIO
    rows.append(("new ÷ old, CPU of every call", f"×{result['ratio']}", f"≤ ×{TARGET_RATIO}  {pf(ok)}"))
    rows.append(("new ÷ old, the CPU above the shared floor", f"×{result['ratioAboveFloor']}", ""))
    result["targetPass"] = ok
    print_table("/interpret CPU outside the model: one reading vs the old path", rows)
    print(f"wrote {write_result('interpret_cpu', result)}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
