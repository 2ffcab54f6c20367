"""A folded text's words in their base forms, each knowing where it stands in the folded text.

The lexicons are caseless substrings of the text as written: a stem such as "laatikko" or "suklaa" never
meets "makaronilaatikossa" or "suklaita", because Finnish inflection changes the stem itself (consonant
gradation, vowel changes). Read beside the written text, the base forms let the same stem find them
("makaronilaatikko", "suklaa") without a stem per inflected form. Each base word keeps the span of the
written word it came from, so a match names the word the text wrote (a theme is made of it) and a rule
that blanked that word in the written text (``notEvidence``) has blanked it here too.

Finnish through Voikko (text/morphology.py); a word with no reading, in any language, is its own base. A
verb keeps its written form too: the lexicons name things, and a verb's base form can hold a thing's stem
("voitelee" → "voidella" holds "voide", an ointment).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache

from feedback_intelligence.text import morphology
from feedback_intelligence.text.matching import FoldedText

_WORD = re.compile(r"[^\W_]+(?:-[^\W_]+)*")


@dataclass(frozen=True, slots=True)
class BaseForms:
    """``folded``: the folded written text's words in base form, joined by single spaces."""

    written: str  # the folded written text
    folded: str

    @classmethod
    def of(cls, text: FoldedText) -> BaseForms:
        return _base_forms(text.folded)

    def written_spans(self, needle: str) -> list[tuple[int, int]]:
        """For each occurrence of ``needle`` (folded) here, the span of the folded written text from the first
        word it covers to the last (worked out only then: most texts are matched as written)."""
        if not needle or needle not in self.folded:
            return []
        starts: list[int] = []
        spans: list[tuple[int, int]] = []
        offset = 0
        for match in _WORD.finditer(self.written):
            starts.append(offset)
            spans.append(match.span())
            offset += len(_base_of(match.group(0))) + 1
        found: list[tuple[int, int]] = []
        at = self.folded.find(needle)
        while at >= 0:
            first = bisect_right(starts, at) - 1
            last = bisect_right(starts, at + len(needle) - 1) - 1
            found.append((spans[first][0], spans[last][1]))
            at = self.folded.find(needle, at + 1)
        return found


@lru_cache(maxsize=65536)
def _base_of(word: str) -> str:
    """A folded word's base form; a verb or an unknown word as written (remembered: words repeat)."""
    reading = morphology.preferred(morphology.analyse(word), word)
    return reading.base if reading is not None and reading.word_class != morphology.VERB else word


@lru_cache(maxsize=512)
def _base_forms(folded: str) -> BaseForms:
    return BaseForms(folded, " ".join(map(_base_of, _WORD.findall(folded))))
