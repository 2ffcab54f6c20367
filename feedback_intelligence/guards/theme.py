"""Stand-in for the theme guard being built on branch feat-guards (same signature); replaced on merge.

A stored theme is shown only if it has no control or bidi characters, echoes no prompt or fence
marker, repeats no word, and shares a word (by its first letters) with the feedback text.
"""

from __future__ import annotations

import re
import unicodedata

from feedback_intelligence.domain.model import Domain

_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_MARKERS = ("{{", "}}", "<<<", ">>>", "palaute_loppu", "palaute_alku", "noun phrase", "base form", "lowercase")
_STEM = 4


def theme_rejection(theme: str, text: str, domain: Domain) -> str | None:
    """Why ``theme`` must not be shown for ``text``, or ``None``."""
    if any(unicodedata.category(ch) in ("Cc", "Cf") for ch in theme):
        return "control"
    folded = theme.casefold()
    if any(marker in folded for marker in _MARKERS):
        return "echo"
    words = _WORD.findall(folded)
    if not words:
        return "no_words"
    if len(set(words)) < len(words):
        return "repetition"
    text_stems = {w[:_STEM] for w in _WORD.findall(text.casefold())}
    if not any(w[:_STEM] in text_stems for w in words):
        return "no_shared_word"
    return None
