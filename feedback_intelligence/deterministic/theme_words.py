"""What a theme is made of: base-form words in the text's language, one to three of them, naming a topic.

One place for the word-level rules the prior, the theme guard and the report's grouping share
(docs/rules.md, "Themes"; ADR 0022):

* :func:`normalise_theme` — the form a theme is shown, stored and grouped in: each word in its base
  form, lower case ("Kuitin veloitusta" → "kuitti veloitus"); Finnish through Voikko (a hyphenated
  word it does not know by its last part: "hevi-osaston" → "hevi-osasto"), Swedish and English by the
  head word through simplemma ("toaletterna" → "toalett", "crashing servers" → "crashing server";
  text/lemmas.py), other languages as written, in lower case; a brand keeps its spelling ("MobilePay");
* :func:`is_finite_verb` — a word Voikko reads only as a finite verb ("valitti", "olivat"): a theme with
  one is a sentence, not a name;
* :func:`only_generic` — every word a generic noun of the domain (``genericNouns``: "asiakas", "asia", "ok");
  :func:`opens_with_generic` — a theme that starts with one ("asiakas tuli");
* :func:`topic_nouns` — the text's nouns in base form, generic ones left out, for the prior's theme;
* :func:`opening_subject` — an English text's opening subject, which beats a keyword outside it (ADR 0036);
* :func:`topic_phrase` — the prior's theme where no keyword names the topic: the longest such noun
  (Finnish), the first noun phrase's nouns (English, guessed by ``text/english.py``; ADR 0036).
"""

from __future__ import annotations

import itertools
import re

from feedback_intelligence.deterministic.per_object import kept_for
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.text import english, lemmas, morphology, swedish
from feedback_intelligence.text.matching import fold

MAX_THEME_WORDS = 3
FINNISH = morphology.FINNISH
ENGLISH = english.ENGLISH
SWEDISH = swedish.SWEDISH
ENGLISH_PHRASE_WORDS = 2  # "sniper rifle", "crafting bench": a modifier and its noun


def theme_words(theme: str) -> list[str]:
    """The words of a theme (letters and digits; inner hyphens and apostrophes kept)."""
    return morphology.words(theme)


def has_inner_capital(word: str) -> bool:
    """A capital right after a small letter inside ``word`` ("MobilePay", "iPhone": a brand spelled so on
    purpose; "AsiaKaspalAte": a garbled token); a capitalised word ("Helsinki") and an all-capitals one
    ("LED", "LVI") have none."""
    if word.islower():  # no capital at all: most words, told in C
        return False
    return any(a.islower() and b.isupper() for a, b in itertools.pairwise(word))


def _finnish_base(word: str) -> str:
    """Voikko's base form; a hyphenated word it does not know by its last part ("hevi-osaston")."""
    if "-" in word and not morphology.analyse(word, FINNISH):
        head, _, last = word.rpartition("-")
        return f"{head.lower()}-{morphology.base_form(last, FINNISH)}" if last else word.lower()
    return morphology.base_form(word, FINNISH)


def _base(word: str, language: str, head: bool) -> str:
    if has_inner_capital(word) and not morphology.analyse(word, language):
        return word
    if language == FINNISH:
        return _finnish_base(word)
    # no word classes outside Finnish: only the head is a noun for sure ("loading screen")
    return lemmas.lemma(word, language) if head else word.lower()


def normalise_theme(theme: str, language: str) -> str:
    """Each word of ``theme`` in its base form, lower case, single spaces (what groups and counts); a brand
    the morphology does not know keeps its spelling ("MobilePay")."""
    found = theme_words(theme)
    return " ".join(_base(w, language, at == len(found) - 1) for at, w in enumerate(found))


def is_finite_verb(word: str, language: str) -> bool:
    """Whether Voikko reads ``word`` as a finite verb and as nothing a theme could name ("tuli" is also fire)."""
    reading = morphology.preferred(morphology.analyse(word, language), word.lower())
    return reading is not None and reading.finite


#: Finnish action nouns made of a verb ("kaatuminen", "liukastumisen", "odottamista"): Voikko reads them as
#: the verb's fourth infinitive, but they name an event, the best kind of theme ("the fall").
_ACTION_NOUN = re.compile(r"mi(?:nen|s[a-zåäö]*)$")


def is_verb(word: str, language: str) -> bool:
    """Whether the word's preferred reading is a verb of any form ("kaatui", "kompastua"); an action noun
    ("kaatuminen") is not."""
    if language == "fi" and _ACTION_NOUN.search(word.lower()):
        return False
    reading = morphology.preferred(morphology.analyse(word, language), word.lower())
    return reading is not None and reading.word_class == morphology.VERB


def is_noun(word: str, language: str) -> bool:
    """Whether the word's preferred reading is a noun, common or proper."""
    reading = morphology.preferred(morphology.analyse(word, language), word.lower())
    return reading is not None and reading.word_class in (morphology.NOUN, morphology.PROPER_NOUN)


