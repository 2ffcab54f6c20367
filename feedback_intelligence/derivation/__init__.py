"""Per-item work done once, when an item is written: ``derive(record, domain) -> Derived`` (ADR 0024 section 2).

Services and the report import this package; it imports domain, deterministic, structuring's theme guard
and text's morphology, never services, report or store.
"""

from feedback_intelligence.derivation.derive import DomainDeriver, derivation_rev, derive, effective_sentiment
from feedback_intelligence.derivation.themes import matched_words, shown_theme

__all__ = ["DomainDeriver", "derivation_rev", "derive", "effective_sentiment", "matched_words", "shown_theme"]
