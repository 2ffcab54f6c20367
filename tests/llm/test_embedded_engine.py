"""The embedded backend's engines as real child processes: built portably, killed, restarted, stopped."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from feedback_intelligence.llm.backend import ChatMessage, CompletionRequest, Readiness
from feedback_intelligence.llm.embedded import EmbeddedBackend
from feedback_intelligence.llm.engine.llama_engine import system_info
from feedback_intelligence.llm.engine.supervisor import RestartPolicy
from feedback_intelligence.llm.errors import LlmEngineCrashed, LlmUnavailable, LlmWarming
from feedback_intelligence.metrics import Metrics
from tests.support.waiting import wait_for

pytestmark = pytest.mark.embedded

STORY = CompletionRequest(
    [ChatMessage("user", "Write a long story about a cat who runs a small shop.")], max_tokens=400
)
PING = CompletionRequest([ChatMessage("user", "ping")], max_tokens=2)
QUICK = RestartPolicy(first_delay_s=0.05, max_delay_s=0.2, crash_loop_after=3)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:  # a zombie is not a live engine
        return stat.read().split(") ")[1][0] != "Z"


@pytest.fixture
async def backend() -> AsyncIterator[EmbeddedBackend]:
    made = EmbeddedBackend(None, slots=1, metrics=Metrics(), policy=QUICK)
    await made.start()
    await made.wait_loaded()
    yield made
    await made.aclose()


def test_the_installed_engine_is_the_portable_build() -> None:
    info = system_info()
    features = {
        name.strip(): value.strip() for name, _, value in (p.partition("=") for p in info.split("|")) if value.strip()
    }
    assert not [name for name, on in features.items() if on == "1" and ("AMX" in name or "AVX512" in name)], info
    assert not [name for name, on in features.items() if on == "1" and name in ("AVX_VNNI", "AVX512_BF16")], info
    if os.uname().machine in ("x86_64", "amd64"):
        assert {features.get(name) for name in ("AVX", "AVX2", "FMA", "F16C")} == {"1"}, info


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGSEGV])
async def test_an_engine_killed_during_a_call_fails_that_call_and_comes_back(
    backend: EmbeddedBackend, sig: signal.Signals
) -> None:
    pid = backend.engines()[0].pid
    assert pid is not None
    os.kill(pid, signal.SIGSTOP)  # frozen mid-call: the call is certainly in flight when the signal lands
    call = asyncio.create_task(backend.complete(STORY))
    await asyncio.sleep(0)
    os.kill(pid, sig)
    os.kill(pid, signal.SIGCONT)
    with pytest.raises(LlmEngineCrashed):
        await call
    row = backend.engines()[0]
    assert row.restarts == 1 and row.last_exit == f"killed by {sig.name}"

    async def back() -> bool:
        return backend.engines()[0].state == "running"

    await wait_for(back, timeout_s=60, what="the engine to restart")
    new = backend.engines()[0]
    assert new.pid != pid and new.rss_bytes and new.rss_bytes > 10 * 2**20
    assert (await backend.complete(PING)).completion_tokens >= 1
    assert backend.metrics is not None
    assert backend.metrics.engine_restarts.labels("default", "engine-0", sig.name)._value.get() == 1


async def test_while_its_only_engine_restarts_a_call_fails_at_once_instead_of_waiting(backend: EmbeddedBackend) -> None:
    pid = backend.engines()[0].pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)

    async def restarting() -> bool:
        return backend.engines()[0].state == "restarting"

    await wait_for(restarting, timeout_s=10, what="the supervisor to see the exit")
    with pytest.raises(LlmWarming, match="restarting"):
        await backend.complete(PING)
    assert await backend.readiness() in (Readiness.WARMING, Readiness.READY)


async def test_a_cancelled_call_stops_its_engine_at_the_next_token_and_the_engine_serves_again(
    backend: EmbeddedBackend,
) -> None:
    started = asyncio.Event()
    child = backend._engines[0].child
    assert child is not None
    original = child.complete

    async def watched(request, **kwargs):  # type: ignore[no-untyped-def]
        return await original(request, on_started=started.set, **kwargs)

    child.complete = watched  # type: ignore[method-assign]
    call = asyncio.create_task(backend.complete(STORY))
    await started.wait()
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    # Handed out again only once the child has really stopped; the next call is answered, not queued.
    reply = await asyncio.wait_for(backend.complete(PING), 30)
    assert reply.completion_tokens >= 1


async def test_a_corrupt_gguf_is_a_crash_loop_reported_with_its_cause_not_a_dead_service(tmp_path: Path) -> None:
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"GGUF" + os.urandom(4096))
    made = EmbeddedBackend(str(bad), slots=1, metrics=Metrics(), policy=QUICK)
    await made.start()
    try:

        async def looping() -> bool:
            return made.engines()[0].state == "crash_loop"

        await wait_for(looping, timeout_s=60, what="the crash loop to be named")
        row = made.engines()[0]
        assert row.reason is not None and "could not start" in row.reason and "FI_LLM_MODEL" in row.reason
        assert await made.readiness() is Readiness.DOWN
        with pytest.raises(LlmUnavailable, match="crash loop"):
            await made.complete(PING)
        assert made.metrics is not None
        assert made.metrics.engine_crash_loop.labels("default", "engine-0")._value.get() == 1
    finally:
        await made.aclose()


async def test_closing_the_backend_leaves_no_engine_process() -> None:
    made = EmbeddedBackend(None, slots=2, policy=QUICK)
    await made.start()
    await made.wait_loaded()
    pids = [row.pid for row in made.engines()]
    assert all(pids)
    await made.aclose()
    assert not [pid for pid in pids if pid and alive(pid)]
