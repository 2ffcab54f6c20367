"""A backfill and the model (ADR 0063): without the model asked, its rows keep the rules' structures and
nothing waits; asked, they wait for the structure-later worker, whose calls are background work a clerk's
interpret is admitted ahead of. The time left is rows waiting over the pace measured in the window, and
every theme the model changes is noted in the item's history and counted."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from feedback_intelligence.config import WorkerSettings
from feedback_intelligence.domain.loader import load_domain
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.gate.slots import Grant, Priority
from feedback_intelligence.instants.clock import ManualClock
from feedback_intelligence.instants.timestamps import format_instant
from feedback_intelligence.llm.backend import CompletionRequest
from feedback_intelligence.llm.testing import FakeBackend
from feedback_intelligence.services.channels import CORPUS, LIVE, Channel
from feedback_intelligence.services.ingest import IngestCommand, IngestService
from feedback_intelligence.store import audit
from feedback_intelligence.store.feedback_store import FeedbackStore
from feedback_intelligence.store.structure_queue import RATE_WINDOW_S, Backlog, StructureQueue
from feedback_intelligence.structuring.service import StructuringService
from feedback_intelligence.workers.structuring_worker import StructuringWorker
from tests.structuring.fakes import make_runner
from tests.support.calls import call
from tests.support.databases import migrated_url
from tests.support.later_rows import MODEL, PROPOSAL, later

TEXTS = ["Kassajono oli pitkä ja vain yksi kassa auki.", "Leipä oli homeessa.", "Henkilökunta oli ystävällistä."]


@pytest.fixture(scope="module")
def retail() -> Domain:
    return load_domain("retail")


@pytest.fixture
async def channels(tmp_path: Path) -> AsyncIterator[dict[str, Channel]]:
    made = {n: Channel(n, FeedbackStore(migrated_url(tmp_path, f"{n}.db"), name=n)) for n in (CORPUS, LIVE)}
    for channel in made.values():
        await channel.store.migrate()
    yield made
    for channel in made.values():
        await channel.store.aclose()


def commands(prefix: str) -> list[IngestCommand]:
    return [
        IngestCommand("web_form", text, "2026-09-06T05:30:19Z", id=f"{prefix}{n}", structure_later=True)
        for n, text in enumerate(TEXTS)
    ]


async def test_a_backfill_keeps_the_rules_structures_and_the_model_only_works_when_asked(
    retail: Domain, channels: dict[str, Channel]
) -> None:
    started, cancelled = asyncio.Event(), asyncio.Event()

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
    structuring = StructuringService(runner, retail)
    ingest = IngestService(retail, structuring)
    corpus = channels[CORPUS]

    rules = await ingest.ingest_batch(corpus, commands("r"), history=True, by_model=False)
    assert [o.result for o in rules] == ["stored"] * 3
    for outcome in rules:
        row = await corpus.store.get(outcome.record.id)
        assert row is not None and not row.pending and row.structure is not None and row.structure.theme
    assert (await StructureQueue(corpus.store).backlog()).items == 0  # nothing waits for the model

    await ingest.ingest_batch(corpus, commands("m"), history=True, by_model=True)
    assert (await StructureQueue(corpus.store).backlog()).items == 3
    options = WorkerSettings(tasks=1, max_attempts=3, poll_s=1.0, max_wait_s=None)
    w = StructuringWorker(retail, structuring, [channels[LIVE], corpus], options)
    drain = asyncio.create_task(w.drain_once())
    await started.wait()  # the worker's call holds the only slot, at background priority

    async def clerk(_grant: Grant) -> str:
        return "interpreted"

    # the clerk's press is admitted at once: the backfill's call gives its slot up (ADR 0017)
    assert await runner.gate.run(clerk, call(runner.gate, Priority.INTERACTIVE, "interpret")) == "interpreted"
    assert cancelled.is_set()
    await drain
    assert (await StructureQueue(corpus.store).backlog()).items == 3  # the row went back, nothing lost
    assert len(backend.requests) == 1  # the one call the clerk preempted


def test_the_time_left_is_the_rows_waiting_over_the_measured_pace() -> None:
    # 30 rows finished in the last 10 minutes: 3 a minute; 120 waiting: 40 minutes
    backlog = Backlog(120, None, finished_recently=30, window_s=600)
    assert (backlog.rows_per_minute, backlog.minutes_left) == (3.0, 40)
    assert Backlog(7, None, finished_recently=3, window_s=600).minutes_left == 24  # 7 / 0.3 = 23.3, rounded up
    assert Backlog(5, None, finished_recently=0).minutes_left is None  # no pace measured: unknown, not "0"
    assert Backlog(0, None, finished_recently=0).minutes_left == 0


async def test_the_pace_is_measured_from_the_rows_the_workers_finished_in_the_window(tmp_path: Path) -> None:
    clock = ManualClock()
    store = FeedbackStore(migrated_url(tmp_path), name=CORPUS, clock=clock)
    await store.migrate()
    try:
        for n in range(10):
            await store.insert(later(f"b{n}", n))
        queue = StructureQueue(store, clock)
        began = format_instant(clock.now())
        for n in range(4):
            claim = await queue.claim(f"w{n}", lease_s=30)
            assert claim is not None
            done = dict(structure_failed=False, salvage_notes=[], needs_review=False, review_flags=[])
            await queue.finish(claim, MODEL, **done)  # type: ignore[arg-type]
            clock.advance(60)
        backlog = await queue.backlog()
        assert (backlog.items, backlog.finished_recently) == (6, 4)
        assert (backlog.rows_per_minute, backlog.minutes_left) == (0.4, 15)  # 4 in 10 min; 6 / 0.4
        clock.advance(RATE_WINDOW_S)  # the window passed with nothing finished: no pace to go by
        stale = await queue.backlog()
        assert (stale.items, stale.finished_recently, stale.minutes_left) == (6, 0, None)
        # each theme the model changed is in the item's history, and counted from an instant
        async with store.engine.connect() as conn:
            history = await audit.for_item(conn, "b0")
        assert [(e.action, e.field, e.old_value, e.new_value) for e in history] == [
            (audit.REFINED, "theme", PROPOSAL.theme, MODEL.theme)
        ]
        assert await queue.refined_since(began, None) == 4
        assert await queue.refined_since(format_instant(clock.now()), None) == 0
        assert await queue.refined_since(began, frozenset({"hki-1"})) == 0  # rows without a store: the chain's
    finally:
        await store.aclose()
