"""A batch's rows made as the pool's workers make them (services/batch_work.py, docs/adr/0074), here in
process: the same records and rows as the service's own rules and the store's ``rows_of``; a split batch
joined keeps each id's first; the store takes ready rows only of its own derivation."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy import select

from feedback_intelligence.derivation import DomainDeriver
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.instants.clock import ManualClock
from feedback_intelligence.services.batch_pool import MIN_PART, joined, split
from feedback_intelligence.services.batch_work import BatchWork
from feedback_intelligence.services.ingest import IngestService, first_of_each
from feedback_intelligence.store.derived_rows import ReadyRows, rows_of
from feedback_intelligence.store.feedback_store import FeedbackStore
from feedback_intelligence.store.schema import feedback
from tests.services.batches import eval_and_demo_batch
from tests.support.databases import migrated_url


def test_a_worker_makes_the_records_and_rows_the_service_and_the_store_make(retail: Domain) -> None:
    clock = ManualClock()
    commands = eval_and_demo_batch(retail, "w")
    records = IngestService(retail, None, clock=clock).record_many(commands)  # type: ignore[arg-type]
    _, unique = first_of_each(records)
    derived, rows = rows_of(unique, DomainDeriver(retail))

    made = BatchWork(retail).prepare(commands, clock.now())

    assert made.records == records
    assert made.ready.rows == rows
    assert made.ready.derived == derived
    assert len(rows) == len(commands) - 2  # two ids taken twice


def test_a_split_batch_joined_is_the_batch_made_whole(retail: Domain) -> None:
    clock = ManualClock()
    commands = eval_and_demo_batch(retail, "j")
    work = BatchWork(retail)
    parts = split(commands, 3)

    whole = work.prepare(commands, clock.now())
    each = joined([work.prepare(part, clock.now()) for part in parts])

    assert [c for part in parts for c in part] == commands
    assert len(parts) == 3 and all(len(part) >= MIN_PART for part in parts)
    assert each.records == whole.records
    assert each.ready == whole.ready
    assert split(commands[: MIN_PART + 1], 8) == [commands[: MIN_PART + 1]]


def test_parts_whose_workers_disagree_on_the_derivation_name_no_rev(retail: Domain) -> None:
    work = BatchWork(retail)
    commands = eval_and_demo_batch(retail, "r")[:20]
    one, two = work.prepare(commands[:10], ManualClock().now()), work.prepare(commands[10:], ManualClock().now())
    other = replace(two, ready=replace(two.ready, rev="d0-other"))

    assert joined([one, two]).ready.rev == work.deriver.rev
    assert joined([one, other]).ready.rev == ""


@pytest.mark.parametrize("own_rev", [True, False])
async def test_the_store_takes_ready_rows_only_of_its_own_derivation(
    retail: Domain, tmp_path: Path, own_rev: bool
) -> None:
    deriver = DomainDeriver(retail)
    store = FeedbackStore(migrated_url(tmp_path), derive=deriver)
    await store.migrate()
    try:
        made = BatchWork(retail).prepare(eval_and_demo_batch(retail, "s")[5:8], ManualClock().now())
        rows = [{**row, "theme_base": "from the worker"} for row in made.ready.rows]
        ready = ReadyRows(made.ready.derived, rows, deriver.rev if own_rev else "d0-other")

        await store.insert_batch(made.records, ready=ready)

        async with store.engine.connect() as conn:
            themes = set((await conn.scalars(select(feedback.c.theme_base))).all())
        assert (themes == {"from the worker"}) is own_rev
        with pytest.raises(ValueError, match="not the records' rows"):
            await store.insert_batch(made.records[:1], ready=ReadyRows(made.ready.derived, rows[1:2], deriver.rev))
    finally:
        await store.aclose()
