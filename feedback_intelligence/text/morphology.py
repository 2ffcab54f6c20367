"""Word morphology: base forms, word classes and compound parts. Finnish through Voikko; the one place that knows it.

Voikko (Debian ``libvoikko1`` + ``voikko-fi``, the ``libvoikko`` ctypes binding from PyPI) is the
morphology behind LibreOffice's Finnish spell checker: ~30 ms to load, ~0.06 ms a word, ~20 MB.

* :func:`analyse` — every reading of one word: ``Analysis(base, word_class, parts, finite)``;
* :func:`base_form` — the word's base form, lower case ("kuitin" → "kuitti", "hyllyt" → "hylly"; the
  reading :func:`preferred` picks where a word has several);
* :func:`base_phrase` — :func:`base_form` of each word of a short phrase;
* :func:`warm` — loads Voikko at start-up and logs what the service runs with.

**Fallback** (documented, plain): where Voikko or its Finnish dictionary is missing, and for every
language other than Finnish, :func:`analyse` returns no reading and :func:`base_form` returns the word
as written, in lower case. Nothing fails; themes then keep the text's inflected words, and the start-up
log says so once, with what to install.
"""

from __future__ import annotations

import logging
import re
import threading
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

log = logging.getLogger(__name__)

FINNISH = "fi"

# Word classes, Voikko's CLASS values mapped to plain English names.
NOUN = "noun"
PROPER_NOUN = "proper_noun"
ADJECTIVE = "adjective"
VERB = "verb"
ADVERB = "adverb"
PRONOUN = "pronoun"
NUMERAL = "numeral"
ABBREVIATION = "abbreviation"
OTHER = "other"  # adpositions, conjunctions, interjections, prefixes

_CLASSES: dict[str, str] = {
    "nimisana": NOUN,
    "nimisana_laatusana": NOUN,  # "tosi", "kylmä": both; a theme may use them as nouns
    "laatusana": ADJECTIVE,
    "teonsana": VERB,
    "kieltosana": VERB,  # "ei": always finite
    "seikkasana": ADVERB,
    "asemosana": PRONOUN,
    "lukusana": NUMERAL,
    "lyhenne": ABBREVIATION,
    "etunimi": PROPER_NOUN,
    "sukunimi": PROPER_NOUN,
    "paikannimi": PROPER_NOUN,
    "nimi": PROPER_NOUN,
}
_FINITE_MOODS = frozenset({"indicative", "conditional", "imperative", "potential"})
# The order base_form prefers among readings: a noun before anything else ("hyllyt" is the plural of
# "hylly", not a form of the verb "hyllyä"), a verb last.
_PREFERENCE = (NOUN, PROPER_NOUN, ADJECTIVE, NUMERAL, ABBREVIATION, PRONOUN, ADVERB, OTHER, VERB)
_WORD = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*")
_MAX_WORD = 80  # longer "words" are not words; Voikko is not asked


@dataclass(frozen=True, slots=True)
class Analysis:
    """One reading of a word."""

    base: str  # the base form, lower case ("kuitti")
    word_class: str  # NOUN, VERB, … (module constants)
    parts: tuple[str, ...]  # compound parts in base form ("maito", "hylly"); one part for a simple word
    finite: bool = False  # a verb in a finite form ("valitti", "olivat", "ei"): a sentence, not a name


class _Voikko:
    """The one Voikko handle of the process, behind a lock (a handle is not thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._handle: Any = None
        self._loaded = False
        self.reason = ""  # why Voikko is not available, for the start-up log
        self.version = ""

    def _load(self) -> None:
        self._loaded = True
        try:
            from libvoikko import Voikko  # type: ignore[import-untyped]  # optional: the fallback runs without
        except ImportError:
            self.reason = "the libvoikko Python package is not installed"
            return
        try:
            self._handle = Voikko(FINNISH)
            self.version = str(Voikko.getVersion())
        except Exception as exc:  # a missing libvoikko.so.1 (OSError) or Finnish dictionary (VoikkoException)
            self.reason = f"{type(exc).__name__}: {exc}"
            self._handle = None

    def analyse(self, word: str) -> list[dict[str, str]] | None:
        with self._lock:
            if not self._loaded:
                self._load()
            if self._handle is None:
                return None
            return list(self._handle.analyze(word))

    @property
    def available(self) -> bool:
        with self._lock:
            if not self._loaded:
                self._load()
            return self._handle is not None


_voikko = _Voikko()


def available(language: str = FINNISH) -> bool:
    """Whether ``language`` has a morphology here (only Finnish can, through Voikko)."""
    return language == FINNISH and _voikko.available


def warm() -> None:
    """Load Voikko now (start-up) and log once what the service's themes and rules run with."""
    if _voikko.available:
        log.info("Finnish morphology: Voikko %s (base forms, word classes, compound parts)", _voikko.version)
    else:
        log.warning(
            "Finnish morphology unavailable (%s): Finnish words are kept as written, in lower case. "
            "Install the Debian packages libvoikko1 and voikko-fi (scripts/bootstrap.sh does) and the "
            "libvoikko Python package",
            _voikko.reason,
        )


