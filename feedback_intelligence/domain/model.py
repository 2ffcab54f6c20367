"""The domain module as the code sees it: taxonomy, lexicons and prompts, loaded from data only.

A domain is a folder (``domain.json`` + lexicon JSON files + prompt files); see
:mod:`feedback_intelligence.domain.loader`. Nothing in this module knows a particular domain.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

SCHEMA_FIELDS: tuple[str, ...] = ("category", "theme", "severity", "type", "language")
OPTIONAL_FIELDS: tuple[str, ...] = ("sentiment",)

# The structuring prompt is packaged; a domain may ship its own under this role.
STRUCTURING_ROLE = "structuring"
# Prompt roles the API needs from every domain (docs/rules.md, "Domain folder").
SYNTHESIS_ROLE = "synthesis"
ALERT_NOMINATION_ROLE = "alertNomination"
ALERT_VERIFY_ROLE = "alertVerify"

# Where a prompt template takes what the code splices in: the data block, or one untrusted text.
DATA_PLACEHOLDER = "{{data}}"
TEXT_PLACEHOLDER = "{{text}}"
PROMPT_PLACEHOLDERS = {
    SYNTHESIS_ROLE: DATA_PLACEHOLDER,
    ALERT_NOMINATION_ROLE: DATA_PLACEHOLDER,
    ALERT_VERIFY_ROLE: TEXT_PLACEHOLDER,
}

# Why a handled case happened, when a domain names no reasons of its own (``caseRootCauses``): key ->
# label by page language. ``other`` asks the manager to say it in words (services/cases.py).
OTHER_ROOT_CAUSE = "other"
DEFAULT_CASE_ROOT_CAUSES: dict[str, dict[str, str]] = {
    "process": {"fi": "Toimintatapa tai ohje", "sv": "Arbetssätt eller instruktion", "en": "Process or instructions"},
    "staff": {"fi": "Henkilökunnan toiminta", "sv": "Personalens agerande", "en": "Staff action"},
    "equipment": {"fi": "Laite tai järjestelmä", "sv": "Utrustning eller system", "en": "Equipment or system"},
    "supplier": {"fi": "Toimittaja", "sv": "Leverantör", "en": "Supplier"},
    "not_established": {
        "fi": "Syytä ei voitu todeta",
        "sv": "Orsaken kunde inte fastställas",
        "en": "Cause not established",
    },
    OTHER_ROOT_CAUSE: {"fi": "Muu syy", "sv": "Annan orsak", "en": "Other cause"},
}

# The one-word answers the alert-verify prompt asks for, by domain language: (yes, no).
ALERT_VERIFY_WORDS: dict[str, tuple[str, str]] = {"fi": ("kyllä", "ei"), "en": ("yes", "no")}


def normalize_newlines(text: str) -> str:
    """CRLF and lone CR become LF (load-bearing: a CRLF prompt once flipped a safety judgment)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


@dataclass(frozen=True, slots=True)
class CategoryKeywordRule:
    """``terms`` name the department (strong evidence); ``weak_terms`` name who or what takes part in any
    feedback (a clerk, "service") and count only when no rule has a strong term; ``not_evidence`` phrases
    are cut out of the text before this rule looks (the staff a customer reported to is not the subject)."""

    category: str
    terms: tuple[str, ...]
    exclude_if_contains: tuple[str, ...] = ()
    weak_terms: tuple[str, ...] = ()
    not_evidence: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class IncidentPlaces:
    """Where an incident happened is not what it is about: in a text with an ``incident_words`` match, a
    word followed by one of ``postpositions`` ("hedelmäosaston edessä") and a word containing one of
    ``place_stems`` ("lelukäytävällä") are blanked before the category keyword rules look."""

    incident_words: tuple[str, ...] = ()
    postpositions: tuple[str, ...] = ()
    place_stems: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class VulgarityLexicon:
    mild: tuple[str, ...] = ()
    strong: tuple[str, ...] = ()
    demote_to_category: str | None = None
    demote_ratio: float = 0.4
    demote_min_distinct_stems: int = 2

    @property
    def empty(self) -> bool:
        return not (self.mild or self.strong)


@dataclass(frozen=True, slots=True)
class PersonalDataRules:
    """Where the domain's texts name a person (deterministic/personal_data.py), and what replaces personal data."""

    name_verbs: tuple[str, ...] = ()
    name_titles: tuple[str, ...] = ()
    placeholders: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PriorLexicon:
    """What the deterministic prior reads besides the category and alert lexicons (``prior-lexicon.json``).

    Cues are matched at the start of a word, caseless; a cue without letters (``?``) anywhere.
    """

    languages: tuple[str, ...] = ()  # ISO 639-1 codes the language detector chooses among
    type_cues: dict[str, tuple[str, ...]] = field(default_factory=dict)  # type -> cues
    default_type: str | None = None  # when no cue fires
    severity_by_alert: dict[str, str] = field(default_factory=dict)  # alert category -> severity
    severity_by_type: dict[str, str] = field(default_factory=dict)  # type -> severity when no alert fires
    stopwords: tuple[str, ...] = ()  # function words a theme never starts from
    generic_nouns: tuple[str, ...] = ()  # base forms that name no topic alone ("asiakas", "asia", "ok")
    personal_data: PersonalDataRules = field(default_factory=PersonalDataRules)


