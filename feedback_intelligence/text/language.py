"""Deterministic language detection among the few languages a domain expects.

The detector is lingua (``lingua-language-detector``) in its high-accuracy mode, restricted to the
domain's languages, which is what makes it right on a clerk's three-word note (measured against the
alternatives: docs/adr/0009-guards-and-the-prior.md, ``bench/language_detection.py``). Its models take
~1.5-2.5 s and ~125 MB to load and the load holds the GIL, so the service loads them at start-up
(:func:`warm`), never inside a request. Whether a text supports a language the domain does not expect
is asked of one low-accuracy detector over a fixed set of languages a customer plausibly writes in
(trigram models: ~75 ms and a few MB per language), also loaded at start-up: an unexpected code from
the model never makes a request load a model (a lazy load held the GIL and stalled every request on
the event loop for hundreds of milliseconds). A text whose words leave no doubt is decided without lingua
(``text/language_markers.py``, ADR 0084): lingua's answer on every text it decides, its confidence asked of
lingua only when it is read.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from functools import lru_cache

from lingua import ConfidenceValue, IsoCode639_1, LanguageDetector, LanguageDetectorBuilder

from feedback_intelligence.text import language_markers

# Below this many letters a text says too little to contradict anyone ("ok", "kiitos!").
MIN_LETTERS = 12
# A detection this sure counts as clear evidence against another label.
CLEAR_CONFIDENCE = 0.9

_lock = threading.Lock()

# Languages a customer's note plausibly comes in besides the domain's own: a model's code outside
# this set and the domain's languages is never "clearly" right, so no request can widen the models.
OCCASIONAL_LANGUAGES = ("en", "sv", "fi", "et", "ru", "de", "fr", "es", "it", "pl", "uk", "ar")


class LanguageGuess:
    """A text's language among the candidates and lingua's confidence in it (0..1, relative to the candidate
    languages). A language decided by the text's words (:func:`decided`) asks lingua for the confidence only
    when it is read: the rows read only the code, the language guard the confidence only when the model
    names another language."""

    __slots__ = ("_candidates", "_confidence", "_text", "code")

    def __init__(self, code: str, confidence: float) -> None:
        self.code = code  # ISO 639-1
        self._confidence: float | None = confidence
        self._text = ""
        self._candidates: tuple[str, ...] = ()

    @classmethod
    def decided(cls, code: str, text: str, candidates: tuple[str, ...]) -> LanguageGuess:
        guess = cls(code, 0.0)
        guess._confidence, guess._text, guess._candidates = None, text, candidates
        return guess

    @property
    def confidence(self) -> float:
        if self._confidence is None:
            detector = detector_for(self._candidates)
            values = detector.compute_language_confidence_values(self._text) if detector is not None else []
            mine = [v.value for v in values if v.language.iso_code_639_1.name.lower() == self.code]
            self._confidence = float(mine[0]) if mine else 0.0
        return self._confidence

    @property
    def by_words(self) -> bool:
        """Whether the text's words decided the language (lingua was not asked for it)."""
        return bool(self._candidates)

    @property
    def clear(self) -> bool:
        return self.confidence >= CLEAR_CONFIDENCE

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LanguageGuess):
            return NotImplemented
        return (self.code, self.confidence) == (other.code, other.confidence)

    def __hash__(self) -> int:
        return hash(self.code)

    def __repr__(self) -> str:
        shown = "lingua not asked" if self._confidence is None else self._confidence
        return f"LanguageGuess(code={self.code!r}, confidence={shown})"


#: the decision by a text's words, tried before lingua (a name the CPU benches replace to time lingua alone)
pre_decided = language_markers.decided_language


def _iso(code: str) -> IsoCode639_1 | None:
    if len(code) != 2 or not code.isascii() or not code.isalpha():
        return None
    return getattr(IsoCode639_1, code.upper(), None)


def supported(code: str) -> bool:
    """Whether the detector knows language ``code``."""
    return _iso(code) is not None


@lru_cache(maxsize=32)
def _detector(codes: tuple[str, ...], low_accuracy: bool) -> LanguageDetector | None:
    isos = [iso for iso in (_iso(c) for c in codes) if iso is not None]
    if len(isos) < 2:
        return None
    builder = LanguageDetectorBuilder.from_iso_codes_639_1(*isos)
    return (builder.with_low_accuracy_mode() if low_accuracy else builder).build()


