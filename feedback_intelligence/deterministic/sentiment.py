"""The sentiment of a text from its words, and the one effective sentiment the report and derivation show.

Two readings, chosen per language by the domain (``sentiment-lexicon.json``, ``rules``; measured on the
eval set, docs/benchmarks.md, "Sentiment from the text"; ADR 0028):

* ``type`` — the domain's ``typeSentiment`` of the item's type (a complaint is negative);
* ``text`` — cues in the words: praise and complaint stems (Finnish also by Voikko base form, so
  "upeita" is "upea"), emoji, a negation a few words before a cue in the same clause flipping it
  ("ei ollut tyytyväinen"), an intensifier right before a cue doubling it ("todella hyvä"). One side
  must lead by a whole cue (by two in a wish or a question, which otherwise reads neutral); a text with
  no cue keeps its type's sentiment.

:func:`effective_sentiment` is the one function the report and the derivation call: the structure's
own sentiment when it says more than its type does (a model's or a clerk's reading, past the guard),
else the language's rule. A stored sentiment equal to its type's carries nothing the type does not
(the guard and the old prior wrote exactly that), so it cannot tell praise filed as a complaint.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from feedback_intelligence.deterministic.text_match import fold
from feedback_intelligence.domain.model import Domain, SentimentLexicon
from feedback_intelligence.records import Structure
from feedback_intelligence.text import morphology

POSITIVE, NEGATIVE, NEUTRAL = "positive", "negative", "neutral"
TEXT, TYPE = "text", "type"
NEGATION_REACH = 3  # words after a negation that it can flip
WISH_LEAD = 2  # how far one side must lead in a text with a wish or question cue
_TOKENS = re.compile(r"[\w'’-]+|[^\w\s]", re.UNICODE)
_CLAUSE_BREAKS = frozenset({",", ".", "!", "?", ";", ":", "mutta", "but", "men", "vaikka", "although", "fast"})


@dataclass(frozen=True, slots=True)
class Reading:
    """Weighted cue totals of one text."""

    positive: float = 0.0
    negative: float = 0.0
    neutral: int = 0  # wish / request / question cues

    @property
    def polar(self) -> bool:
        return bool(self.positive or self.negative)


@dataclass(frozen=True, slots=True)
class _Cues:
    words: tuple[tuple[str, ...], ...]  # each cue as folded words (a stem at the last word's start)
    symbols: tuple[str, ...]  # cues without letters, matched anywhere


@lru_cache(maxsize=32)
def _cues(terms: tuple[str, ...]) -> _Cues:
    words: list[tuple[str, ...]] = []
    symbols: list[str] = []
    for term in terms:
        folded = fold(term).strip()
        if not folded:
            continue
        if any(ch.isalpha() for ch in folded):
            words.append(tuple(t for t in _TOKENS.findall(folded)))
        else:
            symbols.append(folded)
    return _Cues(tuple(sorted(set(words), key=len, reverse=True)), tuple(symbols))


def _word_matches(token: str, base: str, cue: str) -> bool:
    return token.startswith(cue) or (bool(base) and base.startswith(cue))


def _matches_at(tokens: list[str], bases: list[str], at: int, cue: tuple[str, ...]) -> bool:
    """Whether the cue's words start at token ``at``: every word whole but the last, which is a stem."""
    if at + len(cue) > len(tokens):
        return False
    for offset, word in enumerate(cue):
        token, base = tokens[at + offset], bases[at + offset]
        last = offset == len(cue) - 1
        if not (_word_matches(token, base, word) if last else token == word or base == word):
            return False
    return True


def _blank(text: str, phrases: tuple[str, ...]) -> str:
    for phrase in phrases:
        folded = fold(phrase)
        if folded:
            text = text.replace(folded, " ")
    return text


def _bases(tokens: list[str], language: str) -> list[str]:
    if language != morphology.FINNISH:
        return [""] * len(tokens)
    return [morphology.base_form(t, language) if t[:1].isalpha() else "" for t in tokens]


