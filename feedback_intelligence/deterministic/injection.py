"""Prompt-injection symptoms in customer text (docs/rules.md, "Injection signals") and the review flags they raise.

Detection is a substring scan over the text's confusable-folded skeleton
(:func:`feedback_intelligence.text.confusables.skeleton`: NFKC, case, zero-width and format
characters, look-alike Cyrillic/Greek letters and digits written for letters cannot hide a
phrase, and every whitespace run is collapsed to one space, so a line break cannot either); the
phrases are folded the same way. It returns the
distinct signal classes in the order of the pattern list. An item with signals is flagged for
review, never dropped or altered: it stays counted in groups and trends.
"""

from __future__ import annotations

from feedback_intelligence.records import Structure
from feedback_intelligence.text.confusables import skeleton

SEVERE_WITH_INJECTION = "severe-rating-with-injection-symptoms"
SEVERE_LEVELS = frozenset({"high", "critical"})

# (class, phrase) in detection order; phrases are lowercase and single-spaced.
INJECTION_PATTERNS: tuple[tuple[str, str], ...] = (
    *(
        ("override", phrase)
        for phrase in (
            "ignore previous",
            "ignore the above",
            "ignore all previous",
            "ignore your instructions",
            "disregard previous",
            "disregard the above",
            "forget previous instructions",
            "forget all previous",
            "ohita edelliset",
            "ohita aiemmat ohjeet",
            "unohda edelliset",
            "unohda aiemmat ohjeet",
            "älä välitä ohjeista",
        )
    ),
    *(
        ("new-instructions", phrase)
        for phrase in ("new instructions:", "your real task", "your new task", "uudet ohjeet:")
    ),
    *(
        ("role-override", phrase)
        for phrase in (
            "system prompt",
            "you are now an ai",
            "you are an ai assistant",
            "act as an ai",
            "olet nyt tekoäly",
            "järjestelmäkehote",
        )
    ),
    *(
        ("field-injection", phrase)
        for phrase in (
            "set severity",
            "aseta severity",
            "classify this as",
            "luokittele tämä",
            "merkitse kriittiseksi",
        )
    ),
    *(("format-forge", phrase) for phrase in ("```json", '"role":', "[inst]", "<|", "vastaus: kyllä", "vastaus:kyllä")),
)

SIGNAL_CLASSES: tuple[str, ...] = tuple(dict.fromkeys(cls for cls, _ in INJECTION_PATTERNS))
_FOLDED_PATTERNS: tuple[tuple[str, str], ...] = tuple((cls, skeleton(phrase)) for cls, phrase in INJECTION_PATTERNS)


def detect_injection_signals(text: str | None) -> list[str]:
    """Distinct signal classes found in ``text``, in pattern-list order."""
    if not text:
        return []
    scan = skeleton(text)
    found: list[str] = []
    for cls, phrase in _FOLDED_PATTERNS:
        if cls not in found and phrase in scan:
            found.append(cls)
    return found


def review_flags(signals: list[str] | tuple[str, ...], structure: Structure | None) -> list[str]:
    """The item's review flags: its signals, plus the severe-rating flag when signals meet a high rating."""
    flags = list(dict.fromkeys(signals))
    if flags and structure is not None and (structure.severity or "").strip().lower() in SEVERE_LEVELS:
        flags.append(SEVERE_WITH_INJECTION)
    return flags
