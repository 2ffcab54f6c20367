"""The bounded wait of the structure-later backlog (docs/adr/0031): a row pending longer than
``max_wait_s`` asks for a slot as a visitor would, one at a time per replica, so a desk that keeps
every slot busy cannot starve it."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from feedback_intelligence.config import WorkerSettings
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.gate.context import CallContext
from feedback_intelligence.gate.gate import LlmGate
from feedback_intelligence.gate.local import LocalSlotPool
from feedback_intelligence.gate.pooled import PooledSlotPool
from feedback_intelligence.gate.slots import Grant, Priority
from feedback_intelligence.instants.timestamps import format_instant
from feedback_intelligence.llm.testing import FakeBackend
from feedback_intelligence.prompting.runner import PromptRunner
from feedback_intelligence.records import StoredFeedback
from feedback_intelligence.services.channels import CORPUS, LIVE, Channel
from feedback_intelligence.store.feedback_store import FeedbackStore
from feedback_intelligence.structuring.service import StructuringResult, StructuringService
from feedback_intelligence.workers.structuring_worker import StructuringWorker
from tests.support.databases import migrated_url
from tests.support.later_rows import MODEL, PROPOSAL, later
from tests.support.waiting import wait_for


@pytest.fixture(scope="module")
def retail() -> Domain:
    return load_domain("retail")


@pytest.fixture
async def channels(tmp_path: Path) -> AsyncIterator[list[Channel]]:
    made = [Channel(name, FeedbackStore(migrated_url(tmp_path, f"{name}.db"), name=name)) for name in (LIVE, CORPUS)]
    for channel in made:
        await channel.store.migrate()
    yield made
    for channel in made:
        await channel.store.aclose()


def just_saved(id_: str) -> StoredFeedback:
    """A pending row saved a moment ago (the bound has not passed)."""
    return dataclasses.replace(later(id_, 0), created_at=format_instant(datetime.now(UTC)))


class RecordingStructuring:
    """Records each call's context; while ``hold`` is unset every call waits for it."""

    def __init__(self, hold: asyncio.Event | None = None) -> None:
        self.contexts: list[CallContext] = []
        self.hold = hold
        self.arrived = asyncio.Event()

    def background(self, route: str, preemptions: int) -> CallContext:
        return CallContext.background(route, preemptible=True)

    def overdue(self, route: str) -> CallContext:
        return CallContext.overdue(route)

    async def structure(self, text: str, context: CallContext) -> StructuringResult:
        self.contexts.append(context)
        self.arrived.set()
        if self.hold is not None:
            await self.hold.wait()
        return StructuringResult(MODEL, "{}", salvaged=False, normalized=False, retried=False)


def worker(retail: Domain, structuring: object, channels: list[Channel], **options: object) -> StructuringWorker:
    return StructuringWorker(
        retail, structuring, channels, WorkerSettings(**{"tasks": 1, "max_wait_s": None, **options})
    )  # type: ignore[arg-type]


async def test_a_row_past_the_bound_asks_as_a_visitor_and_a_fresh_one_as_background(
    retail: Domain, channels: list[Channel]
) -> None:
    await channels[0].insert(later("old", 1))  # saved yesterday
    await channels[0].insert(just_saved("new"))
    structuring = RecordingStructuring()
    w = worker(retail, structuring, channels, max_wait_s=60)
    assert await w.drain_once() is None
    assert await w.drain_once() is None
    old, new = structuring.contexts
    assert (old.priority, old.visitor, old.preemptible) == (Priority.INTERACTIVE, "overdue:structure-later", False)
    assert (new.priority, new.visitor) == (Priority.BACKGROUND, "background:structure-later")


async def test_without_a_bound_an_old_row_stays_background(retail: Domain, channels: list[Channel]) -> None:
    await channels[0].insert(later("old", 1))
    structuring = RecordingStructuring()
    assert await worker(retail, structuring, channels, max_wait_s=None).drain_once() is None
    assert structuring.contexts[0].priority is Priority.BACKGROUND


