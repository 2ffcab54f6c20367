"""All guards over one model structure, in one place: what a person sees, and every value that was replaced.

Order matters: fields the domain gives to the prior (``priorFields``) first, then category, type,
severity and sentiment (severity and sentiment are judged against the final type), language, theme.
An accepted theme is put in base form (not a rejection: the model's words, normalised).
A rejected value is replaced by the prior's value for that field (category, type, severity and
sentiment by the value the evidence names, which the prior would also choose).

Every guard reads the text through one :class:`~feedback_intelligence.deterministic.reading.Reading` (its
evidence, the prior's structure, its language), read once by the caller.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from feedback_intelligence.deterministic.reading import Reading
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.records import Structure
from feedback_intelligence.structuring.guards.fields import (
    category_verdict,
    sentiment_verdict,
    severity_verdict,
    type_verdict,
)
from feedback_intelligence.structuring.guards.language import language_rejection
from feedback_intelligence.structuring.guards.rejection import PRIOR_FIELD, GuardedStructure, Rejection
from feedback_intelligence.structuring.guards.theme import shown_form, shown_theme, theme_rejection


def guard_structure(model: Structure, reading: Reading, domain: Domain) -> GuardedStructure:
    """``model`` with every value a guard rejects replaced; ``reading`` is the rules' reading of the text
    (its ``prior``, :func:`propose_structure`'s answer, is the fallback)."""
    text, prior, evidence, language = reading.text, reading.prior, reading.evidence, reading.language
    rejections: list[Rejection] = []
    current = model

    def swap(field: str, reason: str, replacement: str | None) -> None:
        nonlocal current
        rejections.append(Rejection(field, reason, getattr(model, field), replacement))
        changes: dict[str, Any] = {field: replacement}
        current = replace(current, **changes)

    for field in domain.prior_fields:
        if getattr(current, field) != getattr(prior, field):
            swap(field, PRIOR_FIELD, getattr(prior, field))
    decided = set(domain.prior_fields)

    if "category" not in decided and (verdict := category_verdict(current, text, evidence, domain)):
        swap("category", *verdict)
    if "type" not in decided and (verdict := type_verdict(current.type, evidence.types)):
        swap("type", *verdict)
    if "severity" not in decided and (
        verdict := severity_verdict(current.severity, current.type, evidence.alerts, prior.severity, domain)
    ):
        swap("severity", *verdict)
    if "sentiment" not in decided and (verdict := sentiment_verdict(current.sentiment, current.type, domain)):
        swap("sentiment", *verdict)
    if "language" not in decided and (verdict := language_rejection(current.language, text, domain, evidence)):
        swap("language", *verdict)
    if "theme" not in decided and (reason := theme_rejection(current.theme, text, domain, language)):
        swap("theme", reason, shown_theme(prior.theme, text, domain, language))
    elif "theme" not in decided:
        # an accepted theme is shown in base form, so one topic never splits over its inflections
        current = replace(current, theme=shown_form(current.theme, text, domain, language))
    return GuardedStructure(current, tuple(rejections))
