"""The gate's limits: a fixed one never moves; Gradient2 on latency per token rises while latency holds
at its floor, falls when it grows, and stays within its bounds. Samples are given, not timed."""

from __future__ import annotations

import asyncio

import pytest

from feedback_intelligence.config import load_settings
from feedback_intelligence.gate.factory import build_pool
from feedback_intelligence.gate.limit import FixedLimit, Gradient2Limit, Gradient2Settings
from feedback_intelligence.gate.local import LocalSlotPool
from feedback_intelligence.gate.slots import Priority

TOKENS = 100
FLOOR_S = 0.02 * TOKENS  # 20 ms a token, a call of 100 tokens


def feed(limit: Gradient2Limit, latency_s: float, count: int) -> list[int]:
    """``count`` calls of ``latency_s``, each completing with the limit's calls all in flight."""
    seen = []
    for _ in range(count):
        limit.sample(latency_s, TOKENS, in_flight=limit.current)
        seen.append(limit.current)
    return seen


def test_a_fixed_limit_never_moves() -> None:
    limit = FixedLimit(2)
    assert limit.sample(100.0, 1, in_flight=2) is None
    assert limit.current == 2 and not limit.adaptive


def test_gradient2_rises_from_its_floor_while_latency_per_token_holds() -> None:
    limit = Gradient2Limit("gpu", Gradient2Settings(floor=2, ceiling=32))
    seen = feed(limit, FLOOR_S, 200)
    assert seen == sorted(seen), "it only rises while latency holds"
    assert seen[-1] == 32, "and reaches its ceiling, never beyond"
    assert limit.last_change is not None and limit.last_change.after > limit.last_change.before


def test_gradient2_falls_when_latency_per_token_grows_and_not_below_its_floor() -> None:
    limit = Gradient2Limit("gpu", Gradient2Settings(floor=6, ceiling=32, initial=32))
    feed(limit, FLOOR_S, 50)  # a no-load latency at the floor
    first = limit.sample(FLOOR_S * 4, TOKENS, in_flight=32)
    assert first is not None and first.after < first.before == 32
    assert "80.0 ms/token against 20." in first.reason, "the change says why"
    seen = feed(limit, FLOOR_S * 4, 100)
    assert seen[5] < 28, "four times slower a token: the limit falls within a few calls"
    falling = seen[: seen.index(6) + 1]
    assert falling == sorted(falling, reverse=True), "down to its floor..."
    assert min(seen) == 6, "...not below"


def test_gradient2_does_not_grow_on_load_it_never_saw() -> None:
    limit = Gradient2Limit("gpu", Gradient2Settings(floor=8, ceiling=32))
    for _ in range(100):
        limit.sample(FLOOR_S, TOKENS, in_flight=2)  # two calls in flight: the backend is not the bottleneck
    assert limit.current == 8


def test_the_long_run_latency_stays_at_no_load_so_the_limit_settles_instead_of_drifting() -> None:
    """Latency that grows slowly with the limit (a batching GPU): an average of every call would follow it
    up, and the limit with it to the ceiling. The no-load latency stays where the first calls found it,
    and the limit settles where a token takes about ``tolerance`` times as long."""
    limit = Gradient2Limit("gpu", Gradient2Settings(floor=2, ceiling=64))
    seen = []
    for _ in range(3000):
        per_token = 0.02 + 0.002 * limit.current  # 40 ms a token at 10 in flight
        limit.sample(per_token * TOKENS, TOKENS, in_flight=limit.current)
        seen.append(limit.current)
    assert 0.02 < limit.state.long < 0.03, "the long-run latency is the first calls' (no load)"
    assert min(seen[-1000:]) >= 10 and max(seen[-1000:]) <= 20, "and the limit settles well below its ceiling"


def test_a_latency_target_holds_the_limit_where_tokens_get_too_slow() -> None:
    free = Gradient2Limit("gpu", Gradient2Settings(floor=2, ceiling=64))
    held = Gradient2Limit("gpu", Gradient2Settings(floor=2, ceiling=64, target_s_per_token=0.03))
    for _ in range(2000):
        for limit in (free, held):
            per_token = 0.02 + 0.002 * limit.current  # 30 ms a token at 5 in flight
            limit.sample(per_token * TOKENS, TOKENS, in_flight=limit.current)
    assert 6 <= held.current <= 13 < free.current, "with a target it settles near where a token takes it"


def test_latency_that_others_cause_leaves_the_no_load_latency_alone_and_the_limit_falls() -> None:
    """A neighbour loads the GPU: every token of ours gets slower at any limit. The no-load latency does not
    learn from calls that ran beside many of ours, so the limit falls and stays down while they last."""
    limit = Gradient2Limit("gpu", Gradient2Settings(floor=2, ceiling=64))
    for _ in range(1000):
        limit.sample((0.02 + 0.002 * limit.current) * TOKENS, TOKENS, in_flight=limit.current)
    alone, no_load = limit.current, limit.state.long
    for _ in range(2000):
        limit.sample((0.04 + 0.002 * limit.current) * TOKENS, TOKENS, in_flight=limit.current)
    assert limit.state.long == no_load
    assert limit.current <= alone - 5