def detector_for(codes: tuple[str, ...], *, low_accuracy: bool = False) -> LanguageDetector | None:
    with _lock:  # the first build loads models; two threads need not both do it
        return _detector(tuple(sorted(set(codes))), low_accuracy)


def letter_count(text: str) -> int:
    return sum(map(str.isalpha, text))


def _top(values: list[ConfidenceValue]) -> LanguageGuess | None:
    """The most likely language of lingua's answer (most likely first), or None for no answer."""
    if not values:
        return None
    return LanguageGuess(values[0].language.iso_code_639_1.name.lower(), float(values[0].value))


def _guess(detector: LanguageDetector, text: str) -> LanguageGuess | None:
    return _top(detector.compute_language_confidence_values(text))


def detect_language(text: str, candidates: tuple[str, ...]) -> LanguageGuess | None:
    """The most likely of ``candidates`` for ``text``, or None when the text is too short to say.

    With a single candidate the answer is that candidate at confidence 0 (nothing was compared).
    """
    if not candidates or letter_count(text) < MIN_LETTERS:
        return None
    detector = detector_for(candidates)
    if detector is None:
        return LanguageGuess(candidates[0], 0.0)
    if (code := pre_decided(text, candidates)) is not None:
        return LanguageGuess.decided(code, text, candidates)
    return _guess(detector, text)


# Texts per parallel call: the call holds the GIL throughout (a batch's 1,000 texts held the event loop for
# 0.2–0.8 s), and 32 at a time were as fast as one call of all of them, or faster. And characters: 32 texts
# of 4,000 held it 25–80 ms; two of them take 2–6 ms, at the same cost a text (docs/adr/0043).
PARALLEL_CHUNK = 32
PARALLEL_CHARS = 8_000


def parallel_chunks(indexes: list[int], texts: Sequence[str]) -> list[list[int]]:
    """``indexes`` in order, in chunks of at most PARALLEL_CHUNK texts and PARALLEL_CHARS characters (a
    longer text alone)."""
    chunks: list[list[int]] = []
    chars = 0
    for i in indexes:
        if not chunks or len(chunks[-1]) == PARALLEL_CHUNK or chars + len(texts[i]) > PARALLEL_CHARS:
            chunks.append([])
            chars = 0
        chunks[-1].append(i)
        chars += len(texts[i])
    return chunks


def detect_languages(texts: Sequence[str], candidates: tuple[str, ...]) -> list[LanguageGuess | None]:
    """:func:`detect_language` of many texts at once: lingua spreads them over its threads (a bulk import's
    rows; ~2× faster than one call a text on two cores, in chunks), those its words decide first. The
    confidences equal a single call's to twelve decimal places (the threads add in another order)."""
    long_enough = [i for i, text in enumerate(texts) if candidates and letter_count(text) >= MIN_LETTERS]
    guesses: list[LanguageGuess | None] = [None] * len(texts)
    detector = detector_for(candidates) if long_enough else None
    if detector is None:
        for i in long_enough:
            guesses[i] = LanguageGuess(candidates[0], 0.0)
        return guesses
    undecided = []
    for i in long_enough:
        if (code := pre_decided(texts[i], candidates)) is not None:
            guesses[i] = LanguageGuess.decided(code, texts[i], candidates)
        else:
            undecided.append(i)
    for chunk in parallel_chunks(undecided, texts):
        values = detector.compute_language_confidence_values_in_parallel([texts[i] for i in chunk])
        for i, found in zip(chunk, values, strict=True):
            guesses[i] = _top(found)
    return guesses


def clearly_in(text: str, code: str, expected: tuple[str, ...]) -> bool:
    """Whether ``text`` is clearly in ``code`` rather than any of ``expected`` (low-accuracy models)."""
    if code not in OCCASIONAL_LANGUAGES or not supported(code) or letter_count(text) < MIN_LETTERS:
        return False
    detector = detector_for((*expected, *OCCASIONAL_LANGUAGES), low_accuracy=True)
    guess = _guess(detector, text) if detector is not None else None
    return guess is not None and guess.clear and guess.code == code


def warm(candidates: tuple[str, ...]) -> None:
    """Load the models for ``candidates`` now (start-up), so no request pays for it."""
    for detector in (detector_for(candidates), detector_for((*candidates, *OCCASIONAL_LANGUAGES), low_accuracy=True)):
        if detector is not None:
            detector.compute_language_confidence_values("warm up the models")
