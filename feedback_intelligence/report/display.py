"""What a manager reads instead of raw keys: labels, guarded themes, and the words an alert matched.

Stored themes are model output, possibly from older data written before the theme guard existed
("2-4", "PALAUTE_LOPPU", a prompt phrase): each passes the theme guard again here, and one that
fails is replaced by a word the item's alert matched, or left out (the category label stands).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from feedback_intelligence.deterministic.text_match import find_all
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.guards.theme import theme_rejection
from feedback_intelligence.records import StoredFeedback

LEADING_THEMES = 3


def matched_words(text: str, pattern: str) -> list[str]:
    """The whole words of ``text`` the lexicon stem ``pattern`` matched, distinct, in text order.

    A stem matches inside a word ("veloit" in "veloitettiin"); the word is widened to its letters
    on both sides, so the card shows what the customer wrote. A multi-word pattern keeps its span.
    """
    found: list[str] = []
    for start, end in find_all(text, pattern):
        while start > 0 and text[start - 1].isalnum():
            start -= 1
        while end < len(text) and text[end].isalnum():
            end += 1
        word = text[start:end]
        if word and word not in found:
            found.append(word)
    return found


def shown_theme(item: StoredFeedback, domain: Domain) -> str | None:
    """The item's theme if it passes the theme guard, else the first word its alerts matched, else None."""
    if item.structure is None:
        return None
    theme = item.structure.theme.strip()
    if theme and theme_rejection(theme, item.text, domain) is None:
        return theme
    for hit in item.alerts:
        words = matched_words(item.text, hit.pattern)
        if words:
            return words[0].lower()
    return None


def leading_themes(items: Iterable[StoredFeedback], domain: Domain, limit: int = LEADING_THEMES) -> list[str]:
    """The most mentioned shown themes, most frequent first (ties in first-seen order)."""
    counts = Counter(t for t in (shown_theme(i, domain) for i in items) if t)
    return [theme for theme, _n in counts.most_common(limit)]


def group_title(label: str, themes: Sequence[str]) -> str:
    """ "Label: leading theme", or the label alone when no theme passed the guard."""
    return f"{label}: {themes[0]}" if themes else label
