"""A batch's per-row CPU work, plain data in and plain data out: the rules of every command
(``IngestService.record_many``) and the rows the store writes of them (``rows_of``: the derivation and the
row). It runs in a worker process of the batch pool (``services/batch_pool.py``, docs/adr/0074), or in a
thread of the service when the pool broke; the same code either way, so a row is the same either way.

A worker loads the domain once (:func:`load`, the pool's initializer); :func:`prepare` then takes a part of
a batch (its commands, the batch's instant) and gives back its records and their rows.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from feedback_intelligence.derivation import DomainDeriver
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.records import StoredFeedback
from feedback_intelligence.services.ingest import IngestCommand, IngestService, first_of_each
from feedback_intelligence.store.derived_rows import ReadyRows, rows_of
from feedback_intelligence.text import morphology
from feedback_intelligence.text.language import warm as warm_language_detection


@dataclass(frozen=True, slots=True)
class PreparedPart:
    """A part of a batch made: a record per command in order, and the rows of the first record of each id."""

    records: list[StoredFeedback]
    ready: ReadyRows


class BatchInstant:
    """The batch's one instant (its rows' ``created_at``, the timestamp of an item that names none): read
    once by the service and handed over, as a worker has no clock of the service's."""

    def __init__(self, at: datetime) -> None:
        self.at = at

    def now(self) -> datetime:
        return self.at

    def monotonic(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class BatchWork:
    """The domain's rules and deriver, built once per process."""

    def __init__(self, domain: Domain) -> None:
        self.domain = domain
        self.deriver = DomainDeriver(domain)

    def prepare(self, commands: Sequence[IngestCommand], at: datetime) -> PreparedPart:
        # a service per part: its clock is the batch's instant; a batch never reaches the model
        service = IngestService(self.domain, None, clock=BatchInstant(at))  # type: ignore[arg-type]
        records = service.record_many(commands)
        _, unique = first_of_each(records)
        derived, rows = rows_of(unique, self.deriver)
        return PreparedPart(records, ReadyRows(derived, rows, self.deriver.rev))


#: A worker's CPU priority below the service's: on a busy core the event loop (the desks' requests) and
#: the batch's transaction go first. A thread could not be lowered so (ADR 0043: it held the loop's lock);
#: a process shares no lock with the loop.
WORKER_NICENESS = 10

_work: BatchWork | None = None


def load(domain: Domain) -> None:
    """A worker's initializer: a lower CPU priority, then the domain (the service's own, pickled), the
    language models and Voikko, once, so no batch pays for them."""
    global _work
    os.nice(WORKER_NICENESS)
    _work = BatchWork(domain)
    warm_language_detection(domain.detection_languages)
    morphology.warm()


def prepare(commands: Sequence[IngestCommand], at: datetime) -> PreparedPart:
    """In a worker: :meth:`BatchWork.prepare` with the domain :func:`load` loaded."""
    if _work is None:
        raise RuntimeError("the batch worker was started without its domain (batch_work.load)")
    return _work.prepare(commands, at)
