"""Does model prose give orders? Judged by meaning: base forms and word classes, not a phrase list.

The report describes what customers said; it never advises (no domain today asks it to), and above
all it never gives instructions about people. A substring list missed "Myymäläpäällikkö Virtanen
pitää erottaa heti." (ADR 0023); here each word is read through :mod:`feedback_intelligence.text.morphology`
(Voikko's base forms), so every inflection of a verb counts as the verb. Prose is rejected when it
has any of:

============== =============================================================================
class          what it is (Finnish base forms; English stems)
============== =============================================================================
personnel      a verb or noun of dismissing, laying off or disciplining someone, in any form:
               erottaa, irtisanoa, lomauttaa, rangaista, nuhdella, kurittaa, their necessive
               and past participles (erotettava, irtisanottu …), potkut, kurinpito, rangaistus;
               dismiss, fire(d) someone, sack, lay off, discipline, punish, reprimand, suspend —
               only in a sentence that names a person it could be done to: a staff role (the
               role nouns below, "henkilökunta"), a proper name, "hänet"/"heidät"; him, her,
               them, a staff word. "Asiakkaat irtisanoivat lehtitilauksensa" (cancelled their
               subscriptions) and "erota toisistaan" (to differ) describe, they do not order
naming         a staff role next to a proper name: myymäläpäällikkö Virtanen, Virtasen esimies
               (role nouns by their last compound part: päällikkö, myyjä, hoitaja, esimies,
               työntekijä, johtaja …; manager, clerk, cashier, employee … before a capitalised
               word)
obligation     a modal verb of necessity or advice before an infinitive (pitää, täytyä,
               kannattaa, tarvita: "pitää erottaa", "kannattaisi lisätä"), a necessive
               construction ("on tarkistettava"), "on syytä" / "olisi hyvä"; should, must,
               need to, ought to
recommendation a verb of recommending in the first person or the passive (suosittelen,
               ehdotamme, suositellaan, kehotetaan); we/I recommend or suggest
imperative     a plural imperative, the form that addresses management ("sulkekaa",
               "hyvittäkää")
============== =============================================================================

Without Voikko (see the morphology module's fallback) the Finnish words are compared as written,
so the classes still catch their base forms and the listed surface forms, not every inflection.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

from feedback_intelligence.text import morphology
from feedback_intelligence.text.morphology import PROPER_NOUN, VERB, Analysis

DirectiveKind = Literal["personnel", "naming", "obligation", "recommendation", "imperative"]

PERSONNEL_BASES = frozenset(
    {
        "erottaa",
        "irtisanoa",
        "lomauttaa",
        "rangaista",
        "nuhdella",
        "kurittaa",
        "erotettava",
        "erotettu",
        "irtisanottava",
        "irtisanottu",
        "lomautettava",
        "rangaistava",
        "potku",
        "potkut",
        "irtisanominen",
        "erottaminen",
        "kurinpito",
        "rangaistus",
        "kurinpidollinen",
    }
)
ROLE_PARTS = frozenset(
    {
        "päällikkö",
        "myyjä",
        "hoitaja",
        "esimies",
        "työntekijä",
        "tekijä",
        "johtaja",
        "vastaava",
        "harjoittelija",
        "vartija",
        "kassahenkilö",
        "henkilö",
        "henkilökunta",
        "apulainen",
    }
)
MODAL_BASES = frozenset({"pitää", "täytyä", "kannattaa", "tarvita"})
RECOMMEND_BASES = frozenset({"suositella", "ehdottaa", "kehottaa", "neuvoa", "vaatia"})
_NECESSIVE = re.compile(r"(?:tt|t|d)(?:ava|ävä)$")  # tarkistettava, tehtävä, myytävä
_FIRST_PERSON = re.compile(r"(?:n|mme)$")  # suosittelen, ehdotamme (on a finite verb of the class)
_PASSIVE = re.compile(r"(?:aan|ään)$")  # suositellaan, kehotetaan
_PLURAL_IMPERATIVE = re.compile(r"(?:kaa|kää|gaa|gää)$")  # sulkekaa, hyvittäkää
_OBLIGATION_PHRASES = ("on syytä", "olisi syytä", "olisi hyvä", "on hyvä", "on tärkeää")

_EN_PERSONNEL = re.compile(
    r"\b(?:dismiss\w*|sack(?:ed|ing)?|lay(?:ing)? off|laid off|disciplin\w*|punish\w*|reprimand\w*|suspend\w*"
    r"|fire[ds]? (?:him|her|them|the|this|that)|firing (?:him|her|them|the))\b"
)
_EN_ADVICE = re.compile(
    r"\b(?:should|must|ought to|need to|needs to|(?:we|i) (?:recommend|suggest|propose|advise)|recommended)\b"
)
# who a personnel word can be about: without one in its sentence the word has another sense
_EN_PERSON = re.compile(
    r"\b(?i:manager|clerk|cashier|employee|staff|worker|supervisor|assistant|him|her|them)s?\b|(?<=\w )[A-Z][a-z]+"
)
_FI_PERSON_FORMS = frozenset({"hänet", "heidät", "häntä", "heitä", "hänelle", "heille", "hänen", "heidän"})
_SENTENCE = re.compile(r"[^.!?\n]+")
_EN_ROLE_NAME = re.compile(
    r"\b(?i:manager|clerk|cashier|employee|staff member|worker|supervisor|assistant)\s+[A-Z][a-z]+"
)

_WORD = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*", re.UNICODE)
_MODAL_REACH = 3  # the infinitive may follow the modal by a word or two ("pitää heti erottaa")


def _readings(word: str) -> tuple[Analysis, ...]:
    found = morphology.analyse(word)
    if found:
        return found
    return (Analysis(word.lower(), "", (word.lower(),)),)  # the fallback: the word as written


def directive_kind(text: str | None) -> DirectiveKind | None:
    """The first class of directive ``text`` contains (module docstring), or ``None`` for descriptive prose."""
    if not text:
        return None
    text = unicodedata.normalize("NFC", text)
    folded = text.casefold()
    if any(_is_personnel(sentence.group(0)) for sentence in _SENTENCE.finditer(text)):
        return "personnel"
    if _EN_ROLE_NAME.search(text):
        return "naming"
    tokens = _WORD.findall(text)
    readings = [_readings(token) for token in tokens]
    for index, word in enumerate(readings):
        if _is_role(word) and _has_name_beside(tokens, readings, index):
            return "naming"
    if _EN_ADVICE.search(folded) or any(phrase in folded for phrase in _OBLIGATION_PHRASES):
        return "obligation"
    for index, (token, word) in enumerate(zip(tokens, readings, strict=True)):
        lowered = token.lower()
        if any(r.base in MODAL_BASES and r.word_class == VERB for r in word) and _infinitive_follows(readings, index):
            return "obligation"
        if index > 0 and tokens[index - 1].lower() in ("on", "ovat", "olisi", "oli") and _NECESSIVE.search(lowered):
            return "obligation"
        if any(r.base in RECOMMEND_BASES and r.finite for r in word) and (
            _FIRST_PERSON.search(lowered) or _PASSIVE.search(lowered)
        ):
            return "recommendation"
        if any(r.word_class == VERB and r.finite for r in word) and _PLURAL_IMPERATIVE.search(lowered):
            return "imperative"
    return None


def gives_directive(text: str | None) -> bool:
    return directive_kind(text) is not None


def _is_personnel(sentence: str) -> bool:
    """A word of dismissing or disciplining in a sentence that names a person it could be done to."""
    if _EN_PERSONNEL.search(sentence.casefold()) and _EN_PERSON.search(sentence):
        return True
    tokens = _WORD.findall(sentence)
    readings = [_readings(token) for token in tokens]
    if not any(r.base in PERSONNEL_BASES for word in readings for r in word):
        return False
    return any(
        token.lower() in _FI_PERSON_FORMS
        or _is_role(word)
        or (token[:1].isupper() and any(r.word_class == PROPER_NOUN for r in word))
        for token, word in zip(tokens, readings, strict=True)
    )


def _is_role(word: tuple[Analysis, ...]) -> bool:
    return any(r.word_class != PROPER_NOUN and (r.parts[-1] in ROLE_PARTS or r.base in ROLE_PARTS) for r in word)


def _has_name_beside(tokens: list[str], readings: list[tuple[Analysis, ...]], index: int) -> bool:
    for other in (index - 1, index + 1):
        if (
            0 <= other < len(tokens)
            and tokens[other][:1].isupper()
            and any(r.word_class == PROPER_NOUN for r in readings[other])
        ):
            return True
    return False


def _infinitive_follows(readings: list[tuple[Analysis, ...]], index: int) -> bool:
    for word in readings[index + 1 : index + 1 + _MODAL_REACH]:
        if any(r.word_class == VERB and not r.finite for r in word):
            return True
    return False
