"""The theme guard: a theme a person may read, or the reason it may not be shown.

Reasons, checked in this order: ``control_characters`` (control, bidi or zero-width characters:
a theme must read as it renders), ``empty``, ``prompt_echo`` (the prompt's, the schema's or the
fence's own words: "2-4", "PALAUTE_LOPPU", "Sentiment", "low"; and a marker word garbled by an edit
or two: "AsiaKaspalAte" for ASIAKASPALAUTE), ``mixed_case`` (a capital inside a word after a small
letter, "AsiaKaspalAte": a small model garbling a token, not a word anyone writes; a brand the text
itself spells that way, "MobilePay", passes), ``repeated_word`` (a word three times: "kielen kielen
kielen"), ``slug`` (words joined by underscores or many hyphens: "asiakas_makalen_mai_kylma"), ``fragment`` (a sentence,
not a name: more than three words, or a verb: "Asiakas valitti että suklaalevyt olivat…", "kompastua"),
``other_language`` (a word of another language than the text's: "charged" for a Finnish text — a
Finnish word Voikko does not know and the text does not spell; for a text in another language than the
domain's, a word the text does not contain), ``generic`` (a generic noun alone: "Asia", "ok",
"asiakas"; the domain's ``genericNouns``; or one opening a longer theme: "asiakas tuli", "kunden"),
``not_grounded`` (no word shared with the text or the
domain's vocabulary; a shared stem or prefix counts, so Finnish inflection passes: "maito" ~ "maidon").

``mixed_case``, ``other_language`` and ``not_grounded`` depend on the text; the other verdicts hold for
any text. A theme that passes is shown in base form (:func:`shown_form`).

Public and pure, so the report checks the themes it shows with the same rule.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from functools import lru_cache

from feedback_intelligence.deterministic import theme_words
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.structuring.guards.vocabulary import domain_vocabulary, prompt_vocabulary, words
from feedback_intelligence.text import morphology
from feedback_intelligence.text.invisible import has_not_text
from feedback_intelligence.text.language import detect_language
from feedback_intelligence.text.matching import fold

CONTROL_CHARACTERS = "control_characters"
EMPTY = "empty"
PROMPT_ECHO = "prompt_echo"
REPEATED_WORD = "repeated_word"
NOT_GROUNDED = "not_grounded"
MIXED_CASE = "mixed_case"
SLUG = "slug"
FRAGMENT = "fragment"
OTHER_LANGUAGE = "other_language"
GENERIC = "generic"

THEME_REASONS: tuple[str, ...] = (
    CONTROL_CHARACTERS,
    EMPTY,
    PROMPT_ECHO,
    MIXED_CASE,
    SLUG,
    REPEATED_WORD,
    FRAGMENT,
    OTHER_LANGUAGE,
    GENERIC,
    NOT_GROUNDED,
)
# Verdicts that can change with the text (a caller caching verdicts per theme must not share these).
TEXT_DEPENDENT_REASONS = frozenset({MIXED_CASE, OTHER_LANGUAGE, NOT_GROUNDED})

_REPEAT_LIMIT = 3
_MIN_STEM = 3
_GRADING = frozenset("kpt")  # the consonants that change inside a Finnish stem
_CASED_WORD = re.compile(r"[^\W\d_]+")  # runs of letters, case kept


def has_forbidden_characters(text: str) -> bool:
    """Controls, format (bidi, zero-width), line separators, private use, unassigned: never in a theme."""
    return has_not_text(text)


def related(a: str, b: str) -> bool:
    """Whether two folded words are forms of one another: equal, one a prefix of the other, or sharing a
    stem that leaves one letter of the shorter word, or two where a consonant grades (Finnish: maito/maidon,
    leipä/leivän, jalka/jalan)."""
    if a == b:
        return True
    if a[:_MIN_STEM] != b[:_MIN_STEM]:  # every way below shares the first three letters: most pairs end here
        return False
    shorter = min(len(a), len(b))
    if shorter < _MIN_STEM:
        return False
    if a.startswith(b) or b.startswith(a):
        return True
    common = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        common += 1
    if common < _MIN_STEM:
        return False
    if common >= shorter - 1:
        return True
    return common == shorter - 2 and (a[common] in _GRADING or b[common] in _GRADING)


def mixed_case(theme: str, text: str) -> bool:
    """A word of ``theme`` with an inner capital that ``text`` does not spell exactly so."""
    capitalised = [
        w for w in _CASED_WORD.findall(unicodedata.normalize("NFC", theme)) if theme_words.has_inner_capital(w)
    ]
    if not capitalised:  # most themes: the text need not be read
        return False
    spelled = set(_CASED_WORD.findall(unicodedata.normalize("NFC", text)))
    return any(word not in spelled for word in capitalised)


def _content_words(theme: str, domain: Domain) -> list[str]:
    stop = theme_words.stop_words(domain)
    all_words = words(theme)
    content = [w for w in all_words if len(w) >= _MIN_STEM and w not in stop]
    return content or all_words


def _text_bases(text: str, language: str) -> set[str]:
    """The base forms and compound parts of the text's words (empty without a morphology)."""
    found: set[str] = set()
    for word in theme_words.theme_words(text):
        for reading in morphology.analyse(word, language):
            found.add(fold(reading.base))
            found.update(fold(p) for p in reading.parts if len(p) >= _MIN_STEM)
    return found