def test_a_backend_slower_for_good_holds_the_limit_low_until_it_is_reset() -> None:
    """A backend that turned slower for good (a larger model behind the same address) looks like a
    neighbour that never leaves: the limit falls at once to what it would leave that load (3-4 here) and
    stays low, yielding to a load it takes for someone else's, so its no-load latency learns nothing; a
    reset (a new state) finds its level again."""
    settings = Gradient2Settings(floor=2, ceiling=64)
    limit = Gradient2Limit("gpu", settings)
    for _ in range(1000):
        limit.sample((0.02 + 0.002 * limit.current) * TOKENS, TOKENS, in_flight=limit.current)
    before, no_load = limit.current, limit.state.long
    seen = []
    for _ in range(4000):
        limit.sample((0.06 + 0.006 * limit.current) * TOKENS, TOKENS, in_flight=limit.current)
        seen.append(limit.current)
    assert seen.index(3) < 60 and max(seen[-1000:]) <= 4 < before / 2, "down at once, and held low"
    assert limit.state.neighbour and limit.state.long == no_load, "the slower token is taken for another load"
    reset = Gradient2Limit("gpu", settings)
    for _ in range(1000):
        reset.sample((0.06 + 0.006 * reset.current) * TOKENS, TOKENS, in_flight=reset.current)
    assert reset.current >= before - 3, "a new state finds the same level as before"


def test_the_limit_stays_within_its_bounds_whatever_it_is_fed() -> None:
    limit = Gradient2Limit("gpu", Gradient2Settings(floor=3, ceiling=12))
    for latency in [0.001, 50.0, 0.5, 0.0001, 9.0] * 40:
        limit.sample(latency, TOKENS, in_flight=limit.current)
        assert 3 <= limit.current <= 12


async def test_a_raised_limit_admits_a_waiter_at_once() -> None:
    limit = Gradient2Limit("gpu", Gradient2Settings(floor=1, ceiling=4))
    pool = LocalSlotPool(4, background_reserve=0, limit=limit)
    held = await pool.try_acquire(Priority.INTERACTIVE)
    assert held is not None and pool.slots == 1
    waiter = asyncio.ensure_future(pool.acquire(Priority.INTERACTIVE, 60))
    await asyncio.sleep(0)  # the waiter queues
    assert not waiter.done()
    change = None
    while change is None:
        change = await pool.observe(FLOOR_S, TOKENS)
    assert change.after == 2
    assert await asyncio.wait_for(waiter, 1) is not None, "the new slot went to the waiter"
    occupancy = await pool.occupancy()
    assert occupancy.adaptive and occupancy.slots == 2 and occupancy.in_use == 2 and "1 -> 2" in occupancy.limit_reason


@pytest.mark.parametrize(
    ("env", "adaptive"),
    [
        ({"FI_LLM_BACKEND": "openai", "FI_LLM_SLOTS": "16"}, False),  # off unless the operator opts in
        ({"FI_LLM_BACKEND": "openai", "FI_LLM_SLOTS": "16", "FI_LLM_ADAPTIVE_LIMIT": "true"}, True),
        ({"FI_LLM_BACKEND": "ollama", "FI_LLM_ADAPTIVE_LIMIT": "true"}, False),  # Ollama stays fixed
    ],
)
def test_only_batching_backends_get_an_adaptive_limit(
    env: dict[str, str], adaptive: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    pool = build_pool(load_settings())
    member = next(iter(pool.members.values()))
    assert isinstance(member, LocalSlotPool)
    assert member.limit.adaptive is adaptive
    assert member.slots == (2 if adaptive else member.limit.current)


def test_an_ollama_backend_marked_batching_opts_in(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FI_LLM_ADAPTIVE_LIMIT", "true")
    monkeypatch.setenv(
        "FI_LLM_BACKENDS",
        '[{"name": "a", "kind": "ollama", "url": "http://a:11434", "slots": 8, "batching": true},'
        ' {"name": "b", "kind": "ollama", "url": "http://b:11434", "slots": 2}]',
    )
    pool = build_pool(load_settings())
    a, b = pool.members["a"], pool.members["b"]
    assert isinstance(a, LocalSlotPool) and isinstance(b, LocalSlotPool)
    assert a.limit.adaptive and not b.limit.adaptive
    assert (a.slots, b.slots) == (2, 2)


async def test_the_gate_feeds_a_completed_calls_tokens_to_its_limit_and_the_metrics_follow() -> None:
    from feedback_intelligence.gate.context import CallContext
    from feedback_intelligence.gate.gate import LlmGate
    from feedback_intelligence.gate.pooled import PooledSlotPool
    from feedback_intelligence.gate.slots import Grant
    from feedback_intelligence.llm.backend import Completion

    limit = Gradient2Limit("gpu", Gradient2Settings(floor=1, ceiling=8))
    gate = LlmGate(
        PooledSlotPool.single(LocalSlotPool(8, background_reserve=0, limit=limit), "gpu"),
        acquire_timeout_s=0.5,
        call_timeout_s=10,
    )

    async def work(grant: Grant) -> Completion:
        return Completion("ok", 10, 20)

    for _ in range(50):  # one call at a time: the limit grows only while half of it is in flight
        await gate.run(work, CallContext(visitor="desk"))
    assert limit.current == 2
    assert gate.metrics.registry.get_sample_value("fi_backend_slots", {"backend": "gpu"}) == 2
    assert gate.metrics.registry.get_sample_value("fi_gate_slots") == 2
    rows = await gate.backends()
    assert rows[0]["adaptiveLimit"] is True and rows[0]["slots"] == 2 and "1 -> 2" in rows[0]["limitReason"]
