"""The simulated batching GPU: one step serves every running sequence; a step's time grows with them, sharply
past the knee, and with the prompts that join it. Counted in steps, so the machine's speed does not matter."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from feedback_intelligence.sim import SimConfig, create_sim_app
from feedback_intelligence.sim.batching import BatchingConfig, BatchingGpu

FAST = BatchingConfig(step_ms=1, per_seq_ms=0, past_knee_ms=0, prefill_ms_per_1k=0)


def test_a_step_grows_a_little_per_sequence_sharply_past_the_knee_and_with_prefill() -> None:
    c = BatchingConfig(step_ms=15, per_seq_ms=0.5, knee_seqs=24, past_knee_ms=8, prefill_ms_per_1k=100)
    assert c.step_s(1) == pytest.approx(0.0155)
    assert c.step_s(24) == pytest.approx(0.027)
    assert c.step_s(28) - c.step_s(24) == pytest.approx(4 * 0.0085), "four past the knee: 8.5 ms each"
    assert c.step_s(1, prefill_tokens=2000) == pytest.approx(0.0155 + 0.2)
    throughput = [n / c.step_s(n) for n in (1, 24, 64)]
    assert throughput[1] > 5 * throughput[0], "the batch multiplies throughput below the knee"
    assert throughput[2] < throughput[1], "and loses it past"


async def test_sequences_running_together_share_their_steps() -> None:
    gpu = BatchingGpu(FAST)
    try:
        await asyncio.gather(*(gpu.generate(100, 10) for _ in range(8)))
        assert gpu.tokens == 80
        assert gpu.steps == 10, "eight sequences of ten tokens: ten steps, not eighty"
        assert gpu.peak_running == 8
    finally:
        await gpu.aclose()


async def test_the_server_runs_at_most_max_seqs_and_queues_the_rest() -> None:
    gpu = BatchingGpu(BatchingConfig(step_ms=1, per_seq_ms=0, max_seqs=3))
    try:
        await asyncio.gather(*(gpu.generate(0, 5) for _ in range(6)))
        assert gpu.peak_running == 3
        assert gpu.steps == 10, "two rounds of five steps"
    finally:
        await gpu.aclose()


async def test_a_cancelled_sequence_leaves_the_batch() -> None:
    gpu = BatchingGpu(FAST)
    try:
        long = asyncio.ensure_future(gpu.generate(0, 10_000))
        while gpu.steps < 2:
            await asyncio.sleep(0.001)
        long.cancel()
        await gpu.generate(0, 3)
        assert gpu.steps < 20 and gpu.running <= 1
    finally:
        await gpu.aclose()


async def test_the_sim_server_answers_on_the_batching_gpu_a_neighbour_shares() -> None:
    sim = create_sim_app(SimConfig(batching=BatchingConfig(step_ms=1, per_seq_ms=0), tokens_per_reply=20))
    assert sim.gpu is not None
    try:
        transport = httpx.ASGITransport(app=sim)
        async with httpx.AsyncClient(transport=transport, base_url="http://sim") as http:
            body = {"model": "sim-model", "messages": [{"role": "user", "content": "hei"}], "stream": False}
            ours = http.post("/api/chat", json=body, timeout=30)
            neighbour = sim.gpu.generate(500, 40)
            answer, _ = await asyncio.gather(ours, neighbour)
        assert answer.status_code == 200
        assert answer.json()["eval_count"] == 20
        assert sim.gpu.peak_running == 2, "our completion and the neighbour's ran in one batch"
        assert sim.gpu.steps == 40
    finally:
        await sim.aclose()
