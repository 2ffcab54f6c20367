"""Ingest: validated feedback becomes a stored row, whatever the LLM does.

Order of operations (docs/rules.md, "Ingest order"): duplicate check before any LLM work → timestamp →
deterministic alerts → structure (desk path: the clerk's accepted structure, no LLM) →
category override (of a person's structure only the rules' advice, kept beside it) → injection scan →
insert → the channel's change counter moves. Every step but the
model's and the insert is one function without I/O, :meth:`IngestService.record`, which the batch
(``ingest_batch``, ADR 0027) runs for each of its items: one set of rules for one save and for many.

Degradation (docs/invariants.md, invariant 5): a shed (LlmBusy) propagates and nothing is stored; any
other failure of the structuring step (an LLM failure, or anything unexpected such as a reply the backend
client cannot read) stores the row ``structure_failed`` with its raw text and its alerts. Nothing a user
sent is lost because of the model.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from feedback_intelligence.deterministic.alerts import match_alerts
from feedback_intelligence.deterministic.category_override import category_advice, finish_structure
from feedback_intelligence.deterministic.injection import detect_injection_signals, review_flags
from feedback_intelligence.deterministic.lexicon_scan import scan_of
from feedback_intelligence.deterministic.prior import TextEvidence, propose_structure, text_evidence, texts_evidence
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.gate.context import CallContext
from feedback_intelligence.instants.clock import SYSTEM_CLOCK, Clock
from feedback_intelligence.instants.timestamps import format_instant, normalize_timestamp
from feedback_intelligence.llm.errors import LlmBusy, LlmFailure
from feedback_intelligence.records import Correction, Proposer, RuleAdvice, StoredFeedback, Structure
from feedback_intelligence.services.channels import Channel
from feedback_intelligence.store.errors import DuplicateId, Erased
from feedback_intelligence.structuring.service import StructuringService

if TYPE_CHECKING:  # the pool runs this module's rules in its workers
    from feedback_intelligence.services.batch_pool import BatchPool

log = logging.getLogger(__name__)

UNEXPECTED_FAILURE_NOTE = "structuring failed unexpectedly (the details are in the service log)"


def failure_note(exc: Exception) -> str:
    """The stored (publicly listed) note for a failed structuring step: what went wrong, no addresses."""
    if isinstance(exc, LlmFailure):
        return f"llm call failed: {exc.public}"
    return UNEXPECTED_FAILURE_NOTE


@dataclass(frozen=True, slots=True)
class IngestCommand:
    """A request that has already passed validation (see api.validation)."""

    source: str
    text: str
    timestamp: str | None
    id: str | None = None
    accepted_structure: Structure | None = None
    corrections: tuple[Correction, ...] | None = None
    model_interpretation_failed: bool = False
    # Save now, structure later: no LLM call here; the deterministic proposal is stored and the row
    # waits (``pending``) for the structuring worker.
    structure_later: bool = False
    store: str | None = None  # validated against the deployment's stores (feedback_intelligence/config/stores.py)
    author: str | None = None  # who saves it, from the request's credentials (api/authorship.py), never the body
    proposal: Proposer | None = None  # whose proposal the person saved (api/proposers.py, ADR 0065)


@dataclass(frozen=True, slots=True)
class ModelOutcome:
    """What the structuring step through the model gave: a structure (or none), its notes, and whether it failed."""

    structure: Structure | None
    notes: tuple[str, ...]
    failed: bool


@dataclass(frozen=True, slots=True)
class BatchOutcome:
    """One batch item after the insert: its row, and whether it was ``stored``, a ``duplicate`` (its id
    taken, or earlier in the batch) or ``erased`` (its id has a tombstone: never stored again)."""

    record: StoredFeedback
    result: str

    @property
    def stored(self) -> bool:
        return self.result == "stored"


def first_of_each(records: Sequence[StoredFeedback]) -> tuple[dict[str, int], list[StoredFeedback]]:
    """Each id's first place in a batch, and the records at those places in order: the first of an id is
    the item, a later one of the same id a duplicate."""
    first: dict[str, int] = {}
    for index, record in enumerate(records):
        first.setdefault(record.id, index)
    return first, [record for index, record in enumerate(records) if first[record.id] == index]


def _batch_result(erased: bool, first: bool, inserted: bool) -> str:
    if erased:
        return "erased"
    return "stored" if first and inserted else "duplicate"


class IngestService:
    """Turns one validated feedback item into a stored row of a channel, in the order the module states.

    Raises :class:`~feedback_intelligence.store.errors.DuplicateId` for an id the channel has
    already (before any LLM work) and :class:`~feedback_intelligence.llm.errors.LlmBusy` when the gate
    shed the structuring call, storing nothing in both cases; every other LLM failure is stored as
    ``structureFailed``. With ``structure_later`` no LLM call is made (never shed): the rules'
    proposal is stored ``pending`` and ``on_later`` tells this replica's worker. Returns the row as stored.
    """

    def __init__(
        self,
        domain: Domain,
        structuring: StructuringService,
        *,
        on_later: Callable[[], None] | None = None,
        clock: Clock = SYSTEM_CLOCK,
        pool: BatchPool | None = None,
    ) -> None:
        self.clock = clock  # a row's created_at, and the timestamp of an item that names none
        self.domain = domain
        self.structuring = structuring
        self.on_later = on_later  # tells this replica's worker a row is due
        self.pool = pool  # worker processes for a batch's rows (docs/adr/0074); None or off: a thread

    async def ingest(self, channel: Channel, command: IngestCommand, *, visitor: str) -> StoredFeedback:
        """``visitor``: whose fair share a structuring call counts against, as the edge named it."""
        if command.id is not None and await channel.store.erased(command.id):
            raise Erased(command.id)  # an erased item never comes back, not even by an idempotent re-import
        if command.id is not None and await channel.store.exists(command.id):
            raise DuplicateId(command.id)
        model: ModelOutcome | None = None
        if command.accepted_structure is None and not command.structure_later:
            model = await self._structure(channel, command, visitor)
        record = self.record(command, model)
        await channel.insert(record)  # a concurrent duplicate still ends as DuplicateId (409)
        if command.structure_later and self.on_later is not None:
            self.on_later()
        return record

    async def ingest_batch(
        self, channel: Channel, commands: Sequence[IngestCommand], *, history: bool = False, by_model: bool = True
    ) -> list[BatchOutcome]:
        """Many validated items without the model, as one transaction; an outcome per command, in order.

        Every command must carry an ``acceptedStructure`` or ``structure_later`` (the batch never calls the
        model, so it is never shed). Each row is made by :meth:`record`, the single save's deterministic
        layers; then the rows go in together (``insert_batch``: a taken id is skipped, not an error) and the
        version moves once. An id twice in one batch: the first is the item, the others are duplicates. An
        erased id (in any channel: ``services/tombstones.py``) is ``erased``, as the single save's 410.
        ``history``: a backfill; its rows open no case and page nobody, however recent (ADR 0059).
        ``by_model=False``: the rules' proposal is a row's last structure, it waits for no model (a
        backfill the operator did not ask the model for, ADR 0063).
        Raises only what the store raises (unavailable or full: nothing is written).
        """
        for command in commands:
            if command.accepted_structure is None and not command.structure_later:
                raise ValueError("a batch item needs acceptedStructure or structure_later")
        if not by_model:
            commands = [replace(command, structure_later=False) for command in commands]
        ready = None
        if self.pool is not None and self.pool.enabled and commands:
            # the rules and the rows in worker processes, on every core, one instant for the batch (docs/adr/0074)
            prepared = await self.pool.prepare(commands, self.clock.now())
            records, ready = prepared.records, prepared.ready
        else:
            # Seconds of CPU for 1,000 rows (docs/benchmarks.md, "Bulk import"): in a worker thread, so the
            # event loop keeps serving clerks meanwhile; one batch at a time per process (services/batch_slots.py),
            # as every further thread at work lengthens the loop's wait for its turn (docs/adr/0043).
            records = await asyncio.to_thread(self.record_many, commands)
        first, unique = first_of_each(records)
        inserted = await channel.insert_batch(unique, history=history, ready=ready)
        # what was not inserted is taken or erased; a tombstone stays for good, so asking after the commit
        # names every id the insert skipped for one
        erased = await channel.store.erased_among([r.id for r in unique if r.id not in inserted])
        outcomes = [
            BatchOutcome(record, _batch_result(record.id in erased, first[record.id] == index, record.id in inserted))
            for index, record in enumerate(records)
        ]
        if self.on_later is not None and any(o.stored and o.record.pending for o in outcomes):
            self.on_later()
        return outcomes

    def record_many(self, commands: Sequence[IngestCommand]) -> list[StoredFeedback]:
        """:meth:`record` of every command; the texts the rules propose for read together (their languages
        in one parallel detection), the rest one by one."""
        proposing = [command for command in commands if command.accepted_structure is None]
        found = dict(zip(map(id, proposing), texts_evidence([c.text for c in proposing], self.domain), strict=True))
        return [self.record(command, evidence=found.get(id(command))) for command in commands]

    def record(
        self, command: IngestCommand, model: ModelOutcome | None = None, *, evidence: TextEvidence | None = None
    ) -> StoredFeedback:
        """Ingest steps 2–6 as a row, without I/O: timestamp, alerts, the structure (the clerk's, the model's
        ``model`` outcome, or the rules' proposal for later), the category override, the injection scan.
        ``evidence``: the text's :func:`text_evidence`, when the caller read it (a batch)."""
        saved_at = format_instant(self.clock.now())
        timestamp = normalize_timestamp(command.timestamp) if command.timestamp else saved_at
        proposing = command.accepted_structure is None and model is None
        # the prior reads the alerts and keyword evidence anyway: read once, for it and for the override
        if proposing and evidence is None:
            evidence = text_evidence(command.text, self.domain)
        # every lexicon reads the text in one pass, once for the row (its derivation takes the same scan)
        scan = (
            evidence.scan if evidence is not None and evidence.scan is not None else scan_of(command.text, self.domain)
        )
        alerts = evidence.alerts if evidence is not None else match_alerts(command.text, self.domain, scan)

        corrections = command.corrections
        notes: tuple[str, ...] = ()
        failed = False
        if command.accepted_structure is not None:
            structure: Structure | None = command.accepted_structure
        elif model is not None:
            structure, notes, failed = model.structure, model.notes, model.failed
        else:  # saved now, structured later: the rules' proposal until the worker's turn
            structure = propose_structure(command.text, self.domain, evidence)

        keywords = evidence.keywords if evidence is not None else None
        advice: tuple[RuleAdvice, ...] = ()
        if command.accepted_structure is not None:
            # A person decides, the rules advise (ADR 0045): their structure and corrections are stored as
            # given, and where a rule would choose another category the row says which, and by which words.
            found = category_advice(command.text, structure, alerts, self.domain, keywords=keywords, scan=scan)
            advice = (found,) if found else ()
        else:
            structure = finish_structure(command.text, structure, alerts, self.domain, keywords=keywords, scan=scan)

        flags: list[str] = []
        if command.accepted_structure is None:
            flags = review_flags(detect_injection_signals(command.text), structure)

        return StoredFeedback(
            id=command.id or uuid.uuid4().hex,
            source=command.source,
            text=command.text,
            timestamp=timestamp,
            created_at=saved_at,
            structure=structure,
            structure_failed=failed,
            model_failed=command.model_interpretation_failed,
            salvage_notes=notes,
            alerts=tuple(alerts),
            corrections=corrections,
            needs_review=bool(flags),
            review_flags=tuple(flags),
            pending=command.structure_later,
            store=command.store,
            author=command.author,
            rule_advice=advice,
            proposal=command.proposal if command.accepted_structure is not None else None,
        )

    async def _structure(self, channel: Channel, command: IngestCommand, visitor: str) -> ModelOutcome:
        """Step 4 through the model: a shed propagates (nothing stored); any other failure is kept as one."""
        try:
            context = CallContext.interactive(visitor, f"{channel.name}-ingest")
            result = await self.structuring.structure(command.text, context)
        except LlmBusy:
            raise  # shed: nothing stored, the client retries with the same id
        except Exception as exc:  # down, broken, too slow, or a bug below: keep the feedback anyway
            log.log(
                logging.WARNING if isinstance(exc, LlmFailure) else logging.ERROR,
                "structuring failed, storing %s as structureFailed: %s",
                command.id,
                exc,
                exc_info=not isinstance(exc, LlmFailure),
            )
            return ModelOutcome(None, (failure_note(exc),), True)
        return ModelOutcome(result.structure, tuple(result.notes), result.structure is None)
