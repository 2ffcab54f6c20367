"""The /interpret path as it was before one reading of a text (ADR 0073), kept only so that
``bench.interpret_cpu`` can measure today's path side by side with it in one run, and so that
``tests/bench/test_interpret_cpu.py`` can show both answer every eval text byte for byte alike. Not product
code.

Each step read the text again: the theme-only parser and the guards each asked :func:`propose_structure`,
the guards asked :func:`text_evidence` (and the language and theme guards detected the language once more),
the preview matched the alerts and the override read the keyword evidence again, and the desk's advice
asked every rule once per category. Only the wiring is kept here: the rules themselves are today's.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from feedback_intelligence.deterministic.alerts import match_alerts, matched_words
from feedback_intelligence.deterministic.category_keywords import KeywordEvidence, keyword_evidence
from feedback_intelligence.deterministic.category_override import (
    ALERT_REASON,
    KEYWORD_REASON,
    VULGARITY_REASON,
    ForcedCategory,
    apply_override,
    keyword_replacement,
)
from feedback_intelligence.deterministic.personal_data import personal_data_json
from feedback_intelligence.deterministic.prior import propose_structure, text_evidence
from feedback_intelligence.deterministic.vulgarity import assess_vulgarity
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.gate.context import CallContext
from feedback_intelligence.prompting.runner import SERVED_BY
from feedback_intelligence.records import AlertHit, RuleAdvice, Structure
from feedback_intelligence.services.interpret import Interpretation, InterpretService
from feedback_intelligence.structuring.guards.fields import (
    category_verdict,
    sentiment_verdict,
    severity_verdict,
    type_verdict,
)
from feedback_intelligence.structuring.guards.language import language_rejection
from feedback_intelligence.structuring.guards.rejection import PRIOR_FIELD, GuardedStructure, Rejection
from feedback_intelligence.structuring.guards.theme import shown_form, shown_theme, theme_rejection
from feedback_intelligence.structuring.parser import ParseResult, parse_structure, parse_theme
from feedback_intelligence.structuring.service import (
    StructuringResult,
    StructuringService,
    correction_prompt,
    log,
)
from feedback_intelligence.text.first_part import first_part, read_note


def guard_structure(model: Structure, text: str, domain: Domain, prior: Structure) -> GuardedStructure:
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
    evidence = text_evidence(text, domain)

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
    if "language" not in decided and (verdict := language_rejection(current.language, text, domain)):
        swap("language", *verdict)
    if "theme" not in decided and (reason := theme_rejection(current.theme, text, domain)):
        swap("theme", reason, shown_theme(prior.theme, text, domain))
    elif "theme" not in decided:
        current = replace(current, theme=shown_form(current.theme, text, domain))
    return GuardedStructure(current, tuple(rejections))


class LegacyStructuringService(StructuringService):
    """Today's service with the old ``structure``: the prior proposed in the parser and again in the guards."""

    async def structure(self, text: str, context: CallContext) -> StructuringResult:
        read = first_part(text, self.read_max_chars)
        result = await self._old_structure(read, context)
        if read == text:
            return result
        return replace(result, notes=(*result.notes, read_note(len(read), len(text))))

    def _old_parse(self, raw: str, text: str) -> ParseResult:
        if self.theme_only:
            return parse_theme(raw, propose_structure(text, self.domain))
        return parse_structure(raw, self.domain)

    async def _old_structure(self, text: str, context: CallContext) -> StructuringResult:
        prompt = self.prompt.render(text)
        raw = await self._ask(prompt, context)
        first = self._old_parse(raw, text)
        if first.valid:
            return self._old_guarded(text, _result(first, raw, retried=False, notes=first.notes))
        raw = await self._ask(correction_prompt(prompt, first.violations), context)
        second = self._old_parse(raw, text)
        notes = [f"first attempt: {v}" for v in first.violations]
        if second.valid:
            return self._old_guarded(text, _result(second, raw, retried=True, notes=notes + second.notes))
        notes += [f"retry: {v}" for v in second.violations]
        return _result(second, raw, retried=True, notes=notes + second.notes)

    def _old_guarded(self, text: str, result: StructuringResult) -> StructuringResult:
        assert result.structure is not None
        guarded = guard_structure(result.structure, text, self.domain, propose_structure(text, self.domain))
        notes = list(result.notes)
        before, after = result.structure.theme, guarded.structure.theme
        if after != before and not any(r.field == "theme" for r in guarded.rejections):
            notes.append(f"'theme' normalized from '{before}' to '{after}' (base form)")
        if not guarded.rejections:
            if after == before:
                return result
            return replace(result, structure=guarded.structure, normalized=True, notes=tuple(notes))
        if self.metrics is not None:
            self.metrics.count_rejections(guarded.rejections)
        log.info("guards replaced %s", ", ".join(f"{r.field} ({r.reason})" for r in guarded.rejections))
        return replace(
            result,
            structure=guarded.structure,
            normalized=result.normalized or after != before,
            notes=(*notes, *guarded.notes),
            rejections=guarded.rejections,
        )