def is_known_word(word: str, language: str) -> bool:
    """Whether the language's morphology has a reading for ``word`` (always False without one)."""
    return bool(morphology.analyse(word, language))


_generic: dict[int, tuple[object, frozenset[str]]] = {}
_stop: dict[int, tuple[object, frozenset[str]]] = {}
_function: dict[int, tuple[object, frozenset[str]]] = {}


def _generic_set(domain: Domain) -> frozenset[str]:
    """The domain's generic nouns folded (once per domain: every theme and text asks)."""
    return kept_for(_generic, domain, lambda: frozenset(fold(w) for w in domain.prior.generic_nouns))


def stop_words(domain: Domain) -> frozenset[str]:
    """The domain's function words folded (``stopwords``; once per domain: every theme and text asks)."""
    return kept_for(_stop, domain, lambda: frozenset(fold(w) for w in domain.prior.stopwords))


def is_generic(word: str, language: str, domain: Domain) -> bool:
    """A generic noun of the domain, in any inflection ("asiakkaalle" is "asiakas", "kunden" "kund")."""
    generic = _generic_set(domain)
    base = morphology.base_form(word, language) if language == FINNISH else lemmas.lemma(word, language)
    return fold(word) in generic or fold(base) in generic


def opens_with_generic(theme: str, language: str, domain: Domain) -> bool:
    """A theme of several words whose first is a generic noun: "asiakas kysyysi", "kunden", "customer
    service" name who spoke, not what about."""
    found = theme_words(theme)
    return len(found) > 1 and is_generic(found[0], language, domain)


def only_generic(theme: str, language: str, domain: Domain) -> bool:
    """Every word of ``theme`` that is not a function word is a generic noun ("Asia", "ok", "asiakas")."""
    stop = stop_words(domain)
    content = [w for w in theme_words(theme) if fold(w) not in stop] or theme_words(theme)
    return bool(content) and all(is_generic(w, language, domain) for w in content)


def _english_function_words(domain: Domain) -> frozenset[str]:
    """What the English reading treats as function words besides its own: the domain's stopwords and
    generic nouns ("customer", "game"), which never name a topic."""
    return kept_for(_function, domain, lambda: stop_words(domain) | _generic_set(domain))


def english_nouns(text: str, domain: Domain) -> frozenset[str]:
    """The words an English text uses as nouns (lower case), the domain's generic ones left out."""
    return english.nouns(text, _english_function_words(domain))


def swedish_nouns(text: str, domain: Domain) -> list[str]:
    """The words a Swedish text uses as nouns (lower case, text order; text/swedish.py), generic ones
    ("kunden", "butiken") left out."""
    return [w for w in swedish.nouns(text, _english_function_words(domain)) if not is_generic(w, SWEDISH, domain)]


def opening_subject(text: str, language: str, domain: Domain) -> str | None:
    """An English text's opening subject, its first nouns ("Dragon Slayer greatsword is …" → "dragon
    slayer"), or None (no subject found, or another language)."""
    if language != ENGLISH:
        return None
    found = english.opening_subject(text, _english_function_words(domain))
    return " ".join(found[:ENGLISH_PHRASE_WORDS]) if found else None


def topic_phrase(text: str, language: str, domain: Domain) -> str | None:
    """The prior's theme where no keyword names the topic, or None: for Finnish the text's longest topic
    noun (the product or place it names), for English the first noun phrase's first nouns ("the new
    sniper rifle one-shots everyone" → "sniper rifle"; never an adjective or adverb alone), for Swedish
    its longest noun (text/swedish.py); no other language has a word-class reading."""
    if language == ENGLISH:
        phrases = english.noun_phrases(text, _english_function_words(domain))
        return " ".join(phrases[0][:ENGLISH_PHRASE_WORDS]) if phrases else None
    if language == SWEDISH:
        placed = [
            w for w in swedish.placed_nouns(text, _english_function_words(domain)) if not is_generic(w, SWEDISH, domain)
        ]
        nouns = placed or swedish_nouns(text, domain)
    else:
        nouns = topic_nouns(text, language, domain)
    return max(nouns, key=len) if nouns else None


def topic_nouns(text: str, language: str, domain: Domain) -> list[str]:
    """The text's nouns that may name its topic, in base form and text order: Voikko's nouns (common or
    proper), neither generic nor function words. Empty without a morphology for ``language``."""
    stop = stop_words(domain)
    found: list[str] = []
    for word in theme_words(text):
        if fold(word) in stop:
            continue
        reading = morphology.preferred(morphology.analyse(word, language), word.lower())
        if reading is None or reading.word_class not in (morphology.NOUN, morphology.PROPER_NOUN):
            continue
        if fold(reading.base) in _generic_set(domain) or len(reading.base) < 3:
            continue
        found.append(reading.base)
    return list(dict.fromkeys(found))
