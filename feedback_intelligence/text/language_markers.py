"""A text's language decided without lingua when its words leave no doubt.

Lingua's high-accuracy detection costs about 0.15–0.3 ms of CPU a text, the largest single part of a batch
row's rules and of an ``/interpret`` outside the model. Most notes are plainly in one language, and a text is
decided here, among a domain's candidate languages, only when

- it holds no function word of two languages (nor one of a language the domain does not expect), and no
  letter its language does not write; and
- Finnish: Voikko knows the words holding :data:`FINNISH_SHARE` of its letters (a clerk's note is mostly
  content words: "maito hapanta, asiakas toi takas"), or it holds the function words below; or
- another language: it holds :data:`MIN_MARKERS` distinct function words of that language, at least
  :data:`MIN_SHARE` of its words, and no word of four letters or more Voikko knows as Finnish (lingua weighs
  a Finnish phrase's long words above a few English ones).

Every other text goes to lingua, and so does a domain with a language not listed here. A word that is a
function word in two of the languages listed ("ja", "en", "de", "on", "men", "et") marks neither. Checked
against lingua on every eval-set and demo-corpus text and on generated mixed texts (ADR 0084,
``tests/text/test_language_markers.py``): wherever it decides, lingua names the same language. Lingua's
confidence is asked only when it is read (``LanguageGuess``): some decided English notes are not "clear"
to lingua among four languages.
"""

from __future__ import annotations

import re
from functools import lru_cache

from feedback_intelligence.text import morphology

MIN_MARKERS = 3
MIN_SHARE = 0.3
FINNISH_SHARE = 0.8
FINNISH = morphology.FINNISH

# Frequent function words a language's notes use (lowercase, as written); what two lists share marks neither.
_MARKERS: dict[str, str] = {
    "fi": """
        oli olivat ole olla ollut olen olisi ovat että mutta kun niin myös vain nyt sitten koska kuin mitä
        mikä joka jossa hän minä eikä vielä hyvin aina liian todella ihan tosi kaikki tämä tässä siitä kanssa
        jos kuitenkin tuli mukaan vaikka eli sitä siellä täällä kiitos paljon miksi miten missä meidän minun
        jotain mitään kuten vähän ettei enää
    """,
    "sv": """
        och att det är jag inte som för med har på av ett om kan hade eller mycket bara när vi också efter
        från något ingen inga finns blev vara sig hon han mig min mitt skulle kunde tack hej du den till men
        de en var
    """,
    "en": """
        the and was is it of to that this with for not but they have had very my you are were there their
        would could about from what when which been be at so too also just she we our your after again
        because should its an
    """,
    "de": """
        und der die das ist nicht ich es sie mit auf für ein eine zu den dem von sich auch wenn aber noch wird
        werden sind war hat haben mehr immer schon nur kann bitte wieder sehr keine kein oder wie man mich mir
        dass du in
    """,
    "fr": """
        le la les et est des une un du pas que qui je il ne pour dans sur avec ce cette mais plus très tout
        sont au aux nous vous ils elle mon mes été fait encore depuis trop même son en de
    """,
    "es": """
        el los las y es del una por con para muy pero más está como lo al sin este esta todo hay también
        cuando porque siempre ya mi yo tengo puedo nada son fue era de en no la un que le les se
    """,
}
# Function words of more than one language, though listed for at most one here: they mark nothing.
_SHARED = frozenset(["ja", "on", "se", "me", "he", "ei", "no", "in", "i", "a", "en", "men", "jo", "tai", "et"])

# The letters each language's notes are written in; a text with any other letter is left to lingua.
_LETTERS: dict[str, frozenset[str]] = {
    code: frozenset("abcdefghijklmnopqrstuvwxyz" + extra)
    for code, extra in {
        "fi": "äöå",
        "sv": "äöåé",
        "en": "",
        "de": "äöüß",
        "fr": "àâæçéèêëîïôœùûüÿ",
        "es": "áéíóúüñ",
    }.items()
}

_WORD = re.compile(r"[^\W\d_]+")

Markers = tuple[tuple[str, frozenset[str]], ...]


@lru_cache(maxsize=32)
def _markers(candidates: tuple[str, ...]) -> Markers | None:
    """Each candidate's function words no other listed language uses, then each other listed language's (a
    note in a language the domain does not expect is not decided either); None when a candidate is not
    listed (a language without a list cannot be ruled out: no text is decided)."""
    if len(candidates) < 2 or any(code not in _MARKERS for code in candidates):
        return None
    words = {code: frozenset(listed.split()) for code, listed in _MARKERS.items()}
    found = []
    for code in (*candidates, *(c for c in _MARKERS if c not in candidates)):
        others = frozenset().union(*(w for other, w in words.items() if other != code))
        found.append((code, words[code] - others - _SHARED))
    return tuple(found)


def decided_language(text: str, candidates: tuple[str, ...]) -> str | None:
    """The language of ``text`` among ``candidates`` when its words leave no doubt, else None (ask lingua)."""
    markers = _markers(candidates)
    if markers is None:
        return None
    words = _WORD.findall(text.lower())
    if not words:
        return None
    letters = "".join(set(words))
    spoken = [(code, own) for code, own in markers if not own.isdisjoint(words)]
    if not spoken:
        return FINNISH if _mostly_finnish(words, letters, candidates) else None
    if len(spoken) > 1:
        return None  # two languages' function words
    code, own = spoken[0]
    if code not in candidates or not _LETTERS[code].issuperset(letters):
        return None  # a language not expected, or a letter it does not write
    plainly = len(own.intersection(words)) >= MIN_MARKERS and sum(w in own for w in words) >= MIN_SHARE * len(words)
    if code == FINNISH:
        return code if plainly or _mostly_finnish(words, letters, candidates) else None
    return code if plainly and not _a_finnish_word(words, markers) else None


def _mostly_finnish(words: list[str], letters: str, candidates: tuple[str, ...]) -> bool:
    """Whether Voikko knows the words holding FINNISH_SHARE of the text's letters (False without Voikko)."""
    if FINNISH not in candidates or not morphology.available(FINNISH) or not _LETTERS[FINNISH].issuperset(letters):
        return False
    known = sum(len(word) for word in words if morphology.analyse(word))
    return known >= FINNISH_SHARE * sum(map(len, words))


def _a_finnish_word(words: list[str], markers: Markers) -> bool:
    """Whether a word of four letters or more outside every list is one Voikko knows (True without Voikko)."""
    if not morphology.available(FINNISH):
        return True
    listed = frozenset().union(*(own for _, own in markers))
    return any(len(word) >= 4 and word not in listed and morphology.analyse(word) for word in words)
