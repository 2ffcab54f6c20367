"""What a manager reads instead of raw keys: labels, guarded themes, and the words an alert matched.

Stored themes are model output, possibly from older data written before the theme guard existed
("2-4", "PALAUTE_LOPPU", a prompt phrase, a slug): each passes the theme guard again here, and one that
fails is replaced by a word the item's alert matched, or left out (the category label stands). A theme
is shown, grouped and counted in base form ("kuitin" and "kuitti" are one theme), so items stored before
themes were normalised group with new ones without a migration.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from feedback_intelligence.deterministic.alerts import pattern_needles
from feedback_intelligence.deterministic.text_match import find_all
from feedback_intelligence.deterministic.theme_words import is_verb, normalise_theme
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.records import AlertHit, StoredFeedback
from feedback_intelligence.structuring.guards.theme import TEXT_DEPENDENT_REASONS, theme_rejection

LEADING_THEMES = 3
_VERDICTS_KEPT = 50_000


class _ThemeVerdicts:
    """The theme guard's verdicts, remembered: a report asks about every item several times, and the
    guard's vocabulary scan costs milliseconds. A theme's verdict without the text holds for every
    text unless it is one of the text-dependent reasons ("not grounded", "mixed case": then the item's
    own words decide), so it is kept per theme."""

    def __init__(self) -> None:
        self._alone: dict[tuple[int, str], tuple[Domain, str | None]] = {}
        self._with_text: dict[tuple[int, str, str], tuple[Domain, str | None]] = {}

    def rejection(self, theme: str, text: str, domain: Domain) -> str | None:
        alone = self._remember(self._alone, (id(domain), theme), domain, lambda: theme_rejection(theme, "", domain))
        if alone not in TEXT_DEPENDENT_REASONS:
            return alone
        return self._remember(
            self._with_text, (id(domain), theme, text), domain, lambda: theme_rejection(theme, text, domain)
        )

    @staticmethod
    def _remember(cache: dict, key: tuple, domain: Domain, verdict: Callable[[], str | None]) -> str | None:
        found = cache.get(key)
        if found is not None and found[0] is domain:  # the domain held too: an id is never reused under it
            return found[1]
        if len(cache) >= _VERDICTS_KEPT:
            cache.clear()
        value = verdict()
        cache[key] = (domain, value)
        return value


_verdicts = _ThemeVerdicts()


def matched_words(text: str, pattern: str) -> list[str]:
    """The whole words of ``text`` the lexicon stem ``pattern`` matched, distinct, in text order.

    A stem matches inside a word ("veloit" in "veloitettiin"); the word is widened to its letters
    on both sides, so the card shows what the customer wrote. A multi-word pattern keeps its span.
    """
    found: list[str] = []
    spans = [span for needle in pattern_needles(pattern) for span in find_all(text, needle)]
    for start, end in sorted(spans):
        while start > 0 and text[start - 1].isalnum():
            start -= 1
        while end < len(text) and text[end].isalnum():
            end += 1
        word = text[start:end]
        if word and word not in found:
            found.append(word)
    return found


_shown: dict[tuple[int, str, str, str, tuple[AlertHit, ...]], tuple[Domain, str | None]] = {}


def shown_theme(item: StoredFeedback, domain: Domain) -> str | None:
    """The item's theme if it passes the theme guard, else the first noun its alerts matched, else None;
    in base form, in the item's stored language (what groups and counts). Remembered per (theme,
    language, text, hits): a report asks about every item several times (title, counts, quotes)."""
    if item.structure is None:
        return None
    key = (id(domain), item.structure.theme, item.structure.language or "", item.text, item.alerts)
    found = _shown.get(key)
    if found is not None and found[0] is domain:  # the domain held too: an id is never reused under it
        return found[1]
    value = _shown_theme(item, domain)
    if len(_shown) >= _VERDICTS_KEPT:
        _shown.clear()
    _shown[key] = (domain, value)
    return value


def _shown_theme(item: StoredFeedback, domain: Domain) -> str | None:
    if item.structure is None:
        return None
    language = item.structure.language or domain.language
    theme = item.structure.theme.strip()
    if theme and _verdicts.rejection(theme, item.text, domain) is None:
        return normalise_theme(theme, language) or theme
    for hit in item.alerts:
        # a word that says what happened ("veloitettiin", a verb) names no topic: only nouns and unknown words
        words = [w for w in matched_words(item.text, hit.pattern) if not is_verb(w, language)]
        if words:
            return normalise_theme(words[0], language) or words[0].lower()
    return None


def leading_themes(items: Iterable[StoredFeedback], domain: Domain, limit: int = LEADING_THEMES) -> list[str]:
    """The most mentioned shown themes, most frequent first (ties in first-seen order)."""
    counts = Counter(t for t in (shown_theme(i, domain) for i in items) if t)
    return [theme for theme, _n in counts.most_common(limit)]


def group_title(label: str, themes: Sequence[str]) -> str:
    """ "Label: leading theme", or the label alone when no theme passed the guard."""
    return f"{label}: {themes[0]}" if themes else label
