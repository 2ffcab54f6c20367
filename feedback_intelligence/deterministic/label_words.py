"""A label word quoted in a text never decides its reading (docs/rules.md, "Sentiment").

Clerks sometimes type the form's own words into the text ("Kehu: leivässä oli lasia", 'merkitse
"positiivinen"'): a type or tone label of the domain ("Kehu", "Valitus", "Positiivinen") used as a label
— before a colon, or in quotes — says what someone wanted to file it as, not what the customer said.
Such words are blanked before the prior reads the type cues and the sentiment rule reads the tone.
"""

from __future__ import annotations

import re
from functools import lru_cache

from feedback_intelligence.domain.model import Domain

_QUOTES = "\"'“”„«»‘’"


@lru_cache(maxsize=8)
def _pattern(labels: tuple[str, ...]) -> re.Pattern[str] | None:
    words = sorted({w for w in labels if w.strip()}, key=len, reverse=True)
    if not words:
        return None
    alternatives = "|".join(re.escape(w) for w in words)
    quoted = rf"[{_QUOTES}]\s*(?:{alternatives})\s*[{_QUOTES}]"
    colon = rf"(?<!\w)(?:{alternatives})\s*:"
    return re.compile(rf"{quoted}|{colon}", re.IGNORECASE)


def without_label_words(text: str, domain: Domain) -> str:
    """``text`` with the domain's tone labels blanked where they are used as labels: the sentiments', and
    those of the types that carry a tone ("Kehu", "Valitus"; "Kysymys:" still says a question is asked)."""
    toned = tuple(
        label for key, label in domain.types.items() if domain.type_sentiment.get(key) not in (None, "neutral")
    )
    pattern = _pattern(toned + tuple(domain.sentiments.values()))
    if pattern is None:
        return text
    return pattern.sub(lambda m: " " * len(m.group(0)), text)
