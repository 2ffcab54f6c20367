"""The sentiment of a text from its words, and the one effective sentiment the report and derivation show.

Two readings, chosen per language by the domain (``sentiment-lexicon.json``, ``rules``; measured on the
eval set, docs/benchmarks.md, "Sentiment from the text"; ADR 0028):

* ``type`` — the domain's ``typeSentiment`` of the item's type (a complaint is negative);
* ``text`` — cues in the words: praise and complaint stems (Finnish also by Voikko base form, so
  "upeita" is "upea"), emoji, a negation a few words before a cue in the same clause flipping it
  ("ei ollut tyytyväinen"), an intensifier right before a cue doubling it ("todella hyvä"). One side
  must lead by a whole cue (by two in a wish or a question, which otherwise reads neutral); a text with
  no cue keeps its type's sentiment.

Sentiment and type agree, by one rule (:func:`agreed_sentiment`, :func:`type_for_tone`): a reading
opposite to its type's tone stands only where the text also has cues of the type's side — then the
tone is mixed (the domain's ``mixed`` sentiment, else ``neutral``); otherwise the type's sentiment
stands, so a complaint is never positive unless something in it is praised too. The prior, whose type
is only a guess from cues, lets an unmixed polar reading choose the type instead (a complaint by
default that only thanks someone is praise). Quoted words (the clerk quoting someone: "kaikki hyvin")
do not decide the tone while the rest of the text has any.

:func:`effective_sentiment` is the one function the report and the derivation call: the structure's
own sentiment when it says more than its type does (a model's or a clerk's reading, past the guard),
else the language's rule. A stored sentiment equal to its type's carries nothing the type does not
(the guard and the old prior wrote exactly that), so it cannot tell praise filed as a complaint.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from feedback_intelligence.deterministic.label_words import without_label_words
from feedback_intelligence.deterministic.per_object import kept_for
from feedback_intelligence.domain.model import Domain, SentimentLexicon
from feedback_intelligence.records import Structure
from feedback_intelligence.text import morphology
from feedback_intelligence.text.matching import fold

POSITIVE, NEGATIVE, NEUTRAL = "positive", "negative", "neutral"
TEXT, TYPE = "text", "type"
NEGATION_REACH = 3  # words after a negation that it can flip
WISH_LEAD = 2  # how far one side must lead in a text with a wish or question cue
_TOKENS = re.compile(r"[\w'’-]+|[^\w\s]", re.UNICODE)
_KINDS_KEPT = 100_000  # distinct (word, base form) verdicts kept per side of a lexicon
PHRASE = -1  # a word a phrase cue may start with
UNKNOWN = -2  # not worked out yet
MIXED = "mixed"
_QUOTED = re.compile(r'"[^"\n]{1,200}"|“[^”\n]{1,200}”|”[^”\n]{1,200}”|„[^“”\n]{1,200}[“”]|«[^»\n]{1,200}»')
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
    """One side's cues, compiled: single stems as one anchored pattern, phrases as word tuples."""

    stems: re.Pattern[str] | None  # matches a token (or its base form) that starts with a single-word cue
    phrases: tuple[tuple[str, ...], ...]  # cues of several words, longest first
    symbols: tuple[str, ...]  # cues without letters, matched anywhere
    # the positions in ``phrases`` of the phrases beginning with a word: a phrase's first word must be the
    # token or its base form whole, so only these can start at a token (the rest are never tried)
    by_first_word: dict[str, tuple[int, ...]] = field(default_factory=dict)
    # what each distinct (token, base form) is to this side: 0 no cue, 1 a single-word cue, PHRASE a word a
    # phrase may start with (then :meth:`length_at` decides). Worked out once per word, not once per word
    # of every text: a language's words repeat, and a bulk import reads thousands of texts
    kinds: dict[tuple[str, str], int] = field(default_factory=dict, compare=False, repr=False)
    # the first characters of the symbol cues: a text without any of them has none of the symbols
    symbol_starts: frozenset[str] = frozenset()

    @classmethod
    def of(cls, terms: tuple[str, ...]) -> _Cues:
        stems: set[str] = set()
        phrases: set[tuple[str, ...]] = set()
        symbols: list[str] = []
        for term in terms:
            folded = fold(term).strip()
            if not folded:
                continue
            if not any(ch.isalpha() for ch in folded):
                symbols.append(folded)
                continue
            words = tuple(_TOKENS.findall(folded))
            if len(words) == 1:
                stems.add(words[0])
            elif words:
                phrases.add(words)
        pattern = "|".join(re.escape(w) for w in sorted(stems, key=len, reverse=True))
        ordered = tuple(sorted(phrases, key=len, reverse=True))
        by_first_word: dict[str, list[int]] = {}
        for index, phrase in enumerate(ordered):
            by_first_word.setdefault(phrase[0], []).append(index)
        return cls(
            re.compile(pattern) if pattern else None,
            ordered,
            tuple(symbols),
            {word: tuple(indexes) for word, indexes in by_first_word.items()},
            symbol_starts=frozenset(symbol[0] for symbol in symbols),
        )

    def kinds_of(self, words: list[tuple[str, str]]) -> list[int]:
        """What each (token, base form) of a text is to this side: 0, 1 or PHRASE (see ``kinds``)."""
        kinds = [self.kinds.get(word, UNKNOWN) for word in words]
        if UNKNOWN in kinds:
            if len(self.kinds) >= _KINDS_KEPT:
                self.kinds.clear()
            for at, kind in enumerate(kinds):
                if kind == UNKNOWN:
                    kinds[at] = self.kinds[words[at]] = self._kind(*words[at])
        return kinds

    def _kind(self, token: str, base: str) -> int:
        if token in self.by_first_word or (base and base in self.by_first_word):
            return PHRASE
        return int(self.stems is not None and bool(self.stems.match(token) or (base and self.stems.match(base))))

    def length_at(self, tokens: list[str], bases: list[str], at: int) -> int:
        """How many tokens a cue covers from ``at`` (0: none): a phrase needs its earlier words whole and
        its last one as a stem; a single stem matches the token or its base form."""
        token, base = tokens[at], bases[at]
        starting = self.by_first_word.get(token, ())
        if base and base != token and base in self.by_first_word:
            starting = tuple(sorted({*starting, *self.by_first_word[base]}))
        for phrase in (self.phrases[index] for index in starting):
            if at + len(phrase) <= len(tokens) and all(
                tokens[at + i] == w or bases[at + i] == w for i, w in enumerate(phrase[:-1])
            ):
                last_token, last_base = tokens[at + len(phrase) - 1], bases[at + len(phrase) - 1]
                if last_token.startswith(phrase[-1]) or (last_base and last_base.startswith(phrase[-1])):
                    return len(phrase)
        if self.stems is not None and (self.stems.match(token) or (base and self.stems.match(base))):
            return 1
        return 0

    def symbols_in(self, folded: str) -> int:
        """Occurrences of the symbol cues in ``folded``, each symbol counted on its own."""
        if not self.symbol_starts or self.symbol_starts.isdisjoint(folded):
            return 0
        return sum(folded.count(symbol) for symbol in self.symbols)


