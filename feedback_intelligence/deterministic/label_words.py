"""A label word quoted in a text never decides its reading (docs/rules.md, "Sentiment").

Clerks sometimes type the form's own words into the text ("Kehu: leivässä oli lasia", 'merkitse
"positiivinen"'): a type or tone label of the domain ("Kehu", "Valitus", "Positiivinen") used as a label
— before a colon, or in quotes — says what someone wanted to file it as, not what the customer said.
Such words are blanked before the prior reads the type cues and the sentiment rule reads the tone.
"""

from __future__ import annotations

import re
from functools import lru_cache

from feedback_intelligence.deterministic.per_object import kept_for
from feedback_intelligence.domain.model import Domain

_QUOTES = "\"'“”„«»‘’"
# a label is used as one only before a colon or inside quotes: a text with neither has none to blank (most
# notes), and the pattern, tried at every position, cost ~8 µs a text, asked four times a row
_LABEL_MARKS = frozenset(_QUOTES + ":")


@lru_cache(maxsize=8)
def _pattern(labels: tuple[str, ...]) -> re.Pattern[str] | None:
    words = sorted({w for w in labels if w.strip()}, key=len, reverse=True)
    if not words:
        return None
    alternatives = "|".join(re.escape(w) for w in words)
    quoted = rf"[{_QUOTES}]\s*(?:{alternatives})\s*[{_QUOTES}]"
    colon = rf"(?<!\w)(?:{alternatives})\s*:"
    return re.compile(rf"{quoted}|{colon}", re.IGNORECASE)


_patterns: dict[int, tuple[object, re.Pattern[str] | None]] = {}


def _labels_pattern(domain: Domain) -> re.Pattern[str] | None:
    """The pattern of the domain's tone labels: the sentiments', and those of the types that carry a tone
    ("Kehu", "Valitus"; "Kysymys:" still says a question is asked). Once per domain: a row asks four times."""
    toned = tuple(
        label for key, label in domain.types.items() if domain.type_sentiment.get(key) not in (None, "neutral")
    )
    return _pattern(toned + tuple(domain.sentiments.values()))


def without_label_words(text: str, domain: Domain) -> str:
    """``text`` with the domain's tone labels blanked where they are used as labels (see _labels_pattern)."""
    if _LABEL_MARKS.isdisjoint(text):
        return text
    pattern = kept_for(_patterns, domain, lambda: _labels_pattern(domain))
    if pattern is None:
        return text
    return pattern.sub(lambda m: " " * len(m.group(0)), text)
