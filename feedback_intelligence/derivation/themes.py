"""The theme a reader sees and the words an alert matched (moved here from ``report/display``, which
re-exports them): stored once per item as ``theme_base`` and ``feedback_alerts.words_json``.

Stored themes are model output, possibly from older data written before the theme guard existed
("2-4", "PALAUTE_LOPPU", a prompt phrase, a slug): each passes the theme guard again, and one that
fails is replaced by a word the item's alert matched, or left out (the category label stands). A theme
is shown, grouped and counted in base form ("kuitin" and "kuitti" are one theme).
"""

from __future__ import annotations

from collections.abc import Callable

from feedback_intelligence.deterministic.alerts import matched_words
from feedback_intelligence.deterministic.theme_words import is_verb, normalise_theme
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.records import StoredFeedback
from feedback_intelligence.structuring.guards.theme import TEXT_DEPENDENT_REASONS, theme_rejection

_VERDICTS_KEPT = 50_000


class _ThemeVerdicts:
    """The theme guard's verdicts, remembered: the guard's vocabulary scan costs milliseconds, and a
    re-derivation pass or an import asks about the same few themes again and again. A theme's verdict
    without the text holds for every text unless it is one of the text-dependent reasons ("not
    grounded", "mixed case": then the item's own words decide), so it is kept per theme."""

    def __init__(self) -> None:
        self._alone: dict[tuple[int, str], tuple[Domain, str | None]] = {}
        self._with_text: dict[tuple[int, str, str], tuple[Domain, str | None]] = {}

    def rejection(self, theme: str, text: str, domain: Domain, language: str | None = None) -> str | None:
        """``language``: the text's as the rules detected it (the guard's :func:`text_language`), when known."""
        alone = self._remember(self._alone, (id(domain), theme), domain, lambda: theme_rejection(theme, "", domain))
        if alone not in TEXT_DEPENDENT_REASONS:
            return alone
        return self._remember(
            self._with_text,
            (id(domain), theme, text),
            domain,
            lambda: theme_rejection(theme, text, domain, language),
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


def shown_theme(item: StoredFeedback, domain: Domain, text_language: str | None = None) -> str | None:
    """The item's theme if it passes the theme guard, else the first noun its alerts matched, else None;
    in base form, in the item's stored language (what groups and counts). ``text_language``: the text's
    language as the rules detected it, when the caller has it (the guard need not detect it again)."""
    if item.structure is None:
        return None
    language = item.structure.language or domain.language
    theme = item.structure.theme.strip()
    if theme and _verdicts.rejection(theme, item.text, domain, text_language) is None:
        return normalise_theme(theme, language) or theme
    for hit in item.alerts:
        # a word that says what happened ("veloitettiin", a verb) names no topic: only nouns and unknown words
        words = [w for w in matched_words(item.text, hit.pattern) if not is_verb(w, language)]
        if words:
            return normalise_theme(words[0], language) or words[0].lower()
    return None
