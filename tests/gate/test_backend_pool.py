"""The gate over several backends: each backend's own slots, least loaded first, a breaker."""

from __future__ import annotations

import asyncio

import pytest

from feedback_intelligence.config import ConfigurationError, load_settings
from feedback_intelligence.gate.gate import LlmGate
from feedback_intelligence.gate.local import LocalSlotPool
from feedback_intelligence.gate.pooled import PooledSlotPool, spread_reserve
from feedback_intelligence.gate.router import BackendRouter, Outcome
from feedback_intelligence.gate.slots import Grant, Priority
from feedback_intelligence.instants.clock import ManualClock
from feedback_intelligence.llm.backend import Readiness
from feedback_intelligence.llm.errors import LlmBusy, LlmFailure, LlmUnavailable
from tests.support.calls import call
from tests.support.waiting import wait_for


def pool(**slots: int) -> PooledSlotPool:
    return PooledSlotPool(
        {name: LocalSlotPool(n, 0) for name, n in slots.items()}, BackendRouter(list(slots), cooldown_s=0.05)
    )


async def test_admission_spreads_least_loaded_first_and_never_exceeds_a_backends_slots() -> None:
    gate = LlmGate(pool(gpu1=2, gpu2=2), acquire_timeout_s=0.05, call_timeout_s=5)
    release = asyncio.Event()
    running: dict[str, int] = {"gpu1": 0, "gpu2": 0}
    peak: dict[str, int] = {"gpu1": 0, "gpu2": 0}
    order: list[str] = []

    async def work(grant: Grant) -> None:
        name = grant.backend
        order.append(name)
        running[name] += 1
        peak[name] = max(peak[name], running[name])
        await release.wait()
        running[name] -= 1

    calls = [asyncio.create_task(gate.run(work, call(gate))) for _ in range(4)]
    await wait_for(lambda: len(order) == 4)
    assert order[:2] == ["gpu1", "gpu2"]  # the second call goes to the emptier backend
    with pytest.raises(LlmBusy):
        await gate.run(work, call(gate))  # the fifth is shed after the acquire timeout
    release.set()
    await asyncio.gather(*calls)
    assert peak == {"gpu1": 2, "gpu2": 2}


async def test_a_waiting_call_takes_the_first_slot_any_backend_frees() -> None:
    gate = LlmGate(pool(gpu1=1, gpu2=1), acquire_timeout_s=5, call_timeout_s=5)
    gates = {"gpu1": asyncio.Event(), "gpu2": asyncio.Event()}
    seen: list[str] = []

    async def work(grant: Grant) -> str:
        name = grant.backend
        seen.append(name)
        if len(seen) <= 2:
            await gates[name].wait()
        return name

    holders = [asyncio.create_task(gate.run(work, call(gate))) for _ in range(2)]
    await wait_for(lambda: len(seen) == 2)
    waiter = asyncio.create_task(gate.run(work, call(gate)))
    gates["gpu2"].set()
    assert await waiter == "gpu2"
    gates["gpu1"].set()
    await asyncio.gather(*holders)
    assert (await gate.occupancy()).in_use == 0


async def test_a_backend_that_fails_is_taken_out_and_probed_back_in() -> None:
    answers = {"gpu2": Readiness.DOWN}

    async def readiness() -> Readiness:
        return answers["gpu2"]

    clock = ManualClock()
    router = BackendRouter(["gpu1", "gpu2"], cooldown_s=0.05, readiness={"gpu2": readiness}, clock=clock)
    slots = PooledSlotPool({"gpu1": LocalSlotPool(2, 0), "gpu2": LocalSlotPool(2, 0)}, router)
    gate = LlmGate(slots, acquire_timeout_s=0.05, call_timeout_s=5)

    async def dies_on_gpu2(grant: Grant) -> str:
        name = grant.backend
        if name == "gpu2":
            raise LlmUnavailable("connection refused")
        return name

    # the call sent to gpu2 fails there (unreachable: its breaker opens at once), and is
    # answered by gpu1 on its one retry
    results = await asyncio.gather(*(gate.run(dies_on_gpu2, call(gate)) for _ in range(2)))
    assert results == ["gpu1", "gpu1"]
    assert gate.metrics.registry.get_sample_value("fi_gate_retries_total", {"route": "other"}) == 1
    assert gate.degraded() and [row["state"] for row in await gate.backends()] == ["ok", "down"]
    assert [await gate.run(dies_on_gpu2, call(gate)) for _ in range(3)] == ["gpu1"] * 3  # every later call avoids it
    await clock.sleepers()  # the probe waits out the cool-down
    clock.advance(0.05)  # its check says down: it waits another cool-down, still out
    await clock.sleepers()
    assert gate.degraded() and router.states["gpu2"].state == "down"
    answers["gpu2"] = Readiness.READY
    clock.advance(0.05)
    await wait_for(lambda: not gate.degraded())
    await gate.aclose()


