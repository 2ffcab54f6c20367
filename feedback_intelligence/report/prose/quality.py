"""Whether a theme's model prose may be shown: the checks that catch a small model's typical failures.

Grounding, directives and echoed ids are checked in ``guards``; this module rejects prose that
is well-formed JSON but no good to a reader: a word or short phrase repeated over and over (a
model stuck in a loop), prompt or marker text echoed back, a language other than the domain's,
no cited items, or a length outside what a summary card can hold. A rejection names its reason;
the caller shows the automatic summary instead and counts the reason.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Literal

ProseRejection = Literal["repetition", "echo", "language", "no_citations", "too_short", "too_long"]
REJECTIONS: tuple[ProseRejection, ...] = ("repetition", "echo", "language", "no_citations", "too_short", "too_long")

MIN_NARRATIVE_WORDS = 3
MAX_NARRATIVE_CHARS = 600
MAX_TITLE_CHARS = 80
MAX_PHRASE_WORDS = 3  # a "short phrase" for the repetition check
MAX_CONSECUTIVE_REPEATS = 2  # the same word or phrase three times in a row is a loop
MAX_WORD_SHARE = 0.3  # one word (4+ letters) making up more than this share of a longer text is a loop
MIN_WORDS_FOR_SHARE = 10

_WORD = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*", re.UNICODE)

# Text that only exists in our prompts and fences; seeing it in prose means the model echoed them.
ECHO_MARKERS: tuple[str, ...] = (
    "{{",
    "}}",
    "<<<",
    ">>>",
    "asiakaspalaute>>>",
    "palaute_loppu",
    "palaute_alku",
    "citedids",
    '"narrative"',
    '"title"',
    "```",
    "<think>",
    "json-objekti",
    "json object",
    "noun phrase",
    "base form",
    "kooste:",
)
_PROMPT_LINE_MIN_CHARS = 24  # a line of the prompt this long found verbatim in the prose is an echo

# Short function words that are frequent in one language and rare in the other.
_FINNISH_WORDS = frozenset(
    [
        "ja",
        "on",
        "ei",
        "että",
        "oli",
        "ovat",
        "olivat",
        "myös",
        "mutta",
        "kun",
        "sekä",
        "tai",
        "joka",
        "jotka",
        "ole",
        "kuin",
        "mitä",
        "tämä",
        "nämä",
        "hyvin",
        "paljon",
        "asiakkaat",
        "asiakas",
        "palautetta",
        "palaute",
        "palautteet",
        "liian",
        "vielä",
        "enemmän",
        "kaupan",
        "kaupassa",
        "osaston",
    ]
)
_ENGLISH_WORDS = frozenset(
    [
        "the",
        "and",
        "is",
        "are",
        "was",
        "were",
        "of",
        "to",
        "in",
        "that",
        "with",
        "for",
        "this",
        "these",
        "it",
        "they",
        "but",
        "not",
        "customers",
        "customer",
        "feedback",
        "about",
        "have",
        "has",
        "from",
        "more",
        "too",
        "very",
        "some",
    ]
)


def words(text: str) -> list[str]:
    """Lower-case words (letters, inner hyphens and apostrophes), NFC, in order."""
    return [w.lower() for w in _WORD.findall(unicodedata.normalize("NFC", text))]


def repeated_phrase(text: str) -> str | None:
    """The word or short phrase the text repeats past the threshold, or ``None``.

    Two shapes of a loop: the same 1–3 words three or more times in a row ("kielen kielen kielen",
    "keskustilä, keskustilä, keskustilä" — punctuation between them does not count), or one longer
    word making up a large share of a text of some length.
    """
    tokens = words(text)
    for size in range(1, MAX_PHRASE_WORDS + 1):
        for start in range(len(tokens) - size * (MAX_CONSECUTIVE_REPEATS + 1) + 1):
            phrase = tokens[start : start + size]
            repeats = 1
            at = start + size
            while tokens[at : at + size] == phrase:
                repeats += 1
                at += size
            if repeats > MAX_CONSECUTIVE_REPEATS:
                return " ".join(phrase)
    long_words = [t for t in tokens if len(t) >= 4]
    if len(tokens) >= MIN_WORDS_FOR_SHARE and long_words:
        word, count = Counter(long_words).most_common(1)[0]
        if count / len(tokens) > MAX_WORD_SHARE:
            return word
    return None


def echoes_prompt(text: str, prompt_lines: Iterable[str] = ()) -> bool:
    """Marker text of our prompts and fences, or a long line of the prompt itself, found in ``text``."""
    folded = unicodedata.normalize("NFC", text).casefold()
    if any(marker in folded for marker in ECHO_MARKERS):
        return True
    return any(
        len(line) >= _PROMPT_LINE_MIN_CHARS and line.casefold() in folded
        for line in (raw.strip() for raw in prompt_lines)
    )


def guess_language(text: str) -> Literal["fi", "en"] | None:
    """``fi`` or ``en`` from function words and Finnish letters; ``None`` when the text does not say."""
    tokens = words(text)
    finnish = sum(1 for t in tokens if t in _FINNISH_WORDS) + sum(1 for t in tokens if "ä" in t or "ö" in t)
    english = sum(1 for t in tokens if t in _ENGLISH_WORDS)
    if finnish == english or max(finnish, english) < 2:
        return None
    return "fi" if finnish > english else "en"


def prose_rejection(
    title: str,
    narrative: str,
    cited: Sequence[object],
    *,
    language: str,
    prompt_lines: Iterable[str] = (),
) -> ProseRejection | None:
    """Why (title, narrative) must not be shown, or ``None`` when it may be."""
    if not cited:
        return "no_citations"
    lines = list(prompt_lines)
    for text in (title, narrative):
        if echoes_prompt(text, lines):
            return "echo"
    for text in (title, narrative):
        if repeated_phrase(text) is not None:
            return "repetition"
    if len(narrative) > MAX_NARRATIVE_CHARS or len(title) > MAX_TITLE_CHARS:
        return "too_long"
    if len(words(narrative)) < MIN_NARRATIVE_WORDS or not words(title):
        return "too_short"
    guessed = guess_language(f"{title} {narrative}")
    if guessed is not None and language in ("fi", "en") and guessed != language:
        return "language"
    return None