async def test_one_overdue_call_at_a_time_per_replica(retail: Domain, channels: list[Channel]) -> None:
    await channels[0].insert(later("a", 1))
    await channels[0].insert(later("b", 2))
    hold = asyncio.Event()
    structuring = RecordingStructuring(hold)
    w = worker(retail, structuring, channels, max_wait_s=60, tasks=2)
    first = asyncio.create_task(w.drain_once())
    await structuring.arrived.wait()
    second = asyncio.create_task(w.drain_once())
    await wait_for(lambda: _calls(structuring, 2), what="the second call")
    hold.set()
    await asyncio.gather(first, second)
    assert [c.priority for c in structuring.contexts] == [Priority.INTERACTIVE, Priority.BACKGROUND]
    # the first overdue call is over: the next overdue row may ask as a visitor again
    await channels[0].insert(later("c", 3))
    assert await w.drain_once() is None
    assert structuring.contexts[-1].priority is Priority.INTERACTIVE


async def _calls(structuring: RecordingStructuring, n: int) -> bool:
    return len(structuring.contexts) >= n


async def test_a_desk_that_keeps_every_slot_busy_no_longer_starves_the_backlog(
    retail: Domain, channels: list[Channel]
) -> None:
    """Over a real gate of two slots (one kept back from background work): two clerks hold both; the
    worker's call for an old row waits as a visitor, and the first slot a clerk frees goes to it, ahead
    of that clerk's next call. Without the bound the same row is shed as background work."""
    gate = LlmGate(
        PooledSlotPool.single(LocalSlotPool(2, background_reserve=1)), acquire_timeout_s=0.5, call_timeout_s=10.0
    )
    backend = FakeBackend(reply=json.dumps(MODEL.to_json(), ensure_ascii=False))
    structuring = StructuringService(PromptRunner(gate, backend), retail)
    await channels[0].insert(later("old", 1))

    let_go = [asyncio.Event(), asyncio.Event()]
    holding = [asyncio.Event(), asyncio.Event()]

    def clerk(n: int) -> asyncio.Task[str]:
        async def work(_grant: Grant) -> str:
            holding[n].set()
            await let_go[n].wait()
            return "interpreted"

        return asyncio.create_task(gate.run(work, CallContext.interactive(f"clerk-{n}", "interpret")))

    clerks = [clerk(0), clerk(1)]
    await asyncio.gather(*(h.wait() for h in holding))

    starved = worker(retail, structuring, channels, max_wait_s=None, poll_s=0.5)
    assert await starved.drain_once() == 0.5  # shed as background: both slots are the clerks'
    row = await channels[0].store.get("old")
    assert row is not None and row.pending and row.structure == PROPOSAL

    bounded = worker(retail, structuring, channels, max_wait_s=60, poll_s=0.5)
    drain = asyncio.create_task(bounded.drain_once())
    await wait_for(lambda: _waiting(gate), what="the overdue call to queue")
    # clerk 0 is done and asks again at once: it has been served, the backlog has not
    let_go[0].set()
    await clerks[0]

    async def again(_grant: Grant) -> str:
        return "interpreted again"

    next_call = asyncio.create_task(gate.run(again, CallContext.interactive("clerk-0", "interpret")))
    assert await drain is None
    row = await channels[0].store.get("old")
    assert row is not None and not row.pending and row.structure != PROPOSAL
    assert await next_call == "interpreted again"  # served next, within its wait
    let_go[1].set()
    await clerks[1]
    assert (await gate.occupancy()).in_use == 0


async def _waiting(gate: LlmGate) -> bool:
    return (await gate.occupancy()).waiting > 0


def test_the_contexts_name_their_share() -> None:
    overdue = CallContext.overdue("structure-later")
    assert overdue.visitor != CallContext.background("structure-later").visitor
    assert overdue.priority is Priority.INTERACTIVE and not overdue.preemptible
