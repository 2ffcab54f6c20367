"""The deterministic prior: a full structure proposal from the domain's lexicons alone, no model.

It is the field-by-field fallback when a guard rejects a model value, what the desk's "fill in by
hand" starts from when the model is busy or down, and a baseline for the evaluation. Every field:

* category — the deterministic category rules (a declared-category alert, dense swearing, then the
  keyword evidence), else the catch-all;
* type — cues from ``prior-lexicon.json`` matched at word starts ("?" anywhere); the type with most
  distinct cues wins, ties going to the type listed first; an alert counts for the first-listed
  type (an incident is reported as a complaint); no cue: ``defaultType``;
* severity — the highest ``severityByAlert`` of the alerts that fire, else ``severityByType``;
* sentiment — the domain's rule for the text's language (deterministic/sentiment.py: the words'
  reading, or the ``typeSentiment`` of that type);
* language — deterministic detection among the domain's languages, else the domain's language;
* theme — the topic noun in base form (Voikko for Finnish; other languages as written, lower case): the
  text's word that carried the category evidence (else the topic phrase, else an alert's word, else the
  longest content word), never a generic noun ("asiakas") or a verb where a better word exists. English
  reads its noun phrases (text/english.py; ADR 0036): never an adjective or adverb alone.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field

from feedback_intelligence.deterministic import theme_words
from feedback_intelligence.deterministic.alerts import match_alerts, pattern_needles
from feedback_intelligence.deterministic.category_keywords import KeywordEvidence, keyword_evidence, strongest
from feedback_intelligence.deterministic.category_override import TextRules, decision_over, forced_category_reason
from feedback_intelligence.deterministic.label_words import without_label_words
from feedback_intelligence.deterministic.lexicon_scan import SCANS_KEPT, scan_of
from feedback_intelligence.deterministic.per_object import RecentTexts
from feedback_intelligence.deterministic.sentiment import rule_sentiment, type_for_tone
from feedback_intelligence.deterministic.type_cues import cue_count, type_cue_needles
from feedback_intelligence.domain.model import Domain
from feedback_intelligence.records import AlertHit, Structure
from feedback_intelligence.text import english
from feedback_intelligence.text.bounds import THEME_MAX_CHARS
from feedback_intelligence.text.language import LanguageGuess, detect_language, detect_languages
from feedback_intelligence.text.matching import FoldedText, fold
from feedback_intelligence.text.scan import Scan

_WORD_CHARS = re.compile(r"[\w'’-]")
_WORDS = re.compile(r"\w+")
_MIN_THEME_WORD = 4


@dataclass(frozen=True, slots=True)
class TypeEvidence:
    type: str
    scores: dict[str, int]  # type -> distinct cues found (plus the alert vote)

    def score(self, type_: str) -> int:
        return self.scores.get(type_, 0)


def type_evidence(
    text: str, domain: Domain, alerts: list[AlertHit] | None = None, scan: Scan | None = None
) -> TypeEvidence:
    """The prior's type for ``text`` and the cue score of every type (a quoted label word is no cue).
    ``scan``: the text read by the domain's lexicons (text/scan.py), when the caller has it."""
    label_free = without_label_words(text, domain)
    possible: set[str] | None = None
    if scan is not None and label_free == text and scan.is_of(text):
        folded = scan.folded.folded  # no label word blanked: the scanned text is the one searched
        needles = type_cue_needles(domain)
        possible = scan.written_candidates(needles) if needles is not None else None
    else:
        folded = fold(label_free)
    cues = domain.prior.type_cues
    scores = {t: cue_count(folded, terms, possible) for t, terms in cues.items()}
    alerts = match_alerts(text, domain) if alerts is None else alerts
    if cues and any(a.category in domain.prior.severity_by_alert for a in alerts):
        first = next(iter(cues))
        scores[first] += 1
    ranked = sorted(cues, key=lambda t: -scores[t])  # stable: ties keep the file order
    if ranked and scores[ranked[0]] > 0:
        return TypeEvidence(ranked[0], scores)
    default = domain.prior.default_type or next(iter(domain.types))
    return TypeEvidence(default, scores)