async def test_one_backend_is_never_taken_out_but_reads_failing() -> None:
    slots = pool(ollama=2)
    for _ in range(slots.router.breaker_failures):
        slots.router.on_outcome("ollama", Outcome.ERROR, detail="500 model runner has unexpectedly stopped")
    assert slots.router.serving() == ["ollama"]  # nothing to move calls to
    assert slots.router.degraded() and slots.router.states["ollama"].state == "failing"


def test_the_background_reserve_is_the_pools() -> None:
    assert spread_reserve([2, 2], 1) == [1, 0]
    assert spread_reserve([2, 4], 3) == [1, 2]
    assert sum(spread_reserve([1, 1], 5)) == 2


async def test_background_work_leaves_the_reserve_free_across_the_pool() -> None:
    slots = PooledSlotPool({"a": LocalSlotPool(2, 1), "b": LocalSlotPool(2, 0)})
    leases = [await slots.try_acquire(Priority.BACKGROUND) for _ in range(4)]
    assert sum(lease is not None for lease in leases) == 3  # 4 slots, 1 kept for visitors
    assert await slots.try_acquire(Priority.INTERACTIVE) is not None


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("nope", "must be a JSON list"),
        ("[]", "non-empty JSON list"),
        ('[{"name": "a", "kind": "ollama"}]', "url is required"),
        ('[{"name": "a", "kind": "vllm", "url": "http://x"}]', "kind must be one of"),
        (
            '[{"name": "a", "kind": "ollama", "url": "x"}, {"name": "a", "kind": "ollama", "url": "http://y"}]',
            "url must be an absolute",
        ),
        (
            '[{"name": "a", "kind": "ollama", "url": "http://x"}, {"name": "a", "kind": "ollama", "url": "http://y"}]',
            "used twice",
        ),
        ('[{"name": "a", "kind": "ollama", "url": "http://x", "slots": 0}]', "slots must be"),
        ('[{"name": "a", "kind": "ollama", "url": "http://x", "port": 1}]', "unknown field 'port'"),
    ],
)
def test_bad_backend_lists_stop_the_boot_with_one_clear_line(monkeypatch, value: str, problem: str) -> None:
    monkeypatch.setenv("FI_LLM_BACKENDS", value)
    with pytest.raises(ConfigurationError) as caught:
        load_settings()
    message = str(caught.value)
    assert message.startswith("invalid configuration: FI_LLM_BACKENDS: ") and problem in message
    assert "\n" not in message


def test_the_shorthand_is_a_pool_of_one_and_the_list_replaces_it(monkeypatch) -> None:
    monkeypatch.setenv("FI_LLM_BACKEND", "ollama")
    monkeypatch.setenv("FI_LLM_SLOTS", "3")
    assert [(s.name, s.slots) for s in load_settings().backends.specs] == [("ollama", 3)]
    monkeypatch.setenv(
        "FI_LLM_BACKENDS",
        '[{"name": "gpu1", "kind": "ollama", "url": "http://h1:11434"},'
        '{"name": "cpu", "kind": "embedded", "slots": 1}]',
    )
    settings = load_settings()
    assert [(s.name, s.kind, s.url, s.slots) for s in settings.backends.specs] == [
        ("gpu1", "ollama", "http://h1:11434", 2),
        ("cpu", "embedded", None, 1),
    ]
    assert settings.backends.total_slots == 3


async def test_per_backend_metrics_carry_the_backends_name() -> None:
    from feedback_intelligence.metrics import Metrics

    metrics = Metrics()
    gate = LlmGate(pool(gpu1=1, gpu2=1), acquire_timeout_s=0.05, call_timeout_s=5, metrics=metrics)

    async def work(grant: Grant) -> str:
        return grant.backend

    assert await gate.run(work, call(gate)) == "gpu1"

    def sample(name: str, backend: str) -> float | None:
        return metrics.registry.get_sample_value(name, {"backend": backend})

    assert sample("fi_backend_admitted_total", "gpu1") == 1
    assert sample("fi_backend_slots", "gpu2") == 1
    assert sample("fi_backend_up", "gpu2") == 1
    assert sample("fi_backend_in_use", "gpu1") == 0