def _parts(reading: dict[str, str], word: str, base: str) -> tuple[str, ...]:
    """Compound parts from Voikko's STRUCTURE (one mark per letter of the word, "=" where a part starts):
    the parts before the last as written (they are in base form in a Finnish compound), the last one what
    the base form has left ("itsepalvelukassoista" → itse, palvelu, kassa)."""
    structure = reading.get("STRUCTURE", "")
    starts: list[int] = []
    position = 0
    for mark in structure:
        if mark == "=":
            starts.append(position)
        else:
            position += 1
    if len(starts) < 2 or position != len(word):
        return (base,)
    lowered = word.lower()
    pieces = [lowered[a:b].strip("-") for a, b in zip(starts, [*starts[1:], len(word)], strict=True)]
    head = "".join(lowered[starts[0] : starts[-1]])
    if not base.startswith(head):
        return (base,)
    last = base[len(head) :].strip("-")
    parts = [p for p in pieces[:-1] if p] + ([last] if last else [])
    return tuple(parts) or (base,)


def _reading(reading: dict[str, str], word: str) -> Analysis:
    word_class = _CLASSES.get(reading.get("CLASS", ""), OTHER)
    base = unicodedata.normalize("NFC", reading.get("BASEFORM", word)).lower()
    finite = reading.get("CLASS") == "kieltosana" or (
        word_class == VERB and reading.get("MOOD", "") in _FINITE_MOODS and "PERSON" in reading
    )
    return Analysis(base, word_class, _parts(reading, word, base), finite)


@lru_cache(maxsize=16384)
def _analyse_finnish(word: str) -> tuple[Analysis, ...]:
    readings = _voikko.analyse(word)
    if not readings:
        return ()
    unique = dict.fromkeys(_reading(r, word) for r in readings)
    return tuple(unique)


@lru_cache(maxsize=65536)
def analyse(word: str, language: str = FINNISH) -> tuple[Analysis, ...]:
    """Every reading of ``word`` (one word, no spaces); empty for an unknown word, another language, or
    where Voikko is missing. Remembered as written: the rules ask about each word of a text several times
    (the theme, the topic nouns, the word classes), and the checks before the lookup cost more than it."""
    if language != FINNISH:
        return ()
    word = unicodedata.normalize("NFC", word.strip())
    if not word or len(word) > _MAX_WORD or len(word.split()) > 1:  # split: the whitespace isspace() knows
        return ()
    return _analyse_finnish(word)


def preferred(readings: tuple[Analysis, ...], word: str = "") -> Analysis | None:
    """The reading a theme means: by word class (nouns first, verbs last: "tuli" is fire before it is
    "tulla"), then the fewest compound parts (a simple word before an accidental compound: "perunoista" is
    "peruna", not "peru" + "noki"; "kuumaa" is "kuuma", not "kuu" + "maa"), then the word itself if it is
    already a base form."""
    if not readings:
        return None
    folded = word.lower()
    return min(readings, key=lambda r: (_PREFERENCE.index(r.word_class), len(r.parts), r.base != folded))


@lru_cache(maxsize=65536)
def base_form(word: str, language: str = FINNISH) -> str:
    """The base form of ``word`` in lower case ("kuitin" → "kuitti"); the word as written, in lower case,
    where there is no reading (unknown word, another language, no Voikko). Remembered per word: the
    sentiment reading asks about every word of every text, and a language's words repeat."""
    reading = preferred(analyse(word, language), word)
    return reading.base if reading is not None else unicodedata.normalize("NFC", word.strip()).lower()


def words(phrase: str) -> list[str]:
    """The words of ``phrase`` as :func:`base_phrase` sees them (letters and digits; inner hyphens kept)."""
    return _WORD.findall(unicodedata.normalize("NFC", phrase))


def base_phrase(phrase: str, language: str = FINNISH) -> str:
    """Each word of ``phrase`` in its base form, joined by single spaces ("rikkinäisiä kananmunia" →
    "rikkinäinen kananmuna"). Meant for short phrases such as themes."""
    return " ".join(base_form(w, language) for w in words(phrase))
