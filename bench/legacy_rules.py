"""A batch row's rules and derivation as they were before the text was read once (ADR 0075), kept only so
that ``bench.rules_cpu`` can measure today's path side by side with it in one run. Not product code.

Each lexicon ran its own automaton over the text (alerts, category keywords, swear words, and in the
derivation the issue's keywords), the keyword rules made the text's base forms again for the issue, the
swearing was assessed twice for a row saved for later, and the derivation folded the text again and
detected its language again for the theme guard. Only the wiring is kept here: the rules are today's,
called as they were (without a scan, each lexicon reads the text itself), and every language asked of
lingua (:func:`lingua_alone`: no text decided by its words, ADR 0084).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from feedback_intelligence.derivation.derive import (
    _corrected_fields,
    derivation_rev,
    effective_sentiment,
)
from feedback_intelligence.derivation.themes import matched_words, shown_theme
from feedback_intelligence.deterministic.alerts import item_severity_rank, match_alerts, operational_categories
from feedback_intelligence.deterministic.category_keywords import keyword_evidence
from feedback_intelligence.deterministic.category_override import category_advice, finish_structure
from feedback_intelligence.deterministic.injection import detect_injection_signals, review_flags
from feedback_intelligence.deterministic.issue import issue_of
from feedback_intelligence.deterministic.prior import TextEvidence, propose_structure, type_evidence
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.instants.timestamps import format_instant, normalize_timestamp
from feedback_intelligence.records import Derived, DerivedAlert, RuleAdvice, StoredFeedback, Structure
from feedback_intelligence.services.ingest import IngestCommand, IngestService
from feedback_intelligence.text import language
from feedback_intelligence.text.bounds import THEME_MAX_CHARS
from feedback_intelligence.text.language import LanguageGuess, detect_languages
from feedback_intelligence.text.matching import fold


@contextmanager
def lingua_alone() -> Iterator[None]:
    """Every language detected inside asked of lingua, as before a text's words could decide it."""
    decide = language.pre_decided
    language.pre_decided = lambda text, candidates: None
    try:
        yield
    finally:
        language.pre_decided = decide


def evidence_of(text: str, domain: Domain, language: LanguageGuess | None) -> TextEvidence:
    alerts = match_alerts(text, domain)
    return TextEvidence(
        alerts=alerts,
        keywords=keyword_evidence(text, domain.category_keywords, domain.incident_places),
        types=type_evidence(text, domain, alerts),
        language=language,
    )


class LegacyIngestService(IngestService):
    """``record_many`` and ``record`` (the batch's deterministic layers) as they were."""

    def record_many(self, commands: Sequence[IngestCommand]) -> list[StoredFeedback]:
        proposing = [command for command in commands if command.accepted_structure is None]
        texts = [c.text for c in proposing]
        languages = detect_languages(texts, self.domain.detection_languages)
        evidence = [evidence_of(t, self.domain, g) for t, g in zip(texts, languages, strict=True)]
        found = dict(zip(map(id, proposing), evidence, strict=True))
        return [self.legacy_record(command, found.get(id(command))) for command in commands]

    def legacy_record(self, command: IngestCommand, evidence: TextEvidence | None) -> StoredFeedback:
        saved_at = format_instant(self.clock.now())
        timestamp = normalize_timestamp(command.timestamp) if command.timestamp else saved_at
        alerts = evidence.alerts if evidence is not None else match_alerts(command.text, self.domain)
        structure: Structure | None
        if command.accepted_structure is not None:
            structure = command.accepted_structure
        else:
            structure = propose_structure(command.text, self.domain, evidence)
        keywords = evidence.keywords if evidence is not None else None
        advice: tuple[RuleAdvice, ...] = ()
        if command.accepted_structure is not None:
            found = category_advice(command.text, structure, alerts, self.domain, keywords=keywords)
            advice = (found,) if found else ()
        else:
            structure = finish_structure(command.text, structure, alerts, self.domain, keywords=keywords)
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
            model_failed=command.model_interpretation_failed,
            alerts=tuple(alerts),
            corrections=command.corrections,
            needs_review=bool(flags),
            review_flags=tuple(flags),
            pending=command.structure_later,
            store=command.store,
            author=command.author,
            rule_advice=advice,
            proposal=command.proposal if command.accepted_structure is not None else None,
        )


def legacy_derive(record: StoredFeedback, domain: Domain) -> Derived:
    """``derive`` as it was: every reading of the text made again."""
    structure = record.structure
    demoted = structure is not None and domain.is_demoted(structure.category)
    theme = shown_theme(record, domain)
    return Derived(
        category=structure.category if structure else None,
        severity=structure.severity if structure else None,
        type=structure.type if structure else None,
        language=structure.language if structure else None,
        sentiment=effective_sentiment(record, domain),
        severity_rank=item_severity_rank(structure, record.alerts, domain),
        rated=structure is not None and not demoted,
        alert=bool(operational_categories(record.alerts, domain)),
        theme_base=theme[:THEME_MAX_CHARS] if theme else None,
        text_folded=fold(record.text),
        corrected_fields=_corrected_fields(record),
        alerts=tuple(
            DerivedAlert(hit.category, hit.pattern, tuple(matched_words(record.text, hit.pattern)))
            for hit in record.alerts
        ),
        rev=derivation_rev(domain),
        issue=issue_of(
            record.text,
            domain,
            type_=structure.type if structure else None,
            category=structure.category if structure else None,
            alert_categories=[hit.category for hit in record.alerts],
        ),
    )