async def test_a_backend_that_answers_errors_goes_out_after_its_run_of_failures_and_comes_back_on_probation() -> None:
    """A black hole backend (ADR 0020): ``evil`` answers fast, with 500s, while its readiness looks fine."""
    clock = ManualClock()
    router = BackendRouter(["evil", "good"], breaker_failures=3, cooldown_s=1.0, clock=clock)
    slots = PooledSlotPool({"evil": LocalSlotPool(2, 0), "good": LocalSlotPool(2, 0)}, router)
    gate = LlmGate(slots, acquire_timeout_s=0.1, call_timeout_s=5)
    sent: list[str] = []

    async def work(grant: Grant) -> str:
        sent.append(grant.backend)
        if grant.backend == "evil":
            raise LlmFailure("Ollama answered 500: model runner has unexpectedly stopped")
        return grant.backend

    # a call that lands on evil fails there and is answered by good on its one retry; evil's last call
    # failed, so the next calls go to good first
    assert [await gate.run(work, call(gate)) for _ in range(4)] == ["good"] * 4
    assert sent.count("evil") == 1
    # with good busy, calls land on evil again; their retries find no slot on good in time
    holders = [asyncio.create_task(slots.members["good"].acquire(Priority.INTERACTIVE, 1.0)) for _ in range(2)]
    held = await asyncio.gather(*holders)
    for _ in range(2):
        with pytest.raises(LlmFailure):
            await gate.run(work, call(gate))
    for lease in held:
        await slots.members["good"].release(lease)
    assert sent.count("evil") == 3  # three failed calls in a row: out for the cool-down
    assert router.states["evil"].state == "failing" and gate.degraded()
    rows = {row["name"]: row for row in await gate.backends()}
    assert rows["evil"]["state"] == "failing" and rows["evil"]["failuresInARow"] == 3
    assert gate.metrics.registry.get_sample_value("fi_backend_up", {"backend": "evil"}) == 0
    await clock.sleepers()  # the probe waits out the cool-down
    assert gate.degraded()
    clock.advance(1.0)
    await wait_for(lambda: not gate.degraded())  # the cool-down ends; its readiness check says ready
    assert router.states["evil"].probation  # one more failure takes it out again
    sent.clear()
    calls = [asyncio.create_task(gate.run(work, call(gate))) for _ in range(3)]
    assert await asyncio.gather(*calls) == ["good"] * 3
    assert router.states["evil"].state == "failing"
    await gate.aclose()


async def test_background_work_is_not_retried_on_another_backend() -> None:
    slots = PooledSlotPool({"evil": LocalSlotPool(1, 0), "good": LocalSlotPool(1, 0)})
    gate = LlmGate(slots, acquire_timeout_s=0.5, call_timeout_s=5)

    async def work(grant: Grant) -> str:
        raise LlmFailure("500")

    with pytest.raises(LlmFailure):
        await gate.run(work, call(gate, Priority.BACKGROUND, "report"))
    assert gate.metrics.registry.get_sample_value("fi_gate_retries_total", {"route": "report"}) is None


async def test_a_success_ends_a_run_of_failures() -> None:
    router = BackendRouter(["a", "b"], breaker_failures=3)
    for outcome in (Outcome.ERROR, Outcome.DEADLINE, Outcome.OK, Outcome.ERROR, Outcome.ERROR):
        router.on_outcome("a", outcome)
    assert not router.states["a"].tripped and router.states["a"].failures == 2
    assert router.states["a"].state == "failing"  # its last call failed
    router.on_outcome("a", Outcome.CANCELLED)  # the caller went away: says nothing of the backend
    router.on_outcome("a", Outcome.BACKEND_BUSY)
    assert router.states["a"].failures == 2
    assert router.order(["a", "b"], {"a": 0.0, "b": 0.5}) == ["b", "a"]  # its last call failed: after b


async def test_a_backend_failing_every_other_call_goes_out_by_its_failure_rate() -> None:
    """Never three in a row, yet half its calls fail: the rate rule takes it out."""
    router = BackendRouter(["flaky", "good"], breaker_failures=3, failure_rate=0.5, rate_min_calls=10)
    for i in range(9):
        router.on_outcome("flaky", Outcome.ERROR if i % 2 else Outcome.OK)
    assert not router.states["flaky"].tripped  # 4 of 9: too few calls to judge, and under half
    router.on_outcome("flaky", Outcome.ERROR)  # 5 of 10
    assert router.states["flaky"].tripped and router.serving() == ["good"]
    await router.aclose()
