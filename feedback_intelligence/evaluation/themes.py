"""Theme figures (ADR 0022, ADR 0036): is a shown theme in base form, does it name a gold topic word, is it in the
text's language, is it a slug or a sentence fragment. Pure over the domain and Voikko; no I/O.

* ``baseForm`` — Finnish texts: every word of the theme is its own Voikko base form (a word Voikko
  does not know counts as written); ``baseFormByLanguage`` adds Swedish and English, where the theme's
  head (its last word) is its own simplemma base form ("toalett", not "toaletterna"; text/lemmas.py);
* ``namesTopic`` — a word of the theme, in base form, or one of its compound parts is a gold topic word
  of the item (``topics`` in the set); where the morphology has no reading (English, Swedish, an unknown
  word), a word related to a topic word (equal, or one a prefix of the other: "crashes" ~ "crash");
* ``otherLanguage`` — the theme guard's own check (a word of another language than the text's);
* ``slugOrFragment`` — underscores or many hyphens, more than three words, or a finite verb.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from feedback_intelligence.deterministic import theme_words
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.evaluation.dataset import EvalItem
from feedback_intelligence.structuring.guards.theme import (
    in_other_language,
    is_fragment,
    is_slug,
    related,
    text_language,
)
from feedback_intelligence.text import lemmas, morphology
from feedback_intelligence.text.matching import fold

ThemeCheck = Callable[[EvalItem, str], dict[str, bool | str | None]]


def in_base_form(theme: str, language: str) -> bool | None:
    """Every word its own base form (None for a text that is not Finnish: there is no Voikko verdict)."""
    if language != morphology.FINNISH:
        return None
    return all(morphology.base_form(w, language) == w.lower() for w in theme_words.theme_words(theme))


def head_in_base_form(theme: str, language: str) -> bool | None:
    """Finnish: :func:`in_base_form`; Swedish and English: the head word is its own lemma; else None."""
    if language == morphology.FINNISH:
        return in_base_form(theme, language)
    found = theme_words.theme_words(theme)
    if language not in lemmas.LANGUAGES or not found:
        return None
    return lemmas.lemma(found[-1], language) == found[-1].lower()


def names_topic(theme: str, topics: Iterable[str], language: str) -> bool:
    gold = {fold(t) for t in topics}
    for word in theme_words.theme_words(theme):
        readings = morphology.analyse(word, language)
        if readings:
            forms = {fold(r.base) for r in readings} | {fold(p) for r in readings for p in r.parts}
            if forms & gold:
                return True
        elif any(related(fold(word), g) for g in gold):
            return True
    return False


def theme_check_of(domain: Domain) -> ThemeCheck:
    def check(item: EvalItem, theme: str) -> dict[str, bool | str | None]:
        language = item.gold["language"]
        return {
            "baseForm": in_base_form(theme, language),
            "headBaseForm": head_in_base_form(theme, language),
            "language": language,
            "namesTopic": names_topic(theme, item.topics, language) if item.topics else None,
            "otherLanguage": in_other_language(theme, item.text, text_language(item.text, domain), domain),
            "slugOrFragment": is_slug(theme) or is_fragment(theme, language),
        }

    return check


def _share(values: Sequence[bool | str | None]) -> float | None:
    counted = [v is True for v in values if v is not None]
    return sum(counted) / len(counted) if counted else None


def theme_figures(items: Sequence[EvalItem], themes: Mapping[str, str | None], check: ThemeCheck) -> dict[str, Any]:
    """Shares and counts over the items that have a shown theme (``themes``: item id -> theme or None)."""
    verdicts = [check(item, theme) for item in items if (theme := themes.get(item.id))]
    return {
        "n": len(verdicts),
        "finnish": sum(v["baseForm"] is not None for v in verdicts),
        "baseForm": _share([v["baseForm"] for v in verdicts]),
        "namesTopic": _share([v["namesTopic"] for v in verdicts]),
        "otherLanguage": sum(bool(v["otherLanguage"]) for v in verdicts),
        "slugOrFragment": sum(bool(v["slugOrFragment"]) for v in verdicts),
        "baseFormByLanguage": {
            language: {"n": len(chosen), "share": _share([v["headBaseForm"] for v in chosen])}
            for language in sorted({str(v["language"]) for v in verdicts})
            if (chosen := [v for v in verdicts if v["language"] == language and v["headBaseForm"] is not None])
        },
    }
