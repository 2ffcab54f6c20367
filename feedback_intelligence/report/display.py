"""What a manager reads instead of raw keys: labels, guarded themes, and the words an alert matched.

Stored themes are model output, possibly from older data written before the theme guard existed
("2-4", "PALAUTE_LOPPU", a prompt phrase, a slug): each passes the theme guard again here, and one that
fails is replaced by a word the item's alert matched, or left out (the category label stands). A theme
is shown, grouped and counted in base form ("kuitin" and "kuitti" are one theme), so items stored before
themes were normalised group with new ones without a migration.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from feedback_intelligence.derivation.themes import matched_words, shown_theme
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.records import StoredFeedback

__all__ = ["LEADING_THEMES", "group_title", "leading_themes", "matched_words", "shown_theme"]

LEADING_THEMES = 3


def leading_themes(items: Iterable[StoredFeedback], domain: Domain, limit: int = LEADING_THEMES) -> list[str]:
    """The most mentioned shown themes, most frequent first (ties in first-seen order)."""
    counts = Counter(t for t in (shown_theme(i, domain) for i in items) if t)
    return [theme for theme, _n in counts.most_common(limit)]


def group_title(label: str, themes: Sequence[str]) -> str:
    """ "Label: leading theme", or the label alone when no theme passed the guard."""
    return f"{label}: {themes[0]}" if themes else label
