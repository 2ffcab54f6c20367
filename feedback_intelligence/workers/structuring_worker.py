"""Structure later: drain the rows saved without the model, at background priority, on every replica.

The desk (or an import) saves an entry at once with the deterministic proposal as its structure and
``pending`` set; this worker later asks the model through the gate at BACKGROUND priority, so it
only ever takes a slot no clerk needs. The work lives in the store (store/structure_queue.py): a
claim is a lease, renewed while the call runs, that lapses if this process dies, so another replica
takes the row over; the conditional finish means a row is written by exactly one worker.

Outcomes per claimed row:

* the model's structure (guarded, with the category override and injection flags, as at ingest):
  stored, ``pending`` false, the channel's version ticks;
* a shed: the row goes back at once with its attempt refunded (not the item's fault), and this
  worker pauses for the gate's Retry-After;
* preempted (a clerk was waiting and this call held the newest background slot): the row goes back
  pending at once, the attempt refunded and its preemptions counted; from ``FI_LLM_PREEMPT_MAX``
  preemptions on its calls are no longer preempted (aging, docs/adr/0017);
* the backend down or still loading: the row goes back with its attempt refunded and waits for as
  long as the outage lasts (retried every ``retry_base_s``);
* any other failed call (an error answer, the deadline, a bug): the attempt counts, the row goes back
  after a back-off; after ``max_attempts`` it is settled ``structureFailed`` with the proposal kept
  and a note;
* two unusable replies: settled ``structureFailed`` at once (the model would say the same again).

The wait is bounded: a row pending longer than ``max_wait_s`` (``FI_STRUCTURE_MAX_WAIT_S``) asks as a
visitor would, under a fair share of its own, one such call at a time per replica (docs/adr/0031).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import uuid
from collections.abc import Sequence

from feedback_intelligence.config import WorkerSettings
from feedback_intelligence.deterministic.alerts import match_alerts
from feedback_intelligence.deterministic.category_override import finish_structure
from feedback_intelligence.deterministic.injection import detect_injection_signals, review_flags
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.instants.clock import SYSTEM_CLOCK, Clock
from feedback_intelligence.instants.timestamps import parse_normalized
from feedback_intelligence.llm.errors import LlmBusy, LlmFailure, LlmPreempted, LlmUnavailable, LlmWarming
from feedback_intelligence.metrics import Metrics
from feedback_intelligence.services.channels import Channel
from feedback_intelligence.services.ingest import failure_note
from feedback_intelligence.store.errors import StoreUnavailable
from feedback_intelligence.store.structure_queue import Claim, StructureQueue
from feedback_intelligence.structuring.service import StructuringService
from feedback_intelligence.workers.poll_loop import PollLoop

log = logging.getLogger(__name__)

STORE_FULL_BACKOFF = 15  # polls between tries while the disk is full (30 s at the default 2 s poll)

ROUTE = "structure-later"


def replica_name() -> str:
    return f"{socket.gethostname()[:24]}-{os.getpid()}"


class StructuringWorker:
    def __init__(
        self,
        domain: Domain,
        structuring: StructuringService,
        channels: Sequence[Channel],
        options: WorkerSettings,
        metrics: Metrics | None = None,
        *,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        self.domain = domain
        self.structuring = structuring
        self.clock = clock  # its pauses, the leases' expiry, and how long a row has waited
        self.queues = [(channel, StructureQueue(channel.store, clock)) for channel in channels]
        self.options = options
        self.metrics = metrics
        self.replica = replica_name()
        self._poll = PollLoop(
            "structure-later",
            lambda _index: self.drain_once(),
            tasks=options.tasks,
            poll_s=options.poll_s,
            log=log,
            full_disk_pause_s=options.poll_s * STORE_FULL_BACKOFF,
            clock=clock,
        )
        self._overdue_in_flight = False  # at most one overdue call at a time in this replica

    # -- lifecycle ---------------------------------------------------------------------------------

    def start(self) -> None:
        self._poll.start()

    async def stop(self) -> None:
        """Cancel the calls in flight; their rows are released (or simply lapse) for another replica."""
        await self._poll.stop()

    def wake(self) -> None:
        """A row was just saved for later here: look now rather than at the next poll."""
        self._poll.wake()

    # -- the loop ----------------------------------------------------------------------------------

    async def drain_once(self) -> float | None:
        """Claim and settle one row, from the first channel that has one (the runtime lists the live desk
        first, so a large ``load --later`` import never delays a clerk's entry); returns how long to
        pause (None: go on at once)."""
        for channel, queue in self.queues:
            claim = await queue.claim(f"{self.replica}-{uuid.uuid4().hex[:12]}", self.options.lease_s)
            if claim is not None:
                return await self._settle(channel, queue, claim)
        return self.options.poll_s

    async def _settle(self, channel: Channel, queue: StructureQueue, claim: Claim) -> float | None:
        item = claim.item
        if item.structure_attempts > self.options.max_attempts:  # e.g. it crashed replicas before
            await self._give_up(queue, claim, f"structuring gave up after {self.options.max_attempts} attempts")
            return None
        renewer = asyncio.create_task(self._renew(queue, claim))
        overdue = self._is_overdue(item.created_at)
        if overdue:
            self._overdue_in_flight = True
            self._count("overdue")
        try:
            if overdue:
                context = self.structuring.overdue(ROUTE)
            else:
                context = self.structuring.background(ROUTE, item.structure_preemptions)
            result = await self.structuring.structure(item.text, context)
        except LlmPreempted as preempted:
            await queue.release(claim, retry_in_s=0, refund_attempt=True, preempted=True)
            self._count("preempted")
            return float(min(preempted.retry_after_s, self.options.poll_s))  # a clerk is busy: as after a shed
        except LlmBusy as busy:
            await queue.release(claim, retry_in_s=0, refund_attempt=True)
            self._count("shed")
            return float(min(busy.retry_after_s, self.options.poll_s))
        except (LlmUnavailable, LlmWarming) as outage:
            # The backend is down or loading: not the item's fault, so no attempt is spent; the row
            # waits (pending, nothing lost) however long the outage lasts.
            log.info("structure-later: the model is not answering (%s); %s waits", outage.public, item.id)
            await queue.release(claim, retry_in_s=self.options.retry_base_s, refund_attempt=True)
            self._count("outage")
            return self.options.retry_base_s
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await asyncio.shield(queue.release(claim, retry_in_s=0, refund_attempt=True))
            raise
        except Exception as exc:
            log.log(
                logging.WARNING if isinstance(exc, LlmFailure) else logging.ERROR,
                "structure-later: %s attempt %d failed: %s",
                item.id,
                item.structure_attempts,
                exc,
                exc_info=not isinstance(exc, LlmFailure),
            )
            if item.structure_attempts >= self.options.max_attempts:
                await self._give_up(queue, claim, failure_note(exc))
            else:
                backoff = min(300.0, self.options.retry_base_s * 2 ** (item.structure_attempts - 1))
                await queue.release(claim, retry_in_s=backoff, refund_attempt=False)
                self._count("retry")
            return None
        finally:
            renewer.cancel()
            if overdue:
                self._overdue_in_flight = False

        alerts = match_alerts(item.text, self.domain)
        if result.structure is None:  # two unusable replies: the proposal stays, marked failed
            structure, failed = item.structure, True
        else:
            structure, failed = result.structure, False
        structure = finish_structure(item.text, structure, alerts, self.domain)
        flags = review_flags(detect_injection_signals(item.text), structure)
        version = await queue.finish(
            claim,
            structure,
            structure_failed=failed,
            salvage_notes=result.notes,
            needs_review=bool(flags),
            review_flags=flags,
        )
        self._count("lost" if version is None else ("failed" if failed else "structured"))
        return None

    async def _give_up(self, queue: StructureQueue, claim: Claim, note: str) -> None:
        item = claim.item
        version = await queue.finish(
            claim,
            item.structure,
            structure_failed=True,
            salvage_notes=[note],
            needs_review=item.needs_review,
            review_flags=item.review_flags,
        )
        self._count("lost" if version is None else "gave_up")

    async def _renew(self, queue: StructureQueue, claim: Claim) -> None:
        """Keep the lease while the call runs; a replica that dies stops renewing and the lease lapses."""
        while True:
            await self.clock.sleep(self.options.lease_s / 3)
            try:
                renewed = await queue.renew(claim, self.options.lease_s)
            except StoreUnavailable:
                continue
            if renewed is None:
                log.warning("structure-later: lost the lease on %s; another worker owns it now", claim.item.id)
                return

    def _is_overdue(self, created_at: str) -> bool:
        """Whether a row saved at ``created_at`` has waited past the bound, and this replica has no
        overdue call in flight already (one at a time: the clerks lose at most one slot to it)."""
        if self.options.max_wait_s is None or self._overdue_in_flight:
            return False
        waited = (self.clock.now() - parse_normalized(created_at)).total_seconds()
        return waited > self.options.max_wait_s

    def _count(self, outcome: str) -> None:
        if self.metrics is not None:
            self.metrics.structure_later.labels(outcome).inc()

    # -- what the operator sees ----------------------------------------------------------------------

    async def backlog(self) -> dict[str, dict[str, float | int | None]]:
        """Per channel: rows still due, the oldest one's age in seconds, the rows the workers finished a
        minute over the last ten, and the minutes left at that pace (None: no pace measured yet)."""
        out: dict[str, dict[str, float | int | None]] = {}
        for channel, queue in self.queues:
            backlog = await queue.backlog()
            out[channel.name] = {
                "items": backlog.items,
                "oldestAgeSeconds": round(backlog.oldest_age_s(self.clock.now()), 1),
                "rowsPerMinute": round(backlog.rows_per_minute, 1),
                "minutesLeft": backlog.minutes_left,
            }
        return out
