"""A GPU that batches sequences, as vLLM, SGLang and ``llama-server`` do (continuous batching).

Every running sequence advances one token per *step*, and one step serves them all: its time is a fixed
part (the weights are read once a step, whatever the batch) plus a small part per sequence (each one's
KV cache is read), so throughput grows several-fold with the batch while each sequence slows only a
little. Past the *knee* (the KV cache no longer fits the memory the GPU leaves this model, so blocks are
swapped or recomputed) every further sequence slows the step sharply. A sequence joins at the next step
boundary; its prompt adds prefill time to that step, by its length. Sequences beyond ``max_seqs`` wait in
the server's own queue, first come first served.

Anyone with the :class:`BatchingGpu` object shares it: the simulated server's completions, and a
"neighbour" (another application on the same GPU) that calls :meth:`BatchingGpu.generate` directly.

The defaults imitate an 8B model in 16-bit on one data-centre GPU with a memory budget shared with a
sibling application: about 15 ms a decode step alone (≈ 65 tokens/s for one sequence, as published for
Llama-3-8B on an A100 with vLLM), about 0.6 ms more per running sequence (aggregate decode throughput
grows about 7× from batch 1 to batch 24, within the several-fold gains published for batch 16-32), a
knee at 24 sequences of ordinary length, and prefill at about 10 000 prompt tokens a second.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class BatchingConfig:
    step_ms: float = 15.0  # one decode step with one sequence
    per_seq_ms: float = 0.6  # added to each step per running sequence
    knee_seqs: int = 24  # running sequences the memory holds without swapping
    past_knee_ms: float = 8.0  # added to each step per sequence beyond the knee
    prefill_ms_per_1k: float = 100.0  # added to the step a sequence joins, per 1000 prompt tokens
    max_seqs: int = 256  # the server's own cap (vLLM's max_num_seqs); more wait in its queue

    def validate(self) -> None:
        if min(self.step_ms, self.per_seq_ms, self.past_knee_ms, self.prefill_ms_per_1k) < 0:
            raise ValueError("batching times must be 0 or more")
        if self.knee_seqs < 1 or self.max_seqs < 1:
            raise ValueError("knee_seqs and max_seqs must be at least 1")

    def step_s(self, running: int, prefill_tokens: int = 0) -> float:
        """How long one step takes with ``running`` sequences, ``prefill_tokens`` of new prompts in it."""
        ms = self.step_ms + self.per_seq_ms * running + self.past_knee_ms * max(0, running - self.knee_seqs)
        return (ms + self.prefill_ms_per_1k * prefill_tokens / 1000) / 1000


@dataclass(eq=False, slots=True)
class _Sequence:
    prompt_tokens: int
    left: int  # output tokens still to generate
    future: asyncio.Future[None] = field(default_factory=lambda: asyncio.get_running_loop().create_future())
    prefilled: bool = False


class BatchingGpu:
    """One simulated GPU: a step loop that runs while any sequence does."""

    def __init__(self, config: BatchingConfig | None = None) -> None:
        self.config = config or BatchingConfig()
        self.config.validate()
        self._running: list[_Sequence] = []
        self._queued: deque[_Sequence] = deque()
        self._loop_task: asyncio.Task[None] | None = None
        self.steps = 0
        self.tokens = 0
        self.peak_running = 0

    @property
    def running(self) -> int:
        return len(self._running)

    @property
    def queued(self) -> int:
        return len(self._queued)

    async def generate(self, prompt_tokens: int, output_tokens: int) -> None:
        """Run one sequence to its last output token; cancelling it frees its place at the next step."""
        sequence = _Sequence(max(0, prompt_tokens), max(1, output_tokens))
        self._queued.append(sequence)
        if self._loop_task is None or self._loop_task.done():
            self._loop_task = asyncio.get_running_loop().create_task(self._steps())
        try:
            await asyncio.shield(sequence.future)
        except asyncio.CancelledError:
            sequence.left = 0  # the step loop drops it at the next boundary
            with contextlib.suppress(ValueError):
                self._queued.remove(sequence)
            raise

    async def _steps(self) -> None:
        loop = asyncio.get_running_loop()
        due = loop.time()
        while True:
            self._running = [s for s in self._running if s.left > 0]
            while self._queued and len(self._running) < self.config.max_seqs:
                self._running.append(self._queued.popleft())
            if not self._running:
                return
            prefill = sum(s.prompt_tokens for s in self._running if not s.prefilled)
            step_s = self.config.step_s(len(self._running), prefill)
            self.peak_running = max(self.peak_running, len(self._running))
            # Steps end at absolute times, so the event loop's own lateness does not add up over steps.
            due = max(due, loop.time() - step_s) + step_s
            await asyncio.sleep(max(0.0, due - loop.time()))
            self.steps += 1
            for sequence in self._running:
                sequence.prefilled = True
                if sequence.left > 0:
                    sequence.left -= 1
                    self.tokens += 1
                    if sequence.left == 0 and not sequence.future.done():
                        sequence.future.set_result(None)

    async def aclose(self) -> None:
        if self._loop_task is not None:
            self._loop_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._loop_task
