"""English noun phrases without a lexicon: the one place that guesses an English word's class.

No word-class resource ships with the project (Voikko is Finnish only; ADR 0022 declined a large
lemmatizer), so English is read from its closed classes and a word's position (ADR 0036):

* closed classes are listed: determiners, pronouns, prepositions, conjunctions, auxiliaries and the
  commonest verbs, adverbs and evaluative adjectives, units of time and money;
* open classes by form: ``-ly`` is an adverb, ``-ed`` a participle, ``-ous``/``-ful``/``-less``/``-able``/
  ``-ible`` an adjective, a contraction ("can't", "you've") a function word, a possessive ("friend's",
  "devs'") the owner;
* by position: a word after a subject pronoun, a modal or "to", or a word that starts a run and is
  followed by a determiner or an object pronoun ("give the …", "nerf it"), is a verb; an ``-ing`` word
  is a noun only after a determiner, preposition or adjective, or before another noun ("crafting bench").

A *run* is a stretch of adjectives and nouns inside one clause; :func:`noun_phrases` gives each run's nouns,
:func:`opening_subject` the run the text opens with where it is the first clause's subject.
The guesses are meant for choosing a theme, not for parsing: a wrong guess costs a worse theme, never
an error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

ENGLISH = "en"


def _words(*words: str) -> frozenset[str]:
    return frozenset(words)


class Tag(Enum):
    FUNCTION = "function"
    ADVERB = "adverb"
    ADJECTIVE = "adjective"
    VERB = "verb"
    NOUN = "noun"


_DETERMINERS = _words(
    "the", "a", "an", "my", "your", "his", "her", "its", "our", "their", "this", "that", "these", "those", "every",
    "each", "any", "some", "no", "another", "all", "both",
    "more", "several", "whose",
)  # fmt: skip
_OBJECT_STARTS = _DETERMINERS - {"that", "whose"}  # "the ladder that broke": a relative, no object
_SUBJECTS = _words(
    "i", "you", "he", "she", "it", "we", "they", "nobody", "someone", "everyone", "everybody", "who", "which",
    "that",
)  # fmt: skip
_OBJECTS = _words(
    "it", "them", "me", "us", "him", "her", "you", "everyone", "everybody", "everything", "nothing", "something",
    "anything", "someone", "anyone",
)  # fmt: skip
_MODALS = _words(
    "can", "could", "will", "would", "shall", "should", "may", "might", "must", "do", "does", "did", "to",
)  # fmt: skip
_PREPOSITIONS = _words(
    "in", "on", "at", "from", "for", "with", "without", "of", "by", "about", "over", "under", "through", "into",
    "onto", "near", "after", "before", "since", "during",
    "across", "around", "behind", "between", "against", "per", "via", "than", "like", "out", "off", "up", "down",
    "upon", "within",
)  # fmt: skip
# auxiliaries and the commonest verbs: a theme never names them
_VERBS = _words(
    "is", "are", "was", "were", "be", "been", "being", "am", "isn", "aren", "wasn", "has", "have", "had", "having",
    "get", "gets", "got", "getting", "keep", "keeps",
    "kept", "feel", "feels", "felt", "seem", "seems", "seemed", "make", "makes", "made", "let", "lets", "go", "goes",
    "went", "gone", "come", "comes", "came",
    "take", "takes", "took", "give", "gives", "gave", "add", "adds", "want", "wants", "need", "needs", "try",
    "tries", "said", "says", "say", "asked", "ask",
    "told", "tell", "know", "think", "thought", "see", "saw", "find", "found", "buy", "bought", "sell", "sold",
    "put", "puts",
    # irregular past tenses: what happened, not what with
    "broke", "fell", "ate", "ran", "lost", "left", "stole", "threw", "wrote", "spent", "paid", "sent", "bent",
    "began", "drank", "froze", "blew", "drew", "grew", "knew", "flew", "won", "wore", "tore", "chose",
    "rode", "woke", "sang", "sank", "swam", "brought", "caught", "taught", "fought", "sought", "meant",
)  # fmt: skip
# units of time and money: "every 10 minutes", "50 bucks" measure, never name a topic ("queue times" may)
_MEASURES = _words(
    "seconds", "sec", "secs", "minute", "minutes", "min", "mins", "hour", "hours", "hr", "hrs", "week",
    "weeks", "month", "months", "year", "years", "dollar", "dollars", "bucks", "euro", "euros", "cents",
    "percent",
)  # fmt: skip
_CLOSED = _words(
    # conjunctions, question words, numbers and other closed words
    "and", "or", "but", "so", "if", "because", "when", "while", "whether", "though", "although", "nor", "then",
    "why", "how", "where", "what", "whom",
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "hundred", "thousand", "not",
    "yes", "thanks", "thank", "hi", "hello", "please", "there", "here",
)  # fmt: skip
_FUNCTION = _DETERMINERS | _SUBJECTS | _OBJECTS | _MODALS | _PREPOSITIONS | _CLOSED | _MEASURES
_ADVERBS = _words(
    "sometimes", "always", "never", "often", "again", "already", "anymore", "forever", "tonight", "today",
    "yesterday", "tomorrow", "now", "still",
    "even", "just", "only", "also", "too", "very", "so", "really", "actually", "finally", "instead", "anywhere",
    "everywhere", "somewhere", "nowhere",
    "together", "almost", "ever", "once", "twice", "maybe", "perhaps", "quite", "rather", "pretty", "super", "way",
    "much", "many", "most", "less", "least",
    "soon", "later", "ago", "enough", "else", "otherwise",
)  # fmt: skip
_ADJECTIVES = _words(
    "new", "old", "good", "bad", "great", "best", "worst", "better", "worse", "huge", "big", "small", "little",
    "large", "tiny", "long", "short", "high", "low",
    "fast", "slow", "quick", "easy", "hard", "hot", "cold", "warm", "wet", "dry", "broken", "free", "full", "empty",
    "real", "pure", "fair", "unfair", "wrong",
    "right", "sure", "same", "other", "whole", "last", "first", "next", "second", "single", "constant", "brutal",
    "insane", "nasty", "horrible",
    "terrible", "awful", "amazing", "awesome", "incredible", "cheap", "expensive", "friendly", "helpful", "useless",
    "laggy", "buggy", "boring",
    "annoying", "fun", "nice", "rude", "dirty", "clean", "safe", "ok", "okay", "fine", "happy", "sad", "angry",
    "black", "white", "red", "green", "blue", "dark",
    "hidden", "obvious", "entire", "different", "late", "early", "sick", "allergic", "legendary", "predatory",
    "dead", "stuck", "frozen",
    "faster", "slower", "bigger", "smaller", "cheaper", "higher", "lower", "longer", "shorter", "harder", "easier",
    "english", "finnish", "swedish",
)  # fmt: skip
_ADJECTIVE_ENDINGS = ("ous", "ful", "less", "able", "ible")
_NOT_ADJECTIVES = _words(
    "table", "cable", "vegetable", "timetable", "variable", "bible",
)  # fmt: skip
_NOT_ADVERBS = _words(
    "family", "supply", "reply", "assembly", "jelly", "belly", "bully", "rally", "ally", "fly",
)  # fmt: skip
_CONTRACTION = re.compile(r"['’](?:t|ve|re|ll|d|m)$")
_POSSESSIVE = re.compile(r"['’]s?$")  # "friend's", and a plural's "devs'"
# a plural's possessive mark: an apostrophe after an s, before the owned word ("the devs' roadmap")
_PLURAL_POSSESSIVE = r"(?<=[^\W_]s)['’](?=\s+[^\W_])"
_WORD = re.compile(rf"[^\W_]+(?:[-'’][^\W_]+)*(?:{_PLURAL_POSSESSIVE})?")
# an apostrophe inside a word ("friend's", "can't") is no boundary, nor a plural's possessive mark; a quote
# mark is (a quoted title ending in "s" before a word reads as a possessive: a known, rare miss)
_BOUNDARY = re.compile(rf"[.,!?;:()\[\]{{}}\"“”…/|]|(?<![^\W_])['‘’]|(?!{_PLURAL_POSSESSIVE})['‘’](?![^\W_])|\s[-–—]\s")


@dataclass(frozen=True, slots=True)
class Word:
    text: str  # as written
    low: str
    tag: Tag


def _form_tag(low: str) -> Tag | None:
    """The class a word's spelling alone gives, None where only its position can tell."""
    if low in _ADVERBS:
        return Tag.ADVERB
    if low in _ADJECTIVES:
        return Tag.ADJECTIVE
    if low in _VERBS:
        return Tag.VERB
    if low in _FUNCTION or _CONTRACTION.search(low) or low.isdigit():
        return Tag.FUNCTION
    if low.endswith("ly") and low not in _NOT_ADVERBS:
        return Tag.ADVERB
    if low.endswith(_ADJECTIVE_ENDINGS) and len(low) > 5 and low not in _NOT_ADJECTIVES:
        return Tag.ADJECTIVE
    if low.endswith("ed") and len(low) > 4 and not low.endswith("eed") and low != "hundred":
        return Tag.VERB  # a participle or a past tense: says what happened, not what with
    return None


