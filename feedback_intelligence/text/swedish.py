"""Swedish nouns without a tagger: the one place that guesses which Swedish words are nouns.

simplemma (text/lemmas.py) gives base forms but no word classes, so a Swedish text's nouns are read
from two plain signs, enough to choose a theme (a wrong guess costs a worse theme, never an error):

* a word right after a preposition or an article, an adjective or two allowed between ("vid
  ingången", "på en vass hyllkant", "för bra service");
* a word with the definite ending of a noun ("kycklingen", "priserna", "kaffeautomaten") that is not
  a listed function word, adverb or verb form.

Verbs, adverbs and function words are a closed list here (the commonest in feedback a clerk copies in:
"blev", "fick", "halkade", "efter", "mycket"); a word ending in a past-tense ``-de``/``-te`` or a
present ``-ar``/``-er`` after a subject is taken for a verb.
"""

from __future__ import annotations

import re

SWEDISH = "sv"

_PREPOSITIONS = frozenset((
    "på", "vid", "i", "av", "till", "med", "från", "för", "om", "under", "över", "efter", "mot", "hos", "ur",
    "utan", "bakom", "framför", "bredvid", "genom",
))  # fmt: skip
_ARTICLES = frozenset((
    "en", "ett", "den", "det", "de", "denna", "detta", "dessa", "min", "mitt", "mina", "din", "ditt", "dina",
    "er", "ert", "era", "vår", "vårt",
))  # fmt: skip
_FUNCTION = frozenset((
    "och", "att", "som", "var", "är", "inte", "men", "eller", "så", "när", "då", "nu", "här", "där", "jag",
    "du", "han", "hon", "vi", "ni", "dom", "de", "sig", "sin", "sitt", "sina", "hela", "helt", "alla", "allt",
    "mycket", "lite", "bara", "också", "redan", "ännu", "igen", "aldrig", "alltid", "väldigt", "jätte", "mer",
    "mest", "efter", "innan", "eftersom", "fast", "trots", "tack", "hej", "ja", "nej", "ingen", "inget",
    "inga", "någon", "något", "några", "vad", "vem", "varför", "hur", "kunde", "skulle", "måste", "ville",
    "vill", "kan", "ska", "har", "hade", "blev", "blir", "fick", "får", "gick", "går", "kom", "kommer", "sa",
    "sade", "bröt", "ätit", "åt", "köpte", "köpt", "hittade", "hittat", "hett", "varmt", "kallt", "vass",
    "vasst",
))  # fmt: skip
_ADJECTIVE_ENDINGS = ("ig", "igt", "iga", "lig", "ligt", "liga", "isk", "iskt", "iska", "sam", "samt")
_DEFINITE_ENDINGS = ("en", "et", "na", "an", "n")
_VERB_ENDINGS = ("ade", "ades", "de", "te", "des", "tes", "erade")
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
_BREAK = re.compile(r"[.,!?;:]")
_MIN_NOUN = 4
_ADJECTIVE_REACH = 2  # words between a preposition or article and its noun ("på en vass hyllkant")


def _is_function(word: str, function: frozenset[str]) -> bool:
    return word in _FUNCTION or word in function or word in _PREPOSITIONS or word in _ARTICLES


def _verb_like(word: str) -> bool:
    return word.endswith(_VERB_ENDINGS) and not word.endswith(("ande", "ende", "tet"))


def nouns(text: str, function: frozenset[str] = frozenset()) -> list[str]:
    """The words of a Swedish text that read as nouns, lower case, in text order, each once."""
    return [word for word, _ in readings(text, function)]


def placed_nouns(text: str, function: frozenset[str] = frozenset()) -> list[str]:
    """The nouns a preposition or an article introduces ("vid ingången"): the things and places a text is
    about, before a noun known only by its ending ("bröt handleden": what was hurt)."""
    return [word for word, introduced in readings(text, function) if introduced]


def readings(text: str, function: frozenset[str] = frozenset()) -> list[tuple[str, bool]]:
    """Each noun of the text once, in text order, and whether a preposition or an article introduces it."""
    found: dict[str, bool] = {}
    for clause in _BREAK.split(text.lower()):
        tokens = _WORD.findall(clause)
        for at, word in enumerate(tokens):
            if len(word) < _MIN_NOUN or _is_function(word, function) or _verb_like(word):
                continue
            before = tokens[max(0, at - _ADJECTIVE_REACH - 1) : at]
            introduced = any(w in _PREPOSITIONS or w in _ARTICLES for w in before)
            adjective = word.endswith(_ADJECTIVE_ENDINGS)
            definite = word.endswith(_DEFINITE_ENDINGS) and len(word) > _MIN_NOUN + 1
            if (introduced or definite) and not adjective:
                found[word] = found.get(word, False) or introduced
    return list(found.items())
