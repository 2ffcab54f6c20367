"""The adaptive limit yields to another application's load on the GPU (a neighbour) and takes its room
back once it is gone. Synthetic latency of a batching GPU, given not timed: a token takes a fixed part,
a share per running sequence (ours and the neighbour's alike) and nothing else."""

from __future__ import annotations

import random

import pytest

from feedback_intelligence.gate.limit import Gradient2Limit, Gradient2Settings

TOKENS = 100
BASE_S = 0.015  # a step with nobody on the GPU
PER_SEQ_S = 0.0011  # what each running sequence adds to a step
NEIGHBOUR_SEQS = 12


def per_token(ours: int, theirs: int = 0) -> float:
    return BASE_S + PER_SEQ_S * (ours + theirs)


def run(
    limit: Gradient2Limit, calls: int, theirs: int = 0, noise: random.Random | None = None, why: list[str] | None = None
) -> list[int]:
    """``calls`` completed calls, each with the limit's calls all in flight beside ``theirs`` sequences;
    the limit after each (and into ``why`` the reason of each change)."""
    seen = []
    for _ in range(calls):
        jitter = 1.0 if noise is None else noise.uniform(0.9, 1.1)
        change = limit.sample(per_token(limit.current, theirs) * TOKENS * jitter, TOKENS, in_flight=limit.current)
        if change is not None and why is not None:
            why.append(change.reason)
        seen.append(limit.current)
    return seen


def slowdown(ours: int) -> float:
    """The neighbour's tokens beside ``ours`` of our calls against its tokens alone."""
    return per_token(ours, NEIGHBOUR_SEQS) / per_token(0, NEIGHBOUR_SEQS)


def test_quiet_then_a_neighbour_then_gone_the_limit_yields_and_comes_back() -> None:
    limit = Gradient2Limit("gpu", Gradient2Settings(floor=2, ceiling=64))
    quiet = run(limit, 1500)
    alone = min(quiet[-300:])
    assert alone >= 16 and not limit.state.neighbour, "alone it keeps the batch full"
    no_load = limit.state.long

    why: list[str] = []
    beside = run(limit, 1500, theirs=NEIGHBOUR_SEQS, why=why)
    assert limit.state.neighbour, "the latency our calls do not explain is someone else's"
    seen = [reason for reason in why if "; another load on the GPU: " in reason]
    assert len(seen) == 1 and "within 1.2×" in seen[0], "the change it began with says why, once"
    assert beside.index(4) < 30, "it yields within a few dozen calls, all the way at once"
    assert max(beside[-1000:]) <= 4, "and stays where the neighbour's tokens are within 1.2x..."
    assert slowdown(max(beside[-1000:])) < 1.17, "...with room: one call more would be 1.195x"
    assert limit.state.long == no_load, "the neighbour's latency is not taken for our no-load latency"

    why.clear()
    gone = run(limit, 1500, why=why)
    assert not limit.state.neighbour and sum("; the other load is gone: " in reason for reason in why) == 1
    assert min(gone[-300:]) >= alone - 2, "gone: the limit returns to where it was alone"
    assert gone.index(alone) < 20, "within a few calls: back to where it was before it yielded"


def test_once_the_neighbour_is_gone_the_limit_is_back_no_later_than_without_yielding() -> None:
    """Yielding holds the limit lower beside the neighbour (4 against 8); after it, the limit is back where
    it was alone no later than the rule that never yields, which climbs from higher."""
    back = {}
    for tolerance in (1.2, 0):
        limit = Gradient2Limit("gpu", Gradient2Settings(floor=2, ceiling=64, neighbour_tolerance=tolerance))
        alone = run(limit, 1500)[-1]
        beside = run(limit, 1500, theirs=NEIGHBOUR_SEQS)[-1]
        gone = run(limit, 300)
        back[tolerance] = next(i for i, seen in enumerate(gone) if seen >= alone - 1)
        assert beside < alone - 5 and min(gone[-100:]) >= alone - 1
    assert back[1.2] <= back[0]


def test_without_yielding_the_limit_keeps_a_neighbour_slower() -> None:
    """The rule before the limit yielded (a neighbour tolerance of 0): it falls, but by about as many calls
    as the neighbour brings, and the neighbour's tokens stay well over 1.2x."""
    yielding = Gradient2Limit("gpu", Gradient2Settings(floor=2, ceiling=64))
    never = Gradient2Limit("gpu", Gradient2Settings(floor=2, ceiling=64, neighbour_tolerance=0))
    for limit in (yielding, never):
        run(limit, 1500)
        run(limit, 1500, theirs=NEIGHBOUR_SEQS)
    assert not never.state.neighbour and never.state.slope == 0, "it learns nothing of other loads"
    assert slowdown(never.current) > 1.3 and slowdown(yielding.current) <= 1.2


def test_our_own_load_growing_is_never_taken_for_a_neighbour() -> None:
    """From the floor up to where it settles, with 10 % noise on every call: only our calls on the GPU,
    so the limit never yields."""
    noise = random.Random(7)
    limit = Gradient2Limit("gpu", Gradient2Settings(floor=2, ceiling=64))
    for _ in range(3000):
        run(limit, 1, noise=noise)
        assert not limit.state.neighbour
    assert limit.current >= 14


def test_a_neighbour_tolerance_is_none_or_more_than_one() -> None:
    with pytest.raises(ValueError):
        Gradient2Limit("gpu", Gradient2Settings(neighbour_tolerance=1.0))
    Gradient2Limit("gpu", Gradient2Settings(neighbour_tolerance=0))