def _clauses(text: str) -> list[list[str]]:
    """The text's words, split into clauses at punctuation (a quoted title is its own clause)."""
    return [words for part in _BOUNDARY.split(text) if (words := _WORD.findall(part))]


def _tag_clause(clause: list[str], function: frozenset[str]) -> list[Word]:
    lows = [w.lower() for w in clause]
    tags: list[Tag | None] = [Tag.FUNCTION if low in function else _form_tag(low) for low in lows]
    for i, low in enumerate(lows):
        if _POSSESSIVE.search(low):
            tags[i] = Tag.FUNCTION  # "friend's lobby": the owner, not the topic
    for i, low in enumerate(lows):
        if tags[i] is not None:
            continue
        before = lows[i - 1] if i else None
        after = lows[i + 1] if i + 1 < len(lows) else None
        starts_run = i == 0 or tags[i - 1] not in (Tag.ADJECTIVE, None, Tag.NOUN)
        if before in _SUBJECTS - _DETERMINERS or before in _MODALS or (before and before.endswith(("n't", "n’t"))):
            tags[i] = Tag.VERB  # "I try", "nobody picks", "could add", "to join", "doesn't complete"
        elif before not in _DETERMINERS and (
            after in _OBJECTS or (after in _OBJECT_STARTS and (starts_run or low.endswith("s")))
        ):
            tags[i] = Tag.VERB  # "nerf it", "one-shots everyone", "give the …", "granola contains any …"
        elif low.endswith("ing"):
            # a gerund names a thing after a determiner, a preposition or an adjective, or before a noun
            # ("the matchmaking", "on loading", "crafting bench"); else it is a verb ("keeps falling")
            noun_before = before is None or before in _DETERMINERS or before in _PREPOSITIONS
            noun_before = noun_before or (i > 0 and tags[i - 1] is Tag.ADJECTIVE)
            noun_after = after is not None and tags[i + 1] is None and after not in _OBJECTS
            tags[i] = Tag.NOUN if noun_before or noun_after else Tag.VERB
        else:
            tags[i] = Tag.NOUN
    return [Word(w, low, tag or Tag.FUNCTION) for w, low, tag in zip(clause, lows, tags, strict=True)]


