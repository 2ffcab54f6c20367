"""Word sets the theme guard compares against, derived from the domain and the real prompt, never hand-listed.

* the prompt vocabulary: the words of the structuring prompt's instructions (the template as filled
  for the domain, minus its category list, plus the corrective re-prompt), the fence markers, the JSON
  schema's field names and every enum key — what an echoing model copies;
* the domain vocabulary: category keys, labels and hints, keyword and alert stems (not the prior's tone cues, not
  the parts of a co-occurrence alert pattern) —
  words a grounded theme may use even when the text spells them otherwise.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from dataclasses import dataclass

from feedback_intelligence.domain.model import Domain
from feedback_intelligence.structuring.prompt import StructuringPrompt
from feedback_intelligence.structuring.schema import structure_json_schema
from feedback_intelligence.structuring.untrusted import FENCE_CLOSE, FENCE_OPEN
from feedback_intelligence.text.matching import fold

_WORD = re.compile(r"\w+")
_MARKER_PUNCTUATION = re.compile(r"[<>]{2,}")
_NEAR_ECHO_MIN = 8  # shorter words have too many honest neighbours within an edit
_LETTERS_PER_EDIT = 6  # one edit allowed per six letters of the marker word
_PHRASE_WORD_MAX_SHORT = 3  # a keyword phrase's words this short are not domain vocabulary


def edit_distance(a: str, b: str, limit: int) -> int:
    """Levenshtein distance of ``a`` and ``b``, or ``limit + 1`` as soon as it must exceed ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    # each edit mends at most one letter of ``a`` that ``b`` lacks: more such letters than the limit is over it
    if (Counter(a) - Counter(b)).total() > limit:
        return limit + 1
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        current = [i]
        for j, y in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        if min(current) > limit:
            return limit + 1
        previous = current
    return previous[-1]


def words(text: str) -> list[str]:
    """The folded words of ``text`` (letters, digits and underscores; everything else separates)."""
    return _WORD.findall(fold(text))


def phrase(text: str) -> str:
    """``text`` folded, as its words joined by single spaces (how phrases are compared)."""
    return " ".join(words(text))


@dataclass(frozen=True, slots=True)
class PromptVocabulary:
    instructions: str  # the instruction text as a phrase, padded with spaces for whole-word search
    words: frozenset[str]  # every word of the instructions, field names, enum keys, marker words
    keys: frozenset[str]  # field names, enum keys (categories too) and marker words, folded
    markers: tuple[str, ...]  # the fence markers, folded
    marker_words: tuple[str, ...] = ()  # the markers' words long enough to have garbled look-alikes

    def echoes(self, theme: str) -> bool:
        folded = fold(theme)
        if _MARKER_PUNCTUATION.search(folded) or any(m in folded for m in self.markers):
            return True
        theme_words = words(theme)
        if not theme_words:
            return False
        joined = " ".join(theme_words)
        if joined in self.keys or any(w in self.keys and "_" in w for w in theme_words):
            return True
        if f" {joined} " in self.instructions:
            return True
        return all(w in self.words for w in theme_words)

    def near_echoes(self, theme: str) -> bool:
        """A word of ``theme`` within a few edits of a fence marker word ("asiakaspalate" for
        "asiakaspalaute"): a model garbling the marker it was shown, in any case."""
        theme_words = words(theme)
        joined = "".join(theme_words)
        for marker in self.marker_words:
            limit = max(1, len(marker) // _LETTERS_PER_EDIT)
            if any(edit_distance(word, marker, limit) <= limit for word in theme_words):
                return True
            # the words run together ("asiakas-palaute" is the marker with a hyphen in it), one edit at most:
            # "asiakas palautti" (the customer returned) is two edits away and an ordinary phrase
            if len(theme_words) > 1 and edit_distance(joined, marker, 1) <= 1:
                return True
        return False


@dataclass(frozen=True, slots=True)
class DomainVocabulary:
    words: frozenset[str]  # folded words and stems of at least three letters
    by_prefix: dict[str, tuple[str, ...]]  # first three letters -> words (related words share them)

    def candidates(self, word: str) -> tuple[str, ...]:
        return self.by_prefix.get(word[:3], ())


def _prompt_vocabulary(domain: Domain) -> PromptVocabulary:
    instructions = phrase(StructuringPrompt.instructions(domain))
    schema = structure_json_schema(domain)
    properties: dict = schema["properties"]
    keys = {fold(name) for name in properties}
    for spec in properties.values():
        keys.update(fold(v) for v in spec.get("enum", ()))
    markers = tuple(fold(m) for m in (FENCE_OPEN, FENCE_CLOSE))
    for marker in markers:
        keys.update(words(marker))
        keys.add(phrase(marker))
    all_words = set(instructions.split()) | {w for key in keys for w in words(key)} | keys
    # whole marker words only: their parts ("palaute", feedback) are ordinary words a theme may use
    marker_words = {w for m in markers for w in words(m) if len(w) >= _NEAR_ECHO_MIN}
    return PromptVocabulary(
        f" {instructions} ", frozenset(all_words), frozenset(keys), markers, tuple(sorted(marker_words))
    )


def _domain_vocabulary(domain: Domain) -> DomainVocabulary:
    sources: list[str] = []
    sources.extend(domain.categories)
    sources.extend(domain.categories.values())
    sources.extend(domain.category_hints.values())
    for rule in domain.category_keywords:
        for term in (*rule.terms, *rule.weak_terms):
            parts = words(term)
            # a phrase's short words ("vid kassan", "frying pan", "dog food") name nothing alone
            sources.extend(parts if len(parts) == 1 else [w for w in parts if len(w) > _PHRASE_WORD_MAX_SHORT])
    for patterns in domain.alert_keywords.values():
        # a co-occurrence pattern's parts ("kuum", "auki") name a subject only together: not vocabulary alone
        sources.extend(p for p in patterns if "&" not in p)
    stop = {fold(s) for s in domain.prior.stopwords}
    found = {w for text in sources for w in words(text.replace("_", " ")) if len(w) >= 3 and w not in stop}
    by_prefix: dict[str, list[str]] = {}
    for word in sorted(found):
        by_prefix.setdefault(word[:3], []).append(word)
    return DomainVocabulary(frozenset(found), {k: tuple(v) for k, v in by_prefix.items()})


class _PerDomain:
    """Computed once per Domain object (domains are built once at start-up; tests build a few)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cache: dict[int, tuple[Domain, PromptVocabulary, DomainVocabulary]] = {}

    def get(self, domain: Domain) -> tuple[PromptVocabulary, DomainVocabulary]:
        entry = self._cache.get(id(domain))
        if entry is None or entry[0] is not domain:
            entry = (domain, _prompt_vocabulary(domain), _domain_vocabulary(domain))
            with self._lock:
                if len(self._cache) > 32:
                    self._cache.clear()
                self._cache[id(domain)] = entry
        return entry[1], entry[2]


_vocabularies = _PerDomain()


def prompt_vocabulary(domain: Domain) -> PromptVocabulary:
    return _vocabularies.get(domain)[0]


def domain_vocabulary(domain: Domain) -> DomainVocabulary:
    return _vocabularies.get(domain)[1]