def is_grounded(theme: str, text: str, domain: Domain, language: str | None = None) -> bool:
    """At least one word of the theme is a form of a word of the text (as written, within what an
    inflection adds, or its base form and compound parts: "ilta" ~ "illalla", "hylly" ~ "maitohyllyssä")
    or of the domain's vocabulary. A function word of the text grounds nothing ("the" is no stem of
    "theiakaspalaute"). ``language``: the text's :func:`text_language`, when the caller has it."""
    content = _content_words(theme, domain)
    vocabulary = domain_vocabulary(domain)
    # related words share their first three letters, so only that bucket of the vocabulary can match
    if any(len(w) >= _MIN_STEM and any(related(w, v) for v in vocabulary.candidates(w)) for w in content):
        return True
    stop = theme_words.stop_words(domain)
    written = {w for w in words(text) if w not in stop}
    if any(_spelled_in(w, written) for w in content):
        return True
    # the text's base forms last: Voikko's readings of every word cost the most, and any one way grounds it
    bases = _text_bases(text, text_language(text, domain) if language is None else language)
    return any(related(w, t) for w in content for t in bases)


@lru_cache(maxsize=4096)
def _detected(text: str, candidates: tuple[str, ...]) -> str | None:
    guess = detect_language(text, candidates)
    return guess.code if guess else None


def text_language(text: str, domain: Domain) -> str:
    """The language of ``text`` as the prior detects it, else the domain's (remembered: the report asks
    about the same texts again and again)."""
    return _detected(text, domain.detection_languages) or domain.language


_SLUG_HYPHENS = 3  # "maito-osasto" and "wc-paperi" are words; "Bread-Shelf-Complaint-Third" is a slug


def is_slug(theme: str) -> bool:
    """Words joined by underscores, or by hyphens more than a compound takes."""
    return "_" in theme or any(w.count("-") >= _SLUG_HYPHENS for w in theme.split())


def is_fragment(theme: str, language: str) -> bool:
    """More than three words, or a verb among them (Finnish, where Voikko reads the words: a finite verb,
    or a word whose preferred reading is a verb of any form: "kompastua", "kaatunut" as a participle is an
    adjective and passes)."""
    found = theme_words.theme_words(theme)
    return len(found) > theme_words.MAX_THEME_WORDS or any(
        theme_words.is_finite_verb(w, language) or theme_words.is_verb(w, language) for w in found
    )


_INFLECTION_MAX = 5  # letters an inflection adds to a word the text spells ("mobilepay" → "mobilepaylla")


def _spelled_in(word: str, text_words: set[str]) -> bool:
    """A form of a word of the text: related, and no longer or shorter than an inflection makes it
    ("asiakaspalaeteiai" begins like "asiakas" but is no form of it)."""
    return any(related(word, t) and abs(len(word) - len(t)) <= _INFLECTION_MAX for t in text_words)


def in_other_language(theme: str, text: str, language: str, domain: Domain) -> bool:
    """A word of the theme in another language than the text's (see the module doc)."""
    text_words = set(words(text))
    found = [w for w in words(theme.replace("-", " ")) if any(ch.isalpha() for ch in w)]
    if language != domain.language:
        # the domain's vocabulary is in its own language: a theme for this text comes from the text
        return any(not _spelled_in(w, text_words) for w in found)
    if language == morphology.FINNISH and morphology.available(language):
        return any(not theme_words.is_known_word(w, language) and not _spelled_in(w, text_words) for w in found)
    return False


def theme_rejection(theme: str, text: str, domain: Domain, language: str | None = None) -> str | None:
    """The reason ``theme`` must not be shown for ``text``, or None when it may. ``language``: the text's
    :func:`text_language`, when the caller has it (a reading of the text)."""
    if has_forbidden_characters(theme):
        return CONTROL_CHARACTERS
    if not words(theme):
        return EMPTY
    vocabulary = prompt_vocabulary(domain)
    if vocabulary.echoes(theme) or vocabulary.near_echoes(theme):
        return PROMPT_ECHO
    if not any(ch.isalpha() for ch in theme):  # "2 0", "4.99": nothing a reader takes for a name
        return EMPTY
    if mixed_case(theme, text):
        return MIXED_CASE
    if is_slug(theme):
        return SLUG
    if max(Counter(words(theme)).values()) >= _REPEAT_LIMIT:
        return REPEATED_WORD
    language = text_language(text, domain) if language is None else language
    if is_fragment(theme, language):
        return FRAGMENT
    if in_other_language(theme, text, language, domain):
        return OTHER_LANGUAGE
    if theme_words.only_generic(theme, language, domain) or theme_words.opens_with_generic(theme, language, domain):
        return GENERIC
    if not is_grounded(theme, text, domain, language):
        return NOT_GROUNDED
    return None


def shown_form(theme: str, text: str, domain: Domain, language: str | None = None) -> str:
    """How an accepted theme is shown, stored and grouped: each word in its base form, lower case."""
    return theme_words.normalise_theme(theme, text_language(text, domain) if language is None else language) or theme


def shown_theme(preferred: str, text: str, domain: Domain, language: str | None = None) -> str:
    """A replacement theme the guard itself accepts: ``preferred`` (the prior's) when it passes, else the
    text's longest word that does ("customer" and a category key such as "matchmaking" echo the prompt,
    so a prior built on the text's words can still be refused). ``preferred`` when nothing passes."""
    if theme_rejection(preferred, text, domain, language) is None:
        return preferred
    for word in sorted(dict.fromkeys(_content_words(text, domain)), key=len, reverse=True):
        if theme_rejection(word, text, domain, language) is None:
            return shown_form(word, text, domain, language)
    return preferred
