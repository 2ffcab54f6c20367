"""Swedish and English base forms, offline: simplemma's tables (in its wheel), beside Voikko for Finnish.

simplemma reads one word at a time from a language's table of forms ("toaletterna" → "toalett",
"priserna" → "pris", "servers" → "server"); a word the table does not hold comes back as written. It
has no word classes, so it is asked only for the word a theme is named by (its head, the last word:
"loading screen" keeps "loading"). Each language's table loads on the first Swedish or English theme
(a few MB, about a second): lazily, so a service or a test that meets none pays nothing.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

LANGUAGES = frozenset({"sv", "en"})


def _lemmatize(word: str, language: str) -> str:
    try:
        import simplemma  # type: ignore[import-not-found,unused-ignore]  # typed; the ignore is for a venv without it
    except ImportError:  # the fallback: the word as written, as without Voikko
        return word
    return str(simplemma.lemmatize(word, lang=language))


@lru_cache(maxsize=65536)
def lemma(word: str, language: str) -> str:
    """``word``'s base form in lower case for Swedish and English; for any other language the word as
    written, in lower case (Finnish base forms are Voikko's: text/morphology.py)."""
    folded = unicodedata.normalize("NFC", word.strip()).lower()
    if language not in LANGUAGES or not folded.isalpha():
        return folded
    found = _lemmatize(folded, language).lower() or folded
    if language == "sv" and found != folded and folded.rstrip("n").endswith("a") and found == folded.rstrip("n")[:-1]:
        return folded.rstrip("n")  # the table cuts "kassa(n)" (the till) to "kass" (bad): keep an -a noun's -a
    return found
