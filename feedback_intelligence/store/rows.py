"""A feedback row and the record it holds: the one conversion each way, and the JSON the ``*_json``
columns are written in. Pure functions: no connection, no engine.
"""

from __future__ import annotations

import json
from typing import Any

from feedback_intelligence.records import AlertHit, Correction, Proposer, RuleAdvice, StoredFeedback, Structure


def compact_json(value: Any) -> str:
    """``value`` as every ``*_json`` column holds it: compact, and text kept as written (not ``\\u`` escaped)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def structure_to_json(structure: Structure | None) -> str | None:
    """The ``structure_json`` column of ``structure``: null for none."""
    return compact_json(structure.to_json()) if structure else None


def structure_from_json(raw: str | None) -> Structure | None:
    """The structure a ``structure_json`` column holds (None for null or empty)."""
    if not raw:
        return None
    data = json.loads(raw)
    return Structure(
        category=data["category"],
        theme=data["theme"],
        severity=data["severity"],
        type=data["type"],
        language=data["language"],
        sentiment=data.get("sentiment"),
    )


def rule_advice_json(advice: tuple[RuleAdvice, ...] | list[RuleAdvice]) -> str | None:
    """The ``rule_advice_json`` column of ``advice``: null when no rule disagrees."""
    return compact_json([a.to_json() for a in advice]) if advice else None


def row_to_record(row: Any) -> StoredFeedback:
    """The record a ``feedback`` row holds (any row with the table's columns: a select of the table)."""
    corrections = json.loads(row.corrections_json) if row.corrections_json else None
    return StoredFeedback(
        id=row.id,
        source=row.source,
        text=row.text,
        timestamp=row.timestamp,
        created_at=row.created_at,
        structure=structure_from_json(row.structure_json),
        structure_failed=bool(row.structure_failed),
        model_failed=bool(row.model_failed),
        salvage_notes=tuple(json.loads(row.salvage_notes_json)),
        alerts=tuple(AlertHit(a["category"], a["pattern"]) for a in json.loads(row.alerts_json)),
        corrections=(
            tuple(Correction(c["field"], c.get("modelValue"), c.get("humanValue")) for c in corrections)
            if corrections is not None
            else None
        ),
        needs_review=bool(row.needs_review),
        review_flags=tuple(json.loads(row.review_flags_json)),
        pending=bool(row.structure_due),
        structure_attempts=int(row.structure_attempts or 0),
        structure_preemptions=int(row.structure_preemptions or 0),
        store=row.store,
        author=row.author,
        rule_advice=tuple(RuleAdvice.from_json(a) for a in json.loads(row.rule_advice_json or "[]")),
        proposal=Proposer(row.proposal_backend, row.proposal_model or "") if row.proposal_backend else None,
    )


def record_to_row(record: StoredFeedback) -> dict[str, Any]:
    """The record's columns as an insert writes them (the derived columns are ``derived_rows``')."""
    return {
        "id": record.id,
        "source": record.source,
        "text": record.text,
        "timestamp": record.timestamp,
        "created_at": record.created_at,
        "structure_json": structure_to_json(record.structure),
        "structure_failed": record.structure_failed,
        "model_failed": record.model_failed,
        "salvage_notes_json": compact_json(list(record.salvage_notes)),
        "alerts_json": compact_json([a.to_json() for a in record.alerts]),
        "corrections_json": (
            compact_json([c.to_json() for c in record.corrections]) if record.corrections is not None else None
        ),
        "needs_review": record.needs_review,
        "review_flags_json": compact_json(list(record.review_flags)),
        "structure_due": record.pending,
        "structure_attempts": record.structure_attempts,
        "structure_preemptions": record.structure_preemptions,
        "store": record.store,
        "author": record.author,
        "rule_advice_json": rule_advice_json(record.rule_advice),
        "proposal_backend": record.proposal.backend if record.proposal else None,
        "proposal_model": record.proposal.model if record.proposal else None,
    }
