"""The structure-later worker in-process, on real SQLite stores, with a scripted structuring step:
which row goes first, what a shed or a crash-looping row costs, and what the worker writes."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from feedback_intelligence.config import WorkerSettings
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.gate.context import CallContext
from feedback_intelligence.gate.slots import Grant, Priority
from feedback_intelligence.instants.clock import now_ms
from feedback_intelligence.llm.backend import CompletionRequest
from feedback_intelligence.llm.errors import LlmBusy, LlmPreempted
from feedback_intelligence.llm.testing import FakeBackend
from feedback_intelligence.records import Structure
from feedback_intelligence.services.channels import CORPUS, LIVE, Channel
from feedback_intelligence.store.feedback_store import FeedbackStore
from feedback_intelligence.store.structure_queue import StructureQueue
from feedback_intelligence.structuring.service import StructuringResult, StructuringService
from feedback_intelligence.workers.structuring_worker import StructuringWorker
from tests.structuring.fakes import make_runner
from tests.support.calls import call
from tests.support.databases import migrated_url
from tests.support.later_rows import MODEL, PROPOSAL, later

PREEMPT_MAX = 2


class ScriptedStructuring:
    """Answers each call from a script (a structure, or an exception to raise) and records the texts."""

    def __init__(self, *answers: Structure | Exception) -> None:
        self.answers = list(answers)
        self.calls: list[tuple[str, Priority]] = []
        self.preempted: list[int] = []  # the item's preemptions handed to each call (aging)
        self.preemptible: list[bool] = []  # what the worker's context said of each call

    def background(self, route: str, preemptions: int) -> CallContext:
        self.preempted.append(preemptions)
        return CallContext.background(route, preemptible=preemptions < PREEMPT_MAX)

    async def structure(self, text: str, context: CallContext) -> StructuringResult:
        self.calls.append((text, context.priority))
        self.preemptible.append(context.preemptible)
        answer = self.answers.pop(0) if self.answers else MODEL
        if isinstance(answer, Exception):
            raise answer
        return StructuringResult(answer, "{}", salvaged=False, normalized=False, retried=False)


@pytest.fixture(scope="module")
def retail() -> Domain:
    return load_domain("retail")


@pytest.fixture
async def channels(tmp_path: Path) -> AsyncIterator[dict[str, Channel]]:
    made = {
        name: Channel(name, FeedbackStore(migrated_url(tmp_path, f"{name}.db"), name=name)) for name in (CORPUS, LIVE)
    }
    for channel in made.values():
        await channel.store.migrate()
    yield made
    for channel in made.values():
        await channel.store.aclose()


def worker(
    retail: Domain, structuring: ScriptedStructuring, channels: dict[str, Channel], **options: object
) -> StructuringWorker:
    return StructuringWorker(
        retail,
        structuring,
        [channels[LIVE], channels[CORPUS]],  # type: ignore[arg-type]
        WorkerSettings(**{"tasks": 1, "max_attempts": 3, "max_wait_s": None, **options}),
    )  # type: ignore[arg-type]


async def test_the_desks_rows_go_before_an_older_import_and_each_is_settled_at_background_priority(
    retail: Domain,
    channels: dict[str, Channel],
) -> None:
    await channels[CORPUS].insert(later("import-1", 1))
    await channels[LIVE].insert(later("desk-1", 9))
    structuring = ScriptedStructuring()
    w = worker(retail, structuring, channels)
    version = await channels[LIVE].version()

    assert await w.drain_once() is None
    assert await w.drain_once() is None
    assert [text.rsplit(" ", 1)[1] for text, _ in structuring.calls] == ["desk-1", "import-1"]
    assert {priority for _, priority in structuring.calls} == {Priority.BACKGROUND}
    desk = await channels[LIVE].store.get("desk-1")
    assert desk is not None and not desk.pending and desk.structure is not None and desk.structure != PROPOSAL
    assert await channels[LIVE].version() == version + 1  # the live channel ticked
    assert await w.drain_once() == w.options.poll_s  # nothing left: pause


async def test_a_shed_gives_the_row_back_with_its_attempt_refunded(
    retail: Domain,
    channels: dict[str, Channel],
) -> None:
    await channels[LIVE].insert(later("a", 1))
    structuring = ScriptedStructuring(LlmBusy("gate_busy", retry_after_s=3), MODEL)
    w = worker(retail, structuring, channels, poll_s=1.0)
    assert await w.drain_once() == 1.0  # paused for min(Retry-After, poll)
    row = await channels[LIVE].store.get("a")
    assert row is not None and row.pending and row.structure_attempts == 0
    assert await w.drain_once() is None
    row = await channels[LIVE].store.get("a")
    assert row is not None and not row.pending and row.structure_attempts == 1


async def test_a_row_that_crashed_replicas_beyond_the_bound_is_settled_without_another_call(
    retail: Domain,
    channels: dict[str, Channel],
) -> None:
    await channels[LIVE].insert(later("poison", 1))
    queue = StructureQueue(channels[LIVE].store)
    for n in range(3):  # three replicas died holding it; their leases (in the past here) lapsed
        assert await queue.claim(f"dead-{n}", lease_s=0.5, at_ms=now_ms() - 10_000 + n * 1000) is not None
    structuring = ScriptedStructuring()
    w = worker(retail, structuring, channels)
    assert await w.drain_once() is None
    assert structuring.calls == []
    settled = await channels[LIVE].store.get("poison")
    assert settled is not None and not settled.pending and settled.structure_failed
    assert settled.structure == PROPOSAL and "gave up" in settled.salvage_notes[0]


async def test_a_preempted_row_goes_back_pending_with_its_attempt_refunded_and_its_preemption_counted(
    retail: Domain,
    channels: dict[str, Channel],
) -> None:
    await channels[LIVE].insert(later("a", 1))
    structuring = ScriptedStructuring(LlmPreempted(retry_after_s=3), LlmPreempted(), MODEL)
    w = worker(retail, structuring, channels, poll_s=1.0)
    assert await w.drain_once() == 1.0  # a clerk is busy: paused as after a shed
    row = await channels[LIVE].store.get("a")
    assert row is not None and row.pending and not row.structure_failed
    assert row.structure_attempts == 0 and row.structure_preemptions == 1 and row.structure == PROPOSAL
    assert await w.drain_once() == 1.0
    assert await w.drain_once() is None
    row = await channels[LIVE].store.get("a")
    assert row is not None and not row.pending and not row.structure_failed and row.structure_attempts == 1
    assert structuring.preempted == [0, 1, 2]
    assert structuring.preemptible == [True, True, False]  # not offered again from FI_LLM_PREEMPT_MAX on


async def test_a_clerk_preempts_the_workers_call_and_the_row_is_structured_exactly_once_later(
    retail: Domain,
    channels: dict[str, Channel],
) -> None:
    """Over a real gate: the worker's backend call is cancelled for a clerk, the row stays pending (not
    failed), and the next drain structures it with one more backend call."""
    await channels[LIVE].insert(later("a", 1))
    started = asyncio.Event()
    cancelled = asyncio.Event()

    async def held_until_cancelled(_request: CompletionRequest) -> str:
        started.set()
        try:
            await asyncio.Event().wait()  # only a cancellation ends it
        except asyncio.CancelledError:
            cancelled.set()
            raise
        raise AssertionError("unreachable")

    backend = FakeBackend(held_until_cancelled, json.dumps(MODEL.to_json(), ensure_ascii=False))
    runner = make_runner(backend, slots=1, acquire_timeout_s=2.0)
    w = StructuringWorker(
        retail,
        StructuringService(runner, retail),
        [channels[LIVE], channels[CORPUS]],
        WorkerSettings(tasks=1, max_attempts=3, poll_s=1.0, max_wait_s=None),
    )
    drain = asyncio.create_task(w.drain_once())
    await started.wait()

    async def clerk(_grant: Grant) -> str:
        return "interpreted"

    assert await runner.gate.run(clerk, call(runner.gate, Priority.INTERACTIVE, "interpret")) == "interpreted"
    assert cancelled.is_set()
    assert await drain == 1.0
    row = await channels[LIVE].store.get("a")
    assert row is not None and row.pending and not row.structure_failed and row.structure == PROPOSAL
    assert row.structure_attempts == 0 and row.structure_preemptions == 1

    assert await w.drain_once() is None
    row = await channels[LIVE].store.get("a")
    assert row is not None and not row.pending and not row.structure_failed and row.structure != PROPOSAL
    assert len(backend.requests) == 2  # the cancelled call and the one that structured it
    assert await w.drain_once() == w.options.poll_s  # nothing left to structure
    assert (await runner.gate.occupancy()).in_use == 0
