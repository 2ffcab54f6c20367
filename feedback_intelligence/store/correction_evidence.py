"""What people decided that the rules could learn from (``feedctl rules suggest``, ADR 0065): the category
each saved proposal ended with (and the model's, where the person changed it), and each alert's case as a
person left it (dismissed: not an alert, in their judgement). Reads only; erased entries are gone."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from feedback_intelligence.store.schema import cases, feedback, feedback_alerts


@dataclass(frozen=True, slots=True)
class SavedChoice:
    """An entry a person saved from a proposal: its text, the category saved, and the model's category
    when the person changed it (None: kept as proposed)."""

    text: str
    category: str
    corrected_from: str | None


@dataclass(frozen=True, slots=True)
class AlertJudgement:
    """An alert hit whose case a person handled: its category, the text's words that matched, and whether
    the case was dismissed."""

    text: str
    category: str
    words: tuple[str, ...]
    dismissed: bool


def choices_statement(since: str | None) -> Any:
    f = feedback.c
    statement = select(f.text, f.category, f.corrections_json).where(
        f.structure_json.is_not(None),
        f.category.is_not(None),
        f.model_failed.is_(False),
        (f.proposal_backend.is_not(None)) | (f.corrections_json.is_not(None)),
    )
    if since is not None:
        statement = statement.where(f.timestamp >= since)
    return statement.order_by(f.timestamp, f.id)


def choice_of(row: Any) -> SavedChoice:
    corrections = json.loads(row.corrections_json) if row.corrections_json else []
    model = next((c.get("modelValue") for c in corrections if c.get("field") == "category"), None)
    return SavedChoice(row.text, row.category, str(model) if model is not None else None)


def judgements_statement(since: str | None) -> Any:
    """Alert hits of items with a case a person closed or kept (open cases are nobody's judgement yet)."""
    f, a, c = feedback.c, feedback_alerts.c, cases.c
    statement = (
        select(f.text, a.category, a.words_json, c.state)
        .select_from(feedback_alerts.join(feedback, f.id == a.feedback_id).join(cases, c.feedback_id == a.feedback_id))
        .where(c.state != "open")
    )
    if since is not None:
        statement = statement.where(f.timestamp >= since)
    return statement.order_by(f.timestamp, f.id, a.seq)


def judgement_of(row: Any) -> AlertJudgement:
    return AlertJudgement(row.text, row.category, tuple(json.loads(row.words_json or "[]")), row.state == "dismissed")