def _negated(tokens: list[str], at: int, negations: frozenset[str]) -> bool:
    for back in range(1, NEGATION_REACH + 1):
        i = at - back
        if i < 0 or tokens[i] in _CLAUSE_BREAKS:
            return False
        # surface forms only: Voikko reads spoken "et" ("että") as the negation verb
        if tokens[i] in negations or tokens[i].endswith("n't"):
            return True
    return False


def read_text(text: str, lexicon: SentimentLexicon, language: str) -> Reading:
    """The cue totals of ``text`` in ``language`` (Finnish base forms through Voikko where available)."""
    folded = _blank(fold(text), lexicon.exceptions)
    tokens = _TOKENS.findall(folded)
    bases = _bases(tokens, language)
    negations = frozenset(fold(n) for n in lexicon.negations)
    intensifiers = frozenset(fold(n) for n in lexicon.intensifiers)
    totals = {POSITIVE: 0.0, NEGATIVE: 0.0}
    used = [False] * len(tokens)
    for sign, terms in ((POSITIVE, lexicon.positive), (NEGATIVE, lexicon.negative)):
        cues = _cues(terms)
        for at in range(len(tokens)):
            if used[at]:
                continue
            cue = next((c for c in cues.words if _matches_at(tokens, bases, at, c)), None)
            if cue is None:
                continue
            for i in range(at, at + len(cue)):
                used[i] = True
            weight = 2.0 if at > 0 and tokens[at - 1] in intensifiers else 1.0
            starts_negated = cue[0] in negations
            flipped = not starts_negated and _negated(tokens, at, negations)
            side = (NEGATIVE if sign == POSITIVE else POSITIVE) if flipped else sign
            totals[side] += weight
        totals[sign] += sum(folded.count(symbol) for symbol in cues.symbols)
    neutral_cues = _cues(lexicon.neutral)
    neutral = sum(
        1 for at in range(len(tokens)) if any(_matches_at(tokens, bases, at, c) for c in neutral_cues.words)
    ) + sum(folded.count(symbol) for symbol in neutral_cues.symbols)
    return Reading(totals[POSITIVE], totals[NEGATIVE], neutral)


def text_sentiment(text: str, type_: str | None, language: str | None, domain: Domain) -> str | None:
    """The text's sentiment by its cues; its type's where the words say nothing."""
    reading = read_text(text, domain.sentiment_lexicon, language or domain.language)
    # a wish or a question carries a word of tone ("ois kiva saada", "liian isoja"); it stays a wish
    # unless the tone leads by two
    lead = WISH_LEAD if reading.neutral else 1
    if reading.positive - reading.negative >= lead and POSITIVE in domain.sentiments:
        return POSITIVE
    if reading.negative - reading.positive >= lead and NEGATIVE in domain.sentiments:
        return NEGATIVE
    if reading.neutral and NEUTRAL in domain.sentiments:
        return NEUTRAL
    return domain.sentiment_for(type_)


def rule_sentiment(text: str, type_: str | None, language: str | None, domain: Domain) -> str | None:
    """The language's kept rule: the text's reading or the type's (the domain's ``rules``)."""
    if domain.sentiment_lexicon.empty or domain.sentiment_lexicon.rule_for(language) != TEXT:
        return domain.sentiment_for(type_)
    return text_sentiment(text, type_, language, domain)


def effective_sentiment(structure: Structure | None, text: str, domain: Domain) -> str | None:
    """The sentiment a manager is shown and counted: none without a structure or in a demoted category;
    the structure's own when it differs from its type's (a reading, not a copy of the type); else the rule."""
    if structure is None or domain.is_demoted(structure.category):
        return None
    own = structure.sentiment
    if own and own in domain.sentiments and own != domain.type_sentiment.get(structure.type):
        return own
    return rule_sentiment(text, structure.type, structure.language, domain)