@dataclass(frozen=True, slots=True)
class _Compiled:
    positive: _Cues
    negative: _Cues
    neutral: _Cues
    negations: frozenset[str]
    intensifiers: frozenset[str]
    exceptions: tuple[str, ...]


_compiled: dict[int, tuple[object, _Compiled]] = {}
_readings: dict[tuple[int, str, str], tuple[SentimentLexicon, Reading]] = {}
_READINGS_KEPT = 50_000


def _compile(lexicon: SentimentLexicon) -> _Compiled:
    return kept_for(_compiled, lexicon, lambda: _compiled_of(lexicon))


def _compiled_of(lexicon: SentimentLexicon) -> _Compiled:
    return _Compiled(
        positive=_Cues.of(lexicon.positive),
        negative=_Cues.of(lexicon.negative),
        neutral=_Cues.of(lexicon.neutral),
        negations=frozenset(fold(n) for n in lexicon.negations),
        intensifiers=frozenset(fold(n) for n in lexicon.intensifiers),
        exceptions=tuple(f for f in (fold(e) for e in lexicon.exceptions) if f),
    )


def _bases(tokens: list[str], language: str) -> list[str]:
    if language != morphology.FINNISH:
        return [""] * len(tokens)
    return [morphology.base_form(t, language) if len(t) > 2 and t[:1].isalpha() else "" for t in tokens]


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
    """The cue totals of ``text`` in ``language`` (Finnish base forms through Voikko where available);
    remembered per text, since a report asks about every item several times."""
    key = (id(lexicon), language, text)
    found = _readings.get(key)
    if found is not None and found[0] is lexicon:
        return found[1]
    reading = _read(text, _compile(lexicon), language)
    if len(_readings) >= _READINGS_KEPT:
        _readings.clear()
    _readings[key] = (lexicon, reading)
    return reading


def _read(text: str, cues: _Compiled, language: str) -> Reading:
    folded = fold(text)
    for phrase in cues.exceptions:
        folded = folded.replace(phrase, " ")
    tokens = _TOKENS.findall(folded)
    bases = _bases(tokens, language)
    words = list(zip(tokens, bases, strict=True))
    totals = {POSITIVE: 0.0, NEGATIVE: 0.0}
    used = [False] * len(tokens)
    for sign, side in ((POSITIVE, cues.positive), (NEGATIVE, cues.negative)):
        for at, kind in enumerate(side.kinds_of(words)):
            if not kind or used[at]:
                continue
            width = side.length_at(tokens, bases, at) if kind == PHRASE else kind
            if not width:
                continue
            for i in range(at, at + width):
                used[i] = True
            weight = 2.0 if at > 0 and tokens[at - 1] in cues.intensifiers else 1.0
            starts_negated = tokens[at] in cues.negations
            flipped = not starts_negated and _negated(tokens, at, cues.negations)
            totals[(NEGATIVE if sign == POSITIVE else POSITIVE) if flipped else sign] += weight
        totals[sign] += side.symbols_in(folded)
    neutral = sum(
        1
        for at, kind in enumerate(cues.neutral.kinds_of(words))
        if kind == 1 or (kind == PHRASE and cues.neutral.length_at(tokens, bases, at))
    )
    neutral += cues.neutral.symbols_in(folded)
    return Reading(totals[POSITIVE], totals[NEGATIVE], neutral)