@lru_cache(maxsize=256)
def tagged(text: str, function: frozenset[str] = frozenset()) -> tuple[tuple[Word, ...], ...]:
    """Each clause's words with their guessed class; ``function`` (lower case) are read as function words
    (the domain's stopwords and generic nouns: "customer", "game"). Remembered for the last texts: the
    prior's theme asks for a text's opening subject, its topic phrase and its nouns in turn."""
    return tuple(tuple(_tag_clause(clause, function)) for clause in _clauses(text))


def noun_phrases(text: str, function: frozenset[str] = frozenset()) -> list[tuple[str, ...]]:
    """Each run's nouns, lower case, in text order ("the new sniper rifle one-shots everyone" → ("sniper",
    "rifle")); a run with no noun (adjectives alone) gives nothing."""
    phrases: list[tuple[str, ...]] = []
    for clause in tagged(text, function):
        run: list[str] = []
        for word in [*clause, None]:
            if word is not None and word.tag in (Tag.NOUN, Tag.ADJECTIVE):
                if word.tag is Tag.NOUN:
                    run.append(word.low)
                continue
            if run:
                phrases.append(tuple(run))
            run = []
    return phrases


_QUESTION_WORDS = _words("why", "how", "when", "where", "what")
_AUXILIARIES = (_MODALS - {"to"}) | _words("is", "are", "was", "were", "has", "have", "had")


def opening_subject(text: str, function: frozenset[str] = frozenset()) -> tuple[str, ...] | None:
    """The nouns of the subject the text opens with, lower case, or None: the first clause's opening noun
    phrase (after determiners and possessives) where its verb follows it ("Dragon Slayer greatsword is way
    too strong after the buff", "subtitles don't match …"), or where a question's auxiliary precedes it
    ("is the damage falloff on shotguns intended or a bug?", "why does my controller …")."""
    clauses = tagged(text, function)
    words = clauses[0] if clauses else ()
    i = 1 if words and words[0].low in _QUESTION_WORDS else 0
    question = i < len(words) and words[i].low in _AUXILIARIES
    i += 1 if question else 0
    while i < len(words) and (words[i].low in _DETERMINERS or _POSSESSIVE.search(words[i].low)):
        i += 1
    start = i
    while i < len(words) and words[i].tag in (Tag.NOUN, Tag.ADJECTIVE):
        i += 1
    found = tuple(w.low for w in words[start:i] if w.tag is Tag.NOUN)
    follower = words[i] if i < len(words) else None  # "subtitles don't match": a negated auxiliary is a verb
    verb_follows = follower is not None and (follower.tag is Tag.VERB or follower.low.endswith(("n't", "n’t")))
    return found if found and (question or verb_follows) else None


def is_adjective(word: str) -> bool:
    """Whether the word's spelling alone reads as an adjective ("black", "horrible")."""
    return _form_tag(word.lower()) is Tag.ADJECTIVE


def nouns(text: str, function: frozenset[str] = frozenset()) -> frozenset[str]:
    """Every word the text uses as a noun somewhere, lower case."""
    return frozenset(w for phrase in noun_phrases(text, function) for w in phrase)