@dataclass(frozen=True, slots=True)
class TextEvidence:
    """Everything deterministic the prior and the guards read from one text, computed once; ``scan``: the
    text as the domain's lexicons read it (text/scan.py), for the rules that read it after the evidence."""

    alerts: list[AlertHit]
    keywords: list[KeywordEvidence]
    types: TypeEvidence
    language: LanguageGuess | None
    scan: Scan | None = field(default=None, compare=False, repr=False)
    # the category rules' reading of the text, kept for the prior's category, the override and the advice
    rules: TextRules | None = field(default=None, compare=False, repr=False)


def _evidence_of(text: str, domain: Domain, language: LanguageGuess | None) -> TextEvidence:
    scan = scan_of(text, domain)
    alerts = match_alerts(text, domain, scan)
    keywords = keyword_evidence(text, domain.category_keywords, domain.incident_places, scan)
    evidence = TextEvidence(
        alerts=alerts,
        keywords=keywords,
        types=type_evidence(text, domain, alerts, scan),
        language=language,
        scan=scan,
        rules=TextRules(text, alerts, domain, keywords, scan),
    )
    _lately.put(text, domain, evidence)
    return evidence


#: the last texts' evidence: the prior and the guards ask about the same text
_evidence: RecentTexts[TextEvidence] = RecentTexts(256)
#: the evidence of the texts read last, as many as a batch has rows: the derivation of a row takes its rules'
#: reading (the detected language, the scan) instead of reading the text again; only looked up, never computed
_lately: RecentTexts[TextEvidence] = RecentTexts(SCANS_KEPT)


def text_evidence(text: str, domain: Domain) -> TextEvidence:
    found = _evidence.get(text, domain)
    if found is None:
        found = _evidence_of(text, domain, detect_language(text, domain.detection_languages))
        _evidence.put(text, domain, found)
    return found


def texts_evidence(texts: Sequence[str], domain: Domain) -> list[TextEvidence]:
    """:func:`text_evidence` of many texts (a batch), their languages detected in one parallel call."""
    languages = detect_languages(texts, domain.detection_languages)
    return [_evidence_of(text, domain, language) for text, language in zip(texts, languages, strict=True)]


def evidence_read_lately(text: str, domain: Domain) -> TextEvidence | None:
    """The evidence the rules read of ``text`` lately in this process (a row's, for its derivation), or None."""
    return _lately.get(text, domain)


def prior_severity(type_: str, alerts: list[AlertHit], domain: Domain) -> str:
    ranks = [domain.prior.severity_by_alert[a.category] for a in alerts if a.category in domain.prior.severity_by_alert]
    if ranks:
        return max(ranks, key=domain.severity_rank)
    by_type = domain.prior.severity_by_type.get(type_)
    if by_type:
        return by_type
    keys = list(domain.severities)
    return keys[domain.severity_rank(None) - 1]


def prior_category(text: str, evidence: TextEvidence, domain: Domain) -> str:
    catch_all = domain.catch_all_category or next(iter(domain.categories))
    if evidence.rules is not None and evidence.rules.text == text:
        forced = decision_over(evidence.rules, catch_all)
        return forced.category if forced is not None else catch_all
    placeholder = Structure(catch_all, "", "", "", "")
    decision = forced_category_reason(
        text, placeholder, evidence.alerts, domain, keywords=evidence.keywords, scan=evidence.scan
    )
    return decision[0] if decision else catch_all


def _word_at(text: str, start: int, end: int) -> str:
    """The whole word of ``text`` around ``[start, end)``."""
    while start > 0 and _WORD_CHARS.match(text[start - 1]):
        start -= 1
    while end < len(text) and _WORD_CHARS.match(text[end]):
        end += 1
    return text[start:end]


def _clean(word: str) -> str:
    """Lowercase, without invisible characters or edge punctuation (a theme must read as it renders)."""
    visible = "".join(
        ch if unicodedata.category(ch)[0] in "LNM" or ch in "-'’" else " " if ch.isspace() else "" for ch in word
    )
    return unicodedata.normalize("NFC", " ".join(visible.split()).strip("'’-").lower())


def _word_with(text: str, term: str) -> str | None:
    spans = FoldedText.of(text).find_all(term)
    if not spans:
        return None
    word = _clean(_word_at(text, *spans[0]))
    return word or None


