"""A preempted call's backend request ends with it (docs/adr/0017): the simulated Ollama sees the client
hang up (its 499), and the embedded llama.cpp engine stops at its next token. Synchronised on the sim's
``/sim/stats`` and on the engine's own progress, never on sleeps."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from feedback_intelligence.devtools.processes import sim_ollama
from feedback_intelligence.gate.gate import LlmGate
from feedback_intelligence.gate.local import LocalSlotPool
from feedback_intelligence.gate.pooled import PooledSlotPool
from feedback_intelligence.gate.slots import Grant
from feedback_intelligence.llm.embedded import EmbeddedBackend
from feedback_intelligence.llm.errors import LlmPreempted
from feedback_intelligence.llm.ollama import OllamaBackend
from feedback_intelligence.prompting.runner import PromptRunner
from tests.support.calls import call
from tests.support.waiting import wait_for

pytestmark = pytest.mark.process  # starts real processes (tests/conftest.py)


def one_slot_gate() -> LlmGate:
    pool = PooledSlotPool.single(LocalSlotPool(1, background_reserve=0))
    return LlmGate(pool, acquire_timeout_s=5.0, call_timeout_s=120)


async def served(_grant: Grant) -> str:
    return "served"


async def test_a_preempted_call_is_cancelled_at_the_simulated_ollama() -> None:
    with sim_ollama(parallel=1, service_ms=60_000) as sim:
        backend = OllamaBackend(sim.url, "sim-model", slots=1)
        runner = PromptRunner(one_slot_gate(), backend)
        async with httpx.AsyncClient(base_url=sim.url, timeout=5) as control:

            async def sim_stats() -> dict[str, Any]:
                return (await control.get("/sim/stats")).json()  # type: ignore[no-any-return]

            async def reached_sim() -> bool:
                return (await sim_stats())["inFlight"] == 1

            async def sim_saw_the_cancel() -> bool:
                return (await sim_stats())["cancelled"] == 1

            try:
                report = asyncio.create_task(
                    runner.complete("Tiivistä päivä.", runner.background("report", 0), max_tokens=16)
                )
                await wait_for(reached_sim, timeout_s=10, what="the report's call to reach the sim")
                assert await runner.gate.run(served, call(runner.gate, route="interpret")) == "served"
                with pytest.raises(LlmPreempted):
                    await report
                await wait_for(sim_saw_the_cancel, timeout_s=10, what="the sim to see the request cancelled")
                stats = await sim_stats()
                assert stats["completed"] == 0 and stats["inFlight"] == 0
                assert (await runner.gate.occupancy()).in_use == 0
            finally:
                await backend.aclose()


@pytest.mark.embedded
async def test_a_preempted_call_stops_the_embedded_engine_at_its_next_token() -> None:
    backend = EmbeddedBackend(None, slots=1)
    await backend.start()
    try:
        await backend.wait_loaded()
        child = backend._engines[0].child
        assert child is not None
        generating = asyncio.Event()
        original = child.complete

        async def watched(request: Any, **kwargs: Any) -> Any:  # the child says when its first token came
            return await original(request, on_started=generating.set, **kwargs)

        child.complete = watched  # type: ignore[method-assign]
        runner = PromptRunner(one_slot_gate(), backend)
        report = asyncio.create_task(
            runner.complete(
                "Write a long story about a cat who runs a small shop.",
                runner.background("report", 0),
                max_tokens=400,
                temperature=0.0,
            )
        )
        await generating.wait()
        assert await runner.gate.run(served, call(runner.gate, route="interpret")) == "served"
        with pytest.raises(LlmPreempted):
            await report

        async def engine_back() -> bool:
            return child.last_done is not None and len(backend._idle) == 1

        await wait_for(engine_back, timeout_s=30, what="the engine to stop and return to its pool")
        assert child.last_done is not None
        assert child.last_done.cancelled and child.last_done.completion_tokens < 400  # far short of its cap
    finally:
        await backend.aclose()
