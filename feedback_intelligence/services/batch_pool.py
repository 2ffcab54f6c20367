"""The batch pool (docs/adr/0074): worker processes that make a bulk import's rows, so the rules and the
derivation of a batch run outside the service's interpreter lock, on every core, and the event loop no
longer takes turns at that lock with them.

``FI_BATCH_PROCESSES`` workers (default: the usable cores; 0 or 1: no pool, a thread of the service as
before), started with ``spawn`` (the service has threads: a forked copy of a held lock would never be
released), when the first batch comes, and shut down with the service. Each worker loads the service's
domain once. A batch is split into one part per worker; each part goes as its commands and the batch's
instant and comes back as records and rows (``services/batch_work.py``). A worker that dies breaks the
pool: the batch it held is made in a thread of the service instead (logged) and the next batch starts a
new pool.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from datetime import datetime

from feedback_intelligence.domain.model import Domain
from feedback_intelligence.records import Derived, StoredFeedback
from feedback_intelligence.services import batch_work
from feedback_intelligence.services.batch_work import BatchWork, PreparedPart
from feedback_intelligence.services.ingest import IngestCommand
from feedback_intelligence.store.derived_rows import ReadyRows

log = logging.getLogger(__name__)

#: Fewer commands than this a part are not worth a worker's hand-over (pickling both ways, a wake-up).
MIN_PART = 100


@dataclass(frozen=True, slots=True)
class PreparedBatch:
    """A batch made: a record per command in order, and the rows of the first record of each id."""

    records: list[StoredFeedback]
    ready: ReadyRows


def split(commands: Sequence[IngestCommand], parts: int) -> list[list[IngestCommand]]:
    """At most ``parts`` runs of ``commands`` in order, as even as they go, none under MIN_PART unless alone."""
    count = max(1, min(parts, len(commands) // MIN_PART))
    size, extra = divmod(len(commands), count)
    runs, start = [], 0
    for n in range(count):
        end = start + size + (1 if n < extra else 0)
        runs.append(list(commands[start:end]))
        start = end
    return runs


def joined(parts: Sequence[PreparedPart]) -> PreparedBatch:
    """The parts as one batch: their records in order; of their rows, each id's first (a later one of the
    id, in the same or a later part, is a duplicate). Rows of workers that disagree on the derivation's
    ``rev`` name none, so the store makes them again."""
    derived: dict[str, Derived] = {}
    rows = []
    for part in parts:
        for row in part.ready.rows:
            if row["id"] not in derived:
                derived[row["id"]] = part.ready.derived[row["id"]]
                rows.append(row)
    revs = {part.ready.rev for part in parts}
    return PreparedBatch(
        [record for part in parts for record in part.records],
        ReadyRows(derived, rows, revs.pop() if len(revs) == 1 else ""),
    )


class BatchPool:
    """Worker processes for batches of one domain; :meth:`prepare` makes a batch's records and rows."""

    def __init__(self, domain: Domain, workers: int) -> None:
        self.domain = domain
        self.workers = workers
        self._executor: ProcessPoolExecutor | None = None
        self._here: BatchWork | None = None  # the same work in a thread, when the pool broke

    @property
    def enabled(self) -> bool:
        return self.workers >= 2

    def _pool(self) -> ProcessPoolExecutor:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                max_workers=self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=batch_work.load,
                initargs=(self.domain,),
            )
        return self._executor

    def _submit(
        self, pool: ProcessPoolExecutor, parts: list[list[IngestCommand]], at: datetime
    ) -> list[Future[PreparedPart]]:
        # in a thread: a submit may start a worker, which writes the pickled domain down a pipe until the
        # new process reads it (after its imports)
        return [pool.submit(batch_work.prepare, part, at) for part in parts]

    async def prepare(self, commands: Sequence[IngestCommand], at: datetime) -> PreparedBatch:
        """The records and rows of ``commands`` made by the workers, the rows' ``created_at`` ``at``."""
        parts = split(commands, self.workers)
        pool = self._pool()
        try:
            futures = await asyncio.to_thread(self._submit, pool, parts, at)
            return joined(await asyncio.gather(*map(asyncio.wrap_future, futures)))
        except BrokenProcessPool as exc:
            log.warning("a batch worker died (%s): this batch is made in the service, a new pool follows", exc)
            self._discard(pool)
            return joined(await asyncio.to_thread(self._prepare_here, parts, at))

    def _prepare_here(self, parts: list[list[IngestCommand]], at: datetime) -> list[PreparedPart]:
        if self._here is None:
            self._here = BatchWork(self.domain)
        return [self._here.prepare(part, at) for part in parts]

    def _discard(self, pool: ProcessPoolExecutor) -> None:
        """Drop a broken pool (the next batch starts a new one); its live workers are told to stop."""
        if self._executor is pool:
            self._executor = None
        pool.shutdown(wait=False, cancel_futures=True)

    def worker_pids(self) -> list[int]:
        """The pool's live worker processes (tests kill them and read their priority)."""
        # the executor keeps its processes by pid, not publicly
        processes = getattr(self._executor, "_processes", None) or {}
        return sorted(pid for pid, process in processes.items() if process.is_alive())

    async def aclose(self) -> None:
        executor, self._executor = self._executor, None
        if executor is not None:
            await asyncio.to_thread(executor.shutdown, wait=True, cancel_futures=True)