def tone_reading(text: str, language: str | None, domain: Domain) -> Reading:
    """The cue totals that decide the tone: the text's own words, quoted ones left out ('kassa sanoi
    "kaikki hyvin" mutta veloitti kahdesti'); the whole text where nothing outside the quotes has a tone."""
    language = language or domain.language
    unquoted = _QUOTED.sub(" ", text)
    if unquoted != text:
        outside = read_text(unquoted, domain.sentiment_lexicon, language)
        if outside.polar:
            return outside
    return read_text(text, domain.sentiment_lexicon, language)


def _reading_sentiment(reading: Reading, domain: Domain) -> str | None:
    """The polar or neutral sentiment the cues alone say, or None where they say nothing."""
    # a wish or a question carries a word of tone ("ois kiva saada", "liian isoja"); it stays a wish
    # unless the tone leads by two
    lead = WISH_LEAD if reading.neutral else 1
    if reading.positive - reading.negative >= lead and POSITIVE in domain.sentiments:
        return POSITIVE
    if reading.negative - reading.positive >= lead and NEGATIVE in domain.sentiments:
        return NEGATIVE
    if reading.neutral and NEUTRAL in domain.sentiments:
        return NEUTRAL
    return None


def _opposite(sentiment: str | None, expected: str | None) -> bool:
    polar = (POSITIVE, NEGATIVE)
    return sentiment in polar and expected in polar and sentiment != expected


def agreed_sentiment(read: str | None, reading: Reading, type_: str | None, domain: Domain) -> str | None:
    """The one rule that makes sentiment agree with type: a reading opposite to the type's tone stands as
    mixed where the text has cues of the type's side too, else yields to the type's sentiment."""
    expected = domain.sentiment_for(type_)
    if read is None:
        return expected
    if not _opposite(read, expected):
        return read
    own_side = reading.positive if expected == POSITIVE else reading.negative
    if own_side:
        return MIXED if MIXED in domain.sentiments else NEUTRAL if NEUTRAL in domain.sentiments else expected
    return expected


def type_for_tone(type_: str, text: str, language: str | None, domain: Domain) -> str:
    """The prior's type, or the first type of the text's tone where an unmixed polar reading opposes it:
    the type is a guess from cues (a complaint by default, "parasta ennen" a praise cue), the reading
    knows negation and phrases, so "pyysi kiittämään" is praise and "ei ollut tyytyväinen" a complaint."""
    if domain.sentiment_lexicon.empty or domain.sentiment_lexicon.rule_for(language) != TEXT:
        return type_
    reading = tone_reading(without_label_words(text, domain), language, domain)
    read = _reading_sentiment(reading, domain)
    other_side = reading.negative if read == POSITIVE else reading.positive
    if not _opposite(read, domain.sentiment_for(type_)) or other_side:
        return type_
    return next((t for t in domain.types if domain.type_sentiment.get(t) == read), type_)


def reading_sentiment(text: str, type_: str | None, language: str | None, domain: Domain) -> str | None:
    """What the cues alone say, its type's where they say nothing: the reading the domain's ``rules`` are
    chosen by (evaluation/sentiment.py), before it is made to agree with a type."""
    return _reading_sentiment(tone_reading(text, language, domain), domain) or domain.sentiment_for(type_)


def text_sentiment(text: str, type_: str | None, language: str | None, domain: Domain) -> str | None:
    """The text's sentiment by its cues, agreeing with its type (:func:`agreed_sentiment`); its type's
    where the words say nothing."""
    reading = tone_reading(text, language, domain)
    return agreed_sentiment(_reading_sentiment(reading, domain), reading, type_, domain)


def rule_sentiment(text: str, type_: str | None, language: str | None, domain: Domain) -> str | None:
    """The language's kept rule: the text's reading or the type's (the domain's ``rules``)."""
    if domain.sentiment_lexicon.empty or domain.sentiment_lexicon.rule_for(language) != TEXT:
        return domain.sentiment_for(type_)
    return text_sentiment(without_label_words(text, domain), type_, language, domain)  # "Kehu:" decides nothing


def effective_sentiment(structure: Structure | None, text: str, domain: Domain) -> str | None:
    """The sentiment a manager is shown and counted: none without a structure or in a demoted category;
    the structure's own when it differs from its type's (a reading, not a copy of the type); else the rule."""
    if structure is None or domain.is_demoted(structure.category):
        return None
    own = structure.sentiment
    if own and own in domain.sentiments and own != domain.type_sentiment.get(structure.type):
        return own
    return rule_sentiment(text, structure.type, structure.language, domain)
