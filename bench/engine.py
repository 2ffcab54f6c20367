"""The embedded engine out of the service's process (docs/adr/0019-engine-out-of-process.md): what the
process boundary costs, what it holds in memory, and how fast a killed engine answers again.

1. Interpret latency: the retail eval set's texts through the real structuring path (prompt, gate,
   engine, parser, guards) on one engine, the child process and the same llama.cpp engine in-process
   (a thread, as before ADR 0019), alternated item by item. Target: p50 and p90 ratio ≤ 1.1.
2. Memory: ``feedctl serve`` on its defaults (two engines) after one interpret: the service's RSS plus
   its engines', beside the 867 MB the in-process service held (measured before ADR 0019).
3. Recovery: an engine SIGKILLed, then the time until it answers a one-token call again.

Run: .venv/bin/python -m bench.engine [--items N] [--kills N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import statistics
import sys
import time

import httpx

from bench.common import pct, pf, print_table, write_result
from bench.procfs import children_of, rss_bytes
from feedback_intelligence.api.runtime import with_prior_fields
from feedback_intelligence.config import BackendSettings, load_settings
from feedback_intelligence.devtools.processes import app_server
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.evaluation.dataset import load_set
from feedback_intelligence.gate.context import CallContext
from feedback_intelligence.gate.gate import LlmGate
from feedback_intelligence.gate.local import LocalSlotPool
from feedback_intelligence.gate.pooled import PooledSlotPool
from feedback_intelligence.llm.backend import BackendInfo, ChatMessage, Completion, CompletionRequest, Readiness
from feedback_intelligence.llm.embedded import EmbeddedBackend
from feedback_intelligence.llm.engine.llama_engine import LlamaEngine
from feedback_intelligence.llm.engine.model_file import packaged_model_path
from feedback_intelligence.prompting.runner import PromptRunner
from feedback_intelligence.structuring.service import StructuringService

IN_PROCESS_RSS_MB = 867  # the in-process service after one interpret, measured before ADR 0019
PING = CompletionRequest([ChatMessage("user", "ping")], max_tokens=1)


class InProcessBackend:
    """The engine as it ran before ADR 0019: llama.cpp in a thread of this process (benchmark only)."""

    kind = "embedded-in-process"

    def __init__(self, engine: LlamaEngine) -> None:
        self._engine = engine

    async def start(self) -> None:
        return None

    async def complete(self, request: CompletionRequest) -> Completion:
        made = await asyncio.to_thread(
            self._engine.generate,
            [{"role": m.role, "content": m.content} for m in request.messages],
            max_tokens=request.max_tokens,
            temperature=request.temperature,
            json_schema=request.json_schema,
            cancelled=lambda: False,
        )
        return Completion(text=made.text, completion_tokens=made.completion_tokens)

    async def readiness(self) -> Readiness:
        return Readiness.READY

    async def info(self) -> BackendInfo:
        return BackendInfo(kind=self.kind, model="packaged", base_url=None, parallelism=1)

    async def aclose(self) -> None:
        return None


def structuring(backend: object, settings: BackendSettings) -> StructuringService:
    domain = with_prior_fields(load_domain("retail"), settings)
    gate = LlmGate(
        PooledSlotPool.single(LocalSlotPool(1, background_reserve=0)), acquire_timeout_s=600, call_timeout_s=600
    )
    return StructuringService(PromptRunner(gate, backend), domain, max_tokens=settings.max_output_tokens)  # type: ignore[arg-type]


async def latency(items: int, threads: int) -> dict[str, dict[str, float]]:
    settings = load_settings().backends
    texts = [item.text for item in load_set(load_domain("retail")) if item.split == "dev"][:items]
    child = EmbeddedBackend(None, slots=1, threads=threads, context_tokens=settings.context_tokens)
    await child.start()
    await child.wait_loaded()
    in_process = InProcessBackend(
        LlamaEngine(packaged_model_path(), context_tokens=settings.context_tokens, threads=threads)
    )
    services = {"child": structuring(child, settings), "in_process": structuring(in_process, settings)}
    times: dict[str, list[float]] = {name: [] for name in services}
    try:
        for service in services.values():  # both warm: the prompt's fixed prefix is cached
            await service.structure(texts[0], CallContext.interactive("bench", "interpret"))
        for index, text in enumerate(texts):
            order = list(services) if index % 2 == 0 else list(reversed(services))
            for name in order:
                started = time.perf_counter()
                await services[name].structure(text, CallContext.interactive("bench", "interpret"))
                times[name].append((time.perf_counter() - started) * 1000)
    finally:
        await child.aclose()
    return {
        name: {"p50": statistics.median(values), "p90": pct(values, 0.9), "n": len(values)}
        for name, values in times.items()
    }


def memory_after_one_interpret() -> dict[str, float]:
    with app_server({"FI_LLM_BACKEND": "embedded"}) as app:
        deadline = time.monotonic() + 180
        while httpx.get(app.url + "/health", timeout=60).status_code != 200:
            if time.monotonic() > deadline:
                raise SystemExit("the embedded engines never became ready")
            time.sleep(0.2)
        reply = httpx.post(app.url + "/interpret", json={"text": "Maito oli hapanta ja kassajono pitkä."}, timeout=300)
        reply.raise_for_status()
        service = rss_bytes(app.proc.pid)
        engines = [rss_bytes(pid) for pid in children_of(app.proc.pid)]
    mb = 1024 * 1024
    return {
        "serviceMb": service / mb,
        "enginesMb": sum(engines) / mb,
        "engines": len(engines),
        "totalMb": (service + sum(engines)) / mb,
    }


async def recovery(kills: int) -> list[float]:
    backend = EmbeddedBackend(None, slots=1)
    await backend.start()
    await backend.wait_loaded()
    seconds = []
    try:
        for _ in range(kills):
            pid = backend.engines()[0].pid
            assert pid is not None
            os.kill(pid, signal.SIGKILL)
            started = time.perf_counter()
            while True:
                try:
                    await backend.complete(PING)
                    break
                except Exception:  # restarting: the call fails at once, by design
                    await asyncio.sleep(0.02)
            seconds.append(time.perf_counter() - started)
    finally:
        await backend.aclose()
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--items", type=int, default=30, help="eval-set texts per side")
    parser.add_argument("--kills", type=int, default=5)
    parser.add_argument("--threads", type=int, default=max(1, (os.cpu_count() or 2) // 2))
    args = parser.parse_args(argv)

    lat = asyncio.run(latency(args.items, args.threads))
    p50_ratio = lat["child"]["p50"] / lat["in_process"]["p50"]
    p90_ratio = lat["child"]["p90"] / lat["in_process"]["p90"]
    memory = memory_after_one_interpret()
    back = asyncio.run(recovery(args.kills))
    ok_latency = p50_ratio <= 1.1 and p90_ratio <= 1.1
    rows = [
        (
            "interpret p50, child vs in-process",
            f"{lat['child']['p50']:.0f} vs {lat['in_process']['p50']:.0f} ms (×{p50_ratio:.3f})",
            f"≤ ×1.10 {pf(p50_ratio <= 1.1)}",
        ),
        (
            "interpret p90, child vs in-process",
            f"{lat['child']['p90']:.0f} vs {lat['in_process']['p90']:.0f} ms (×{p90_ratio:.3f})",
            f"≤ ×1.10 {pf(p90_ratio <= 1.1)}",
        ),
        (
            "RSS after one interpret (service + engines)",
            f"{memory['totalMb']:.0f} MB = {memory['serviceMb']:.0f} + {memory['enginesMb']:.0f} "
            f"({memory['engines']:.0f} engines)",
            f"in-process was {IN_PROCESS_RSS_MB} MB",
        ),
        (
            "killed engine → next answer",
            f"p50 {statistics.median(back):.2f} s, max {max(back):.2f} s ({len(back)} kills)",
            f"≤ 60 s {pf(max(back) <= 60)}",
        ),
    ]
    print_table(f"bench.engine ({lat['child']['n']:.0f} items per side, {args.threads} thread(s))", rows)
    write_result(
        "engine", {"latencyMs": lat, "p50Ratio": p50_ratio, "p90Ratio": p90_ratio, "memory": memory, "recoveryS": back}
    )
    return 0 if ok_latency and max(back) <= 60 else 1


if __name__ == "__main__":
    sys.exit(main())