def _result(parsed: ParseResult, raw: str, *, retried: bool, notes: list[str]) -> StructuringResult:
    return StructuringResult(
        structure=parsed.structure,
        raw_response=raw,
        salvaged=parsed.salvaged,
        normalized=parsed.normalized,
        retried=retried,
        notes=tuple(notes),
    )


def forced_category_decision(
    text: str | None,
    structure: Structure | None,
    alerts: Iterable[AlertHit],
    domain: Domain,
    *,
    keywords: list[KeywordEvidence] | None = None,
) -> ForcedCategory | None:
    """The category rules as they were written: every rule read again on every call."""
    text = text or ""
    for hit in alerts:
        if hit.category in domain.categories:
            return ForcedCategory(hit.category, ALERT_REASON, tuple(matched_words(text, hit.pattern)))
    if structure is None or domain.is_demoted(structure.category):
        return None
    target = domain.vulgarity.demote_to_category
    if target:
        vulgarity = assess_vulgarity(text, domain.vulgarity)
        if vulgarity.demote:
            words = dict.fromkeys(w for stem in vulgarity.matched_stems for w in matched_words(text, stem))
            return ForcedCategory(target, VULGARITY_REASON, tuple(words))
    evidence = (
        keyword_evidence(text, domain.category_keywords, domain.incident_places) if keywords is None else keywords
    )
    keyword = keyword_replacement(text, structure.category, domain, keywords=evidence)
    if keyword is None:
        return None
    term = next(e.term for e in evidence if e.category == keyword)
    return ForcedCategory(keyword, KEYWORD_REASON, tuple(matched_words(text, term)) or (term,))


def finish_structure(
    text: str | None, structure: Structure | None, alerts: Iterable[AlertHit], domain: Domain
) -> Structure | None:
    decision = forced_category_decision(text, structure, list(alerts), domain)
    return apply_override(structure, decision.category if decision else None)


def advice_by_category(text: str, base: Structure, alerts: Iterable[AlertHit], domain: Domain) -> dict[str, RuleAdvice]:
    """Every rule asked once per category, the keyword evidence read once more."""
    hits = list(alerts)
    keywords = keyword_evidence(text, domain.category_keywords, domain.incident_places)
    found: dict[str, RuleAdvice] = {}
    for category in domain.categories:
        structure = base.with_category(category)
        decision = forced_category_decision(text, structure, hits, domain, keywords=keywords)
        if decision is not None and decision.category != structure.category:
            found[category] = RuleAdvice("category", decision.category, decision.reason, decision.words)
    return found


class LegacyInterpretService(InterpretService):
    """The old preview: the alerts matched and the keyword evidence read again after the structuring."""

    async def interpret(self, text: str, *, visitor: str) -> Interpretation:
        served: list[str] = []
        token = SERVED_BY.set(served)
        try:
            result = await self.structuring.structure(text, CallContext.interactive(visitor, "interpret"))
        finally:
            SERVED_BY.reset(token)
        alerts = match_alerts(text, self.domain)
        structure = finish_structure(text, result.structure, alerts, self.domain)
        return Interpretation(
            structure=structure,
            failed=structure is None,
            salvaged=result.salvaged,
            notes=list(result.notes),
            alert_categories=list(dict.fromkeys(a.category for a in alerts)),
            guards=list(result.rejections),
            category_advice=advice_by_category(text, structure, alerts, self.domain) if structure else {},
            personal_data=personal_data_json(text, self.domain),
            backend=served[-1] if served else None,
        )