async def test_yielding_shows_in_the_backend_rows_and_the_metrics() -> None:
    """What /health, /admin/status, feedctl status and /metrics read."""
    from feedback_intelligence.gate.gate import LlmGate
    from feedback_intelligence.gate.local import LocalSlotPool
    from feedback_intelligence.gate.pooled import PooledSlotPool

    limit = Gradient2Limit("gpu", Gradient2Settings(floor=2, ceiling=64))
    gate = LlmGate(
        PooledSlotPool.single(LocalSlotPool(2, background_reserve=0, limit=limit), "gpu"),
        acquire_timeout_s=0.5,
        call_timeout_s=10,
    )
    run(limit, 1500)
    assert (await gate.backends())[0]["limitYields"] is False
    assert gate.metrics.registry.get_sample_value("fi_backend_limit_yielding", {"backend": "gpu"}) == 0
    run(limit, 100, theirs=NEIGHBOUR_SEQS)
    rows = await gate.backends()
    assert rows[0]["limitYields"] is True and rows[0]["slots"] <= 6
    assert gate.metrics.registry.get_sample_value("fi_backend_limit_yielding", {"backend": "gpu"}) == 1
    await gate.aclose()


def test_a_neighbour_leaving_bit_by_bit_never_squeezes_the_limit_below_what_it_gave_it() -> None:
    """As the neighbour's load fades, what is left of it is smaller and would be hurt more by each call of
    ours; the limit still never falls below what the least load it sees would leave it."""
    limit = Gradient2Limit("gpu", Gradient2Settings(floor=2, ceiling=64))
    run(limit, 1500)
    beside = run(limit, 1500, theirs=NEIGHBOUR_SEQS)
    leaving = [seen for theirs in (9, 6, 3, 0) for seen in run(limit, 300, theirs=theirs)]
    assert min(leaving) >= min(beside[-1000:])
    assert not limit.state.neighbour and leaving[-1] >= 16


SHORT_PROMPT = 500  # tokens: 5 a token of output, a desk text (its prefill a share of every step)
LONG_PROMPT = 3300  # 33 a token of output, report prose
PREFILL_S = 0.0001  # a step's time per prompt token joining it (sim/batching.py's 100 ms per 1k)
DECODE_S = 0.0006  # a step's time per running sequence, its prompt apart


def prompted(ours: int, prompt: int, theirs: int = 0) -> float:
    """A token of ours on the synthetic GPU with prefill: each running call of ours brings its prompt's
    prefill to one step in ``TOKENS``, ours as well; the neighbour's prompts are short (as PER_SEQ_S)."""
    per_call = DECODE_S + PREFILL_S * prompt / TOKENS
    return BASE_S + per_call * ours + PREFILL_S * prompt / TOKENS + PER_SEQ_S * theirs


def feed(limit: Gradient2Limit, calls: int, prompt: int, theirs: int = 0, told: bool = True) -> list[bool]:
    """``calls`` calls with ``prompt`` tokens of prompt, 10 % noise each (``told``: the limit is told the
    prompt's length, as the backends' usage reports it); whether it yielded after each."""
    noise = random.Random(11)
    yielded = []
    for _ in range(calls):
        latency = prompted(limit.current, prompt, theirs) * TOKENS * noise.uniform(0.9, 1.1)
        limit.sample(latency, TOKENS, in_flight=limit.current, prompt_tokens=prompt if told else 0)
        yielded.append(limit.state.neighbour)
    return yielded


def test_our_own_prompts_turning_long_are_ours_and_a_neighbour_beside_them_is_not() -> None:
    """Longer prompts bring more prefill to every step, so each call of ours costs more: that is learned
    as ours again, and the limit never yields to itself; a neighbour arriving later still is seen. Without
    the prompt's length the same latencies read as another load."""
    limit = Gradient2Limit("gpu", Gradient2Settings(floor=2, ceiling=64))
    never = Gradient2Limit("gpu", Gradient2Settings(floor=2, ceiling=64, neighbour_tolerance=0))
    blind = Gradient2Limit("gpu", Gradient2Settings(floor=2, ceiling=64))
    for each in (limit, never, blind):
        assert not any(feed(each, 1500, SHORT_PROMPT, told=each is not blind))
    assert not any(feed(limit, 1500, LONG_PROMPT)), "long prompts alone: nobody else is there"
    feed(never, 1500, LONG_PROMPT)
    assert limit.current >= never.current - 1, "it settles where the rule that never yields does"
    assert any(feed(blind, 1500, LONG_PROMPT, told=False)), "untold, our own prefill looks like a neighbour"
    assert feed(limit, 300, LONG_PROMPT, theirs=NEIGHBOUR_SEQS)[-1], "someone else beside long prompts"


async def test_the_gate_hands_the_limit_each_call_s_prompt_tokens() -> None:
    """What the backend reports (``usage.prompt_tokens``, Ollama's ``prompt_eval_count``) reaches the limit."""
    from feedback_intelligence.gate.context import CallContext
    from feedback_intelligence.gate.gate import LlmGate
    from feedback_intelligence.gate.local import LocalSlotPool
    from feedback_intelligence.gate.pooled import PooledSlotPool
    from feedback_intelligence.gate.slots import Grant, Priority
    from feedback_intelligence.llm.backend import Completion

    limit = Gradient2Limit("gpu", Gradient2Settings(floor=2, ceiling=64))
    gate = LlmGate(
        PooledSlotPool.single(LocalSlotPool(2, background_reserve=0, limit=limit), "gpu"),
        acquire_timeout_s=0.5,
        call_timeout_s=10,
    )

    async def work(grant: Grant) -> Completion:
        return Completion("", prompt_tokens=600, completion_tokens=60)

    await gate.run(work, CallContext(priority=Priority.INTERACTIVE, route="interpret", visitor="desk"))
    assert limit.state.samples == 1 and limit.state.mix == 10, "600 prompt tokens for 60 of output"
    await gate.aclose()
