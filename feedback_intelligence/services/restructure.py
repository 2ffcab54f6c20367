"""Operator batch: re-structure the live channel's rows that lack a usable structure.

Runs at background priority, one item at a time, so it only ever uses a slot that a live
visitor does not need; a shed stops the pass, and the work done before it is kept. A call preempted
by a waiting visitor is asked again for the same row (its preemptions counted, so from
``FI_LLM_PREEMPT_MAX`` on it is not preempted again); if that is shed, the pass stops with the row
untouched, and the next pass takes it up.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from feedback_intelligence.deterministic.alerts import match_alerts
from feedback_intelligence.deterministic.category_override import finish_structure
from feedback_intelligence.deterministic.injection import detect_injection_signals, review_flags
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.llm.errors import LlmBusy, LlmFailure, LlmPreempted
from feedback_intelligence.records import AlertHit, StoredFeedback
from feedback_intelligence.services.channels import Channel
from feedback_intelligence.services.ingest import failure_note
from feedback_intelligence.structuring.service import StructuringResult, StructuringService

log = logging.getLogger(__name__)


@dataclass(slots=True)
class RestructureOutcome:
    restructured: int = 0
    failed: int = 0
    alerts_updated: int = 0
    total: int = 0

    @property
    def skipped(self) -> int:
        return self.total - self.restructured - self.failed

    def to_json(self) -> dict[str, int]:
        return {
            "restructured": self.restructured,
            "failed": self.failed,
            "skipped": self.skipped,
            "alertsUpdated": self.alerts_updated,
            "total": self.total,
        }


class RestructureInterrupted(Exception):
    """The gate shed the pass part-way; ``outcome`` holds what was done (and kept) before."""

    def __init__(self, outcome: RestructureOutcome, busy: LlmBusy) -> None:
        self.outcome = outcome
        self.busy = busy
        super().__init__(str(busy))


class RestructureService:
    """The operator's pass over a channel: re-structure rows without a usable structure, re-apply the override.

    Works at background priority, one row at a time, at most ``limit`` rows. A shed ends the pass with
    :class:`RestructureInterrupted`, which carries what was done so far (kept); an item whose LLM call
    fails is counted as failed and the pass goes on.
    """

    def __init__(self, domain: Domain, structuring: StructuringService, limit: int = 500) -> None:
        self.domain = domain
        self.structuring = structuring
        self.limit = limit

    def _needs_pass(self, item: StoredFeedback) -> bool:
        s = item.structure
        return s is None or s.category == self.domain.catch_all_category or s.category not in self.domain.categories

    async def run(self, channel: Channel) -> RestructureOutcome:
        items = await channel.store.query(limit=self.limit)
        outcome = RestructureOutcome(total=len(items))
        changed = False
        try:
            for item in items:
                alerts = match_alerts(item.text, self.domain)
                if tuple(alerts) != item.alerts and await channel.store.update_alerts(item.id, alerts):
                    outcome.alerts_updated += 1
                    changed = True
                if self._needs_pass(item):
                    changed |= await self._restructure(channel, item, alerts, outcome)
                else:
                    changed |= await self._reapply_override(channel, item, alerts, outcome)
        except LlmBusy as busy:
            raise RestructureInterrupted(outcome, busy) from busy
        finally:
            if changed:
                await channel.changed()
        return outcome

    async def _reapply_override(
        self, channel: Channel, item: StoredFeedback, alerts: list[AlertHit], outcome: RestructureOutcome
    ) -> bool:
        """A valid named category is kept unless a deterministic rule now forces another; a person's structure
        (filled in by hand, or with corrections) is theirs and stays as it is (ADR 0045)."""
        if item.model_failed or item.corrections is not None or item.rule_advice:
            return False
        forced = finish_structure(item.text, item.structure, alerts, self.domain)
        if forced == item.structure:
            return False
        rows = await channel.store.update_structure(
            item.id,
            forced,
            structure_failed=item.structure_failed,
            salvage_notes=item.salvage_notes,
            needs_review=item.needs_review,
            review_flags=item.review_flags,
        )
        if rows:
            outcome.restructured += 1
        return bool(rows)

    async def _structure(self, item: StoredFeedback) -> StructuringResult:
        """The row's structure at background priority; a preempted call is requeued at once for the same
        row (the gate lets it wait behind the visitor, or sheds it, which stops the pass)."""
        preempted = 0
        while True:
            try:
                context = self.structuring.background("restructure", preempted)
                return await self.structuring.structure(item.text, context)
            except LlmPreempted:
                preempted += 1
                log.info("restructuring %s was preempted by a visitor (%d); asking again", item.id, preempted)

    async def _restructure(
        self, channel: Channel, item: StoredFeedback, alerts: list[AlertHit], outcome: RestructureOutcome
    ) -> bool:
        try:
            result = await self._structure(item)
            structure, notes = result.structure, list(result.notes)
        except LlmBusy:
            raise  # the pass stops; what was done is kept
        except Exception as exc:  # any other failure marks this row failed and the pass goes on
            log.log(
                logging.WARNING if isinstance(exc, LlmFailure) else logging.ERROR,
                "restructuring %s failed: %s",
                item.id,
                exc,
                exc_info=not isinstance(exc, LlmFailure),
            )
            structure, notes = None, [failure_note(exc)]
        structure = finish_structure(item.text, structure, alerts, self.domain)
        flags = review_flags(detect_injection_signals(item.text), structure)
        rows = await channel.store.update_structure(
            item.id,
            structure,
            structure_failed=structure is None,
            salvage_notes=notes,
            needs_review=bool(flags),
            review_flags=flags,
        )
        if not rows:
            return False  # the row vanished meanwhile: neither counted
        if structure is None:
            outcome.failed += 1
        else:
            outcome.restructured += 1
        return True