@dataclass(frozen=True, slots=True)
class IssueRules:
    """How an item's issue (the problem it reports, across departments) is read (``issue-keywords.json``;
    deterministic/issue.py). ``keywords`` are category-keyword rules whose ``category`` is an issue key;
    the maps send an alert category, a type or a department to the issue it stands for."""

    keywords: tuple[CategoryKeywordRule, ...] = ()
    by_alert: dict[str, str] = field(default_factory=dict)  # alert category -> issue (decides first)
    by_type: dict[str, str] = field(default_factory=dict)  # type -> issue (before the words)
    by_category: dict[str, str] = field(default_factory=dict)  # category -> issue (when no word decides)


SENTIMENT_RULES = ("text", "type")  # how the effective sentiment is read when no model gave one (ADR 0028)


@dataclass(frozen=True, slots=True)
class SentimentLexicon:
    """The cues of the text's sentiment reading (``sentiment-lexicon.json``; deterministic/sentiment.py).

    Cues match caseless at the start of a word (a stem), and, for Finnish, against the word's base form
    too; a cue without letters (an emoji, ``:)``) matches anywhere. ``rules`` names, per language, which
    reading the report keeps (``text`` or ``type``), as measured on the eval set; other languages: ``type``.
    """

    positive: tuple[str, ...] = ()
    negative: tuple[str, ...] = ()
    neutral: tuple[str, ...] = ()  # a wish, a request or a question: the tone a suggestion carries
    negations: tuple[str, ...] = ()  # flip a cue within the few words after them, inside one clause
    intensifiers: tuple[str, ...] = ()  # double the cue right after them
    exceptions: tuple[str, ...] = ()  # phrases blanked first ("parasta ennen" is a date, not praise)
    rules: dict[str, str] = field(default_factory=dict)  # language -> "text" | "type"

    @property
    def empty(self) -> bool:
        return not (self.positive or self.negative)

    def rule_for(self, language: str | None) -> str:
        return self.rules.get(language or "", "type")


@dataclass(frozen=True, slots=True)
class Domain:
    """Everything domain-specific; keys and labels keep their declaration order (dicts are ordered)."""

    name: str
    language: str
    category_field_label: str
    categories: dict[str, str]  # key -> label
    category_hints: dict[str, str]
    catch_all_category: str | None
    demoted_categories: tuple[str, ...]
    severities: dict[str, str]  # least -> most severe
    types: dict[str, str]
    sentiments: dict[str, str]
    type_sentiment: dict[str, str]
    sources: tuple[str, ...]
    alert_keywords: dict[str, tuple[str, ...]]  # alert category -> patterns, file order
    category_keywords: tuple[CategoryKeywordRule, ...] = ()
    incident_places: IncidentPlaces = field(default_factory=IncidentPlaces)
    alert_exceptions: dict[str, tuple[str, ...]] = field(default_factory=dict)  # alert category -> masked phrases
    # alert categories that wait for the day's digest instead of paging (alert-keywords.json digestCategories)
    digest_alert_categories: tuple[str, ...] = ()
    prior: PriorLexicon = field(default_factory=PriorLexicon)
    prior_fields: tuple[str, ...] = ()  # fields the deterministic prior decides; the model's value is ignored
    vulgarity: VulgarityLexicon = field(default_factory=VulgarityLexicon)
    sentiment_lexicon: SentimentLexicon = field(default_factory=SentimentLexicon)
    prompts: dict[str, str] = field(default_factory=dict)  # role -> prompt text (LF-normalised)
    issues: dict[str, dict[str, str]] = field(default_factory=dict)  # issue -> language -> label, declared order
    catch_all_issue: str | None = None
    issue_rules: IssueRules = field(default_factory=IssueRules)
    directory: Path | None = None  # the module folder it was loaded from (None when built in code)
    # why a case was handled: key -> {page language -> label} (domain.json ``caseRootCauses``)
    case_root_causes: dict[str, dict[str, str]] = field(default_factory=lambda: dict(DEFAULT_CASE_ROOT_CAUSES))

    @property
    def detection_languages(self) -> tuple[str, ...]:
        """The languages feedback in this domain is expected in; the domain's own first."""
        return tuple(dict.fromkeys((self.language, *self.prior.languages)))

    def category_label(self, key: str) -> str:
        return self.categories.get(key, key)

    def issue_label(self, key: str, language: str | None = None) -> str:
        """The issue's label in ``language`` (default: the domain's), else its first label, else the key."""
        labels = self.issues.get(key) or {}
        return labels.get(language or self.language) or next(iter(labels.values()), key)

    def issue_labels(self, language: str | None = None) -> dict[str, str]:
        return {key: self.issue_label(key, language) for key in self.issues}

    @property
    def verify_words(self) -> tuple[str, str]:
        """(yes, no) for the alert-verify answer in this domain's language; English when unknown."""
        return ALERT_VERIFY_WORDS.get(self.language, ALERT_VERIFY_WORDS["en"])

    def is_demoted(self, category: str | None) -> bool:
        return category is not None and category in self.demoted_categories

    def pages_for(self, alert_category: str) -> bool:
        """Does an alert of this category page a person and open a case at once (not: wait for the digest)?"""
        return alert_category not in self.digest_alert_categories

    def severity_rank(self, severity: str | None) -> int:
        """1-based rank in declaration order; unknown severities rank as the middle ("medium")."""
        keys = list(self.severities)
        if severity in keys:
            return keys.index(severity) + 1
        return max(1, (len(keys) + 1) // 2)

    def sentiment_for(self, type_: str | None, explicit: str | None = None) -> str | None:
        if explicit:
            return explicit
        return self.type_sentiment.get(type_ or "")
