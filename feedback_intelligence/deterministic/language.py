"""Deterministic language detection among the few languages a domain expects.

The detector is lingua (``lingua-language-detector``), restricted to the domain's languages, which is
what makes it accurate on a clerk's five-word note (measured against alternatives: see
docs/adr/0009-language-detection.md and ``bench/language_detection.py``). Detectors are built lazily
and kept per language set; lingua's detectors are thread-safe and hold no per-call state.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import lru_cache

from lingua import IsoCode639_1, LanguageDetector, LanguageDetectorBuilder

# Below this many letters a text says too little to contradict anyone ("ok", "kiitos!").
MIN_LETTERS = 12
# A detection this sure counts as clear evidence against another label.
CLEAR_CONFIDENCE = 0.9

_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class LanguageGuess:
    code: str  # ISO 639-1
    confidence: float  # 0..1, relative to the candidate languages

    @property
    def clear(self) -> bool:
        return self.confidence >= CLEAR_CONFIDENCE


def _iso(code: str) -> IsoCode639_1 | None:
    if len(code) != 2 or not code.isascii() or not code.isalpha():
        return None
    return getattr(IsoCode639_1, code.upper(), None)


def supported(code: str) -> bool:
    """Whether the detector knows language ``code``."""
    return _iso(code) is not None


@lru_cache(maxsize=16)
def _detector(codes: tuple[str, ...]) -> LanguageDetector | None:
    isos = [iso for iso in (_iso(c) for c in codes) if iso is not None]
    if len(isos) < 2:
        return None
    return LanguageDetectorBuilder.from_iso_codes_639_1(*isos).build()


def detector_for(codes: tuple[str, ...]) -> LanguageDetector | None:
    with _lock:  # the first build loads models; two threads need not both do it
        return _detector(tuple(sorted(set(codes))))


def letter_count(text: str) -> int:
    return sum(1 for ch in text if ch.isalpha())


def detect_language(text: str, candidates: tuple[str, ...]) -> LanguageGuess | None:
    """The most likely of ``candidates`` for ``text``, or None when the text is too short to say.

    With a single candidate the answer is that candidate at confidence 0 (nothing was compared).
    """
    if not candidates or letter_count(text) < MIN_LETTERS:
        return None
    detector = detector_for(candidates)
    if detector is None:
        return LanguageGuess(candidates[0], 0.0)
    values = detector.compute_language_confidence_values(text)
    if not values:
        return None
    top = values[0]
    return LanguageGuess(top.language.iso_code_639_1.name.lower(), float(top.value))
