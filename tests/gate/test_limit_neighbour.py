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
    assert min(beside[:60]) <= 6, "it yields within a few dozen calls"
    assert max(beside[-1000:]) <= 5, "and stays where the neighbour's tokens are within 1.2x"
    assert slowdown(max(beside[-1000:])) <= 1.2
    assert limit.state.long == no_load, "the neighbour's latency is not taken for our no-load latency"

    why.clear()
    gone = run(limit, 1500, why=why)
    assert not limit.state.neighbour and sum("; the other load is gone: " in reason for reason in why) == 1
    assert min(gone[-300:]) >= alone - 2, "gone: the limit returns to where it was alone"
    assert gone.index(alone - 2) < 100, "within a hundred calls"


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