def _topic_words(found: str, text: str, language: str, domain: Domain) -> str | None:
    """What of a found word (or phrase: an alert needle may span two words) may name a topic, in base form:
    nouns, or words the morphology does not know (a brand), never a generic noun; None when nothing is left
    (an alert stem such as "kaatu" finds "kaatui", which says what happened, not what with). English and
    Swedish have no morphology: a word is kept where the text uses it as a noun ("nerf it", "was hacked",
    "brände sig" are not)."""
    found_words = theme_words.theme_words(found)
    if language == theme_words.ENGLISH:
        nouns = theme_words.english_nouns(text, domain)
        named = any(w.lower() in nouns for w in found_words)  # "black screen" keeps its adjective
        kept = [w for w in found_words if w.lower() in nouns or english.is_adjective(w)] if named else []
    elif language == theme_words.SWEDISH:
        swedish_nouns = set(theme_words.swedish_nouns(text, domain))  # "brände sig", "blev yr" say what happened
        kept = [w for w in found_words if w.lower() in swedish_nouns]
    else:
        kept = [
            w
            for w in found_words
            if not theme_words.is_generic(w, language, domain)
            and (theme_words.is_noun(w, language) or not theme_words.is_known_word(w, language))
        ]
    return theme_words.normalise_theme(" ".join(kept), language) if kept else None


def prior_theme(text: str, category: str, evidence: TextEvidence, domain: Domain) -> str:
    """The topic noun in base form: the word that carried the category evidence, else the text's topic
    phrase (Finnish: its longest noun that is not generic, through Voikko; English: its first noun phrase),
    else an alert's word, else its longest content word (English: a noun, else the category's label)."""
    language = evidence.language.code if evidence.language else domain.language
    best = strongest(e for e in evidence.keywords if e.category == category)
    for term in [best.word or best.term] if best else []:  # the word it occurs in (a base form's too)
        word = _word_with(text, term)
        topic = _topic_words(word, text, language, domain) if word else None
        if topic:
            # English: a keyword outside the subject the text opens with names the change or the verdict
            # ("after the buff", "or a bug?"), the subject the thing ("Dragon Slayer greatsword is …")
            subject = theme_words.opening_subject(text, language, domain)
            return subject if subject and not set(subject.split()) & set(topic.split()) else topic
    # an alert's word says what happened or to whom ("silmä", "sormi", "vauva"); the product or place the
    # text names says what with, so the topic phrase comes first
    phrase = theme_words.topic_phrase(text, language, domain)
    if phrase:
        return phrase
    for term in (needle for a in evidence.alerts for needle in pattern_needles(a.pattern)):
        word = _word_with(text, term)
        topic = _topic_words(word, text, language, domain) if word else None
        if topic:
            return topic
    stop = theme_words.stop_words(domain)
    every = [w for w in (_clean(w) for w in _WORDS.findall(text)) if w]
    content = [w for w in every if len(w) >= _MIN_THEME_WORD and fold(w) not in stop]
    specific = [w for w in content if _topic_words(w, text, language, domain)]
    if language in (theme_words.ENGLISH, theme_words.SWEDISH):
        content = every = []  # never an adjective, adverb or verb alone ("sometimes", "horrible", "halkade")
    if specific or content or every:
        return theme_words.normalise_theme(max(specific or content or every, key=len), language)
    return domain.category_label(category).lower()


def propose_structure(text: str, domain: Domain, evidence: TextEvidence | None = None) -> Structure:
    """A complete structure for ``text`` from the domain's data alone (deterministic, no I/O); ``evidence``:
    the text's :func:`text_evidence`, when the caller has it."""
    evidence = text_evidence(text, domain) if evidence is None else evidence
    category = prior_category(text, evidence, domain)
    language = evidence.language.code if evidence.language else domain.language
    type_ = type_for_tone(evidence.types.type, text, language, domain)
    return Structure(
        category=category,
        # a word can be as long as the text; the theme keeps the bound every theme has (text/bounds.py)
        theme=theme_words.normalise_theme(prior_theme(text, category, evidence, domain), language)[
            :THEME_MAX_CHARS
        ].strip(),
        severity=prior_severity(type_, evidence.alerts, domain),
        type=type_,
        language=language,
        sentiment=rule_sentiment(text, type_, language, domain),
    )
