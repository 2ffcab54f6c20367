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

__all__ = ["LEADING_THEMES", "group_title", "leading_themes", "matched_words", "shown_theme", "theme_counts"]

LEADING_THEMES = 3


def theme_counts(items: Iterable[StoredFeedback], domain: Domain, limit: int = LEADING_THEMES) -> list[tuple[str, int]]:
    """The most mentioned shown themes with their counts, most frequent first (ties in first-seen order)."""
    return Counter(t for t in (shown_theme(i, domain) for i in items) if t).most_common(limit)


def leading_themes(items: Iterable[StoredFeedback], domain: Domain, limit: int = LEADING_THEMES) -> list[str]:
    """The most mentioned shown themes, most frequent first (ties in first-seen order)."""
    return [theme for theme, _n in theme_counts(items, domain, limit)]


#: Mentions a theme needs to head its group's title: one item's theme in a group of fourteen ("Liha & kala:
#: ruokamyrkytys") reads as what the whole group is about.
TITLE_MIN_MENTIONS = 2


def group_title(label: str, themes: Sequence[tuple[str, int]]) -> str:
    """ "Label: leading theme" when the most mentioned theme (``(theme, mentions)``, most first) has at least
    :data:`TITLE_MIN_MENTIONS`; else the label alone (also when no theme passed the guard)."""
    return f"{label}: {themes[0][0]}" if themes and themes[0][1] >= TITLE_MIN_MENTIONS else label
