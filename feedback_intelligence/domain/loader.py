"""Load a domain module (a folder of JSON + prompt files) into a :class:`Domain`, validating everything.

A domain is data only. Adding one is adding a folder::

    <name>/domain.json               taxonomy, sources, prompt map              (required)
    <name>/alert-keywords.json       deterministic alert lexicon                (required)
    <name>/category-keywords.json    category keyword rules                     (optional)
    <name>/issue-keywords.json       issue rules (needs domain.json's "issues") (optional)
    <name>/vulgarity-lexicon.json    vulgarity density lexicon                  (optional)
    <name>/prior-lexicon.json        cues of the deterministic prior            (optional)
    <name>/sentiment-lexicon.json    cues of the text's sentiment reading       (optional)
    <name>/prompts/*                 files named by domain.json's "prompts" map

Every problem raises :class:`DomainError` with a message naming the file and the offending key,
so a bad domain stops the boot with a message an operator can act on.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from feedback_intelligence.domain import files
from feedback_intelligence.domain.model import (
    ALERT_NOMINATION_ROLE,
    ALERT_VERIFY_ROLE,
    ALERT_VERIFY_WORDS,
    DEFAULT_CASE_ROOT_CAUSES,
    OPTIONAL_FIELDS,
    PROMPT_PLACEHOLDERS,
    SCHEMA_FIELDS,
    SYNTHESIS_ROLE,
    CategoryKeywordRule,
    Domain,
    IncidentPlaces,
    IssueRules,
    PersonalDataRules,
    PriorLexicon,
    SentimentLexicon,
    VulgarityLexicon,
    normalize_newlines,
)

DOMAINS_ROOT = Path(__file__).resolve().parent.parent / "domains"

DOMAIN_FILE = "domain.json"
ALERT_FILE = "alert-keywords.json"
CATEGORY_KEYWORD_FILE = "category-keywords.json"
ISSUE_FILE = "issue-keywords.json"
VULGARITY_FILE = "vulgarity-lexicon.json"
PRIOR_FILE = "prior-lexicon.json"
SENTIMENT_FILE = "sentiment-lexicon.json"

DESK_SOURCE = "desk"

M = TypeVar("M", bound=BaseModel)

DEFAULT_SEVERITIES = {s: s for s in ("low", "medium", "high", "critical")}
DEFAULT_TYPES = {t: t for t in ("complaint", "praise", "suggestion", "question", "other")}
DEFAULT_SENTIMENTS = {s: s for s in ("positive", "negative", "neutral")}
DEFAULT_TYPE_SENTIMENT = {
    "complaint": "negative",
    "praise": "positive",
    "suggestion": "neutral",
    "question": "neutral",
    "other": "neutral",
}


class DomainError(Exception):
    """A domain module that cannot be used; the message names the file and the key."""


# --------------------------------------------------------------------------- reading a file


class _Reader:
    """One JSON file of a domain: read (no duplicate keys), parsed into its model, errors named."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def error(self, key: str | None, problem: str) -> DomainError:
        where = f"{self.path}: '{key}'" if key else str(self.path)
        return DomainError(f"{where}: {problem}")

    def parse(self, model: type[M]) -> M:
        data = self._load()
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            key, problem = files.describe(exc, lambda loc: files.known_keys(model, loc))
            raise self.error(key, problem) from None

    def _load(self) -> dict[str, Any]:
        try:
            raw = self.path.read_text(encoding="utf-8-sig")
        except FileNotFoundError:
            raise self.error(None, "file not found") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise self.error(None, f"cannot be read ({exc})") from None

        def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
            result: dict[str, Any] = {}
            for key, value in pairs:
                if key in result:
                    raise self.error(key, "appears twice in the same object")
                result[key] = value
            return result

        try:
            data = json.loads(raw, object_pairs_hook=no_duplicates)
        except json.JSONDecodeError as exc:
            raise self.error(None, f"is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
        if not isinstance(data, dict):
            raise self.error(None, "must contain a JSON object at the top level")
        return data


# --------------------------------------------------------------------------- public API


def resolve_domain_dir(name: str, root: Path | str | None = None) -> Path:
    """The folder of domain ``name``: a plain name under ``root``, or a name that is itself a path."""
    if not isinstance(name, str) or not name.strip():
        raise DomainError("domain name must be a non-blank string")
    name = name.strip()
    as_path = Path(name).expanduser()
    looks_like_path = as_path.is_absolute() or len(as_path.parts) > 1 or name.startswith((".", "~"))
    folder = as_path if looks_like_path else Path(root or DOMAINS_ROOT) / name
    if not folder.is_dir():
        known = ", ".join(available_domains(root)) if not looks_like_path else ""
        hint = f" (available: {known})" if known else ""
        raise DomainError(f"domain '{name}': folder {folder} does not exist{hint}")
    if not (folder / DOMAIN_FILE).is_file():
        raise DomainError(f"domain '{name}': {folder / DOMAIN_FILE} not found")
    return folder


def available_domains(root: Path | str | None = None) -> list[str]:
    """Names of the folders under ``root`` that hold a ``domain.json``, sorted."""
    base = Path(root or DOMAINS_ROOT)
    if not base.is_dir():
        return []
    return sorted(p.name for p in base.iterdir() if p.is_dir() and (p / DOMAIN_FILE).is_file())


def load_domain(name: str, root: Path | str | None = None, *, alert_nomination: bool = True) -> Domain:
    """Load and validate domain ``name`` (a folder under ``root``, default the packaged ``domains/``).

    ``alert_nomination`` mirrors the report's alert screen switch: when on (the default) the
    ``alertNomination`` and ``alertVerify`` prompts are required and the language must be fi or en.
    Each file is read by a function of its own, in this order: ``domain.json`` (identity, taxonomy,
    sources, prior fields), the prompt files it names, then the alert, category-keyword, vulgarity and
    prior lexicons.
    """
    folder = resolve_domain_dir(name, root)
    readers = _Readers(folder)
    spec = readers.domain.parse(files.DomainFile)
    alerts = readers.alerts.parse(files.AlertFile)
    category_file = readers.categories.parse(files.CategoryFile) if readers.categories.path.exists() else None
    vulgarity = readers.vulgarity.parse(files.VulgarityFile) if readers.vulgarity.path.exists() else None
    prior = readers.prior.parse(files.PriorFile) if readers.prior.path.exists() else None
    issue_file = readers.issues.parse(files.IssueFile) if readers.issues.path.exists() else None
    _check_references(readers, spec, alerts, category_file, vulgarity, prior, alert_nomination=alert_nomination)
    _check_issues(readers, spec, alerts, issue_file)

    language = spec.language
    severities = spec.severities or dict(DEFAULT_SEVERITIES)
    types = spec.types or dict(DEFAULT_TYPES)
    sentiments = spec.sentiments or dict(DEFAULT_SENTIMENTS)
    if spec.type_sentiment is None:
        type_sentiment = {t: s for t, s in DEFAULT_TYPE_SENTIMENT.items() if t in types and s in sentiments}
    else:
        type_sentiment = dict(spec.type_sentiment)
    prompts = {role: _read_prompt(readers.domain, folder, role, rel) for role, rel in spec.prompts.items()}
    sentiment = readers.sentiment.parse(files.SentimentFile) if readers.sentiment.path.exists() else None
    return Domain(
        name=spec.name or folder.name,
        language=language,
        category_field_label=spec.category_field_label,
        categories=dict(spec.categories),
        category_hints=dict(spec.category_hints),
        catch_all_category=spec.catch_all_category,
        demoted_categories=spec.demoted_categories,
        severities=severities,
        types=types,
        sentiments=sentiments,
        type_sentiment=type_sentiment,
        sources=spec.sources,
        alert_keywords=dict(alerts.categories),
        category_keywords=_category_rules(category_file),
        incident_places=_incident_places(category_file),
        alert_exceptions=dict(alerts.exceptions),
        digest_alert_categories=tuple(dict.fromkeys(alerts.digest_categories)),
        prior=_prior(prior),
        prior_fields=spec.prior_fields,
        vulgarity=_vulgarity(vulgarity),
        sentiment_lexicon=_sentiment(sentiment),
        prompts=prompts,
        issues={key: dict(labels) for key, labels in spec.issues.items()},
        catch_all_issue=spec.catch_all_issue,
        issue_rules=_issue_rules(issue_file),
        directory=folder,
        case_root_causes={k: dict(v) for k, v in spec.case_root_causes.items()} or dict(DEFAULT_CASE_ROOT_CAUSES),
    )


@dataclass(frozen=True, slots=True)
class _Readers:
    """The files of one domain folder."""

    folder: Path

    @property
    def domain(self) -> _Reader:
        return _Reader(self.folder / DOMAIN_FILE)

    @property
    def alerts(self) -> _Reader:
        return _Reader(self.folder / ALERT_FILE)

    @property
    def categories(self) -> _Reader:
        return _Reader(self.folder / CATEGORY_KEYWORD_FILE)

    @property
    def issues(self) -> _Reader:
        return _Reader(self.folder / ISSUE_FILE)

    @property
    def vulgarity(self) -> _Reader:
        return _Reader(self.folder / VULGARITY_FILE)

    @property
    def prior(self) -> _Reader:
        return _Reader(self.folder / PRIOR_FILE)

    @property
    def sentiment(self) -> _Reader:
        return _Reader(self.folder / SENTIMENT_FILE)


def _check_references(
    readers: _Readers,
    spec: files.DomainFile,
    alerts: files.AlertFile,
    category_file: files.CategoryFile | None,
    vulgarity: files.VulgarityFile | None,
    prior: files.PriorFile | None,
    *,
    alert_nomination: bool,
) -> None:
    """Every key one file names in another (or in itself) must be declared there: the one place for it."""
    domain = readers.domain
    categories = spec.categories
    types = spec.types or DEFAULT_TYPES
    sentiments = spec.sentiments or DEFAULT_SENTIMENTS
    severities = spec.severities or DEFAULT_SEVERITIES
    for key in spec.category_hints:
        if key not in categories:
            raise domain.error(f"categoryHints.{key}", "is not a declared category")
    if spec.catch_all_category is not None and spec.catch_all_category not in categories:
        raise domain.error("catchAllCategory", f"'{spec.catch_all_category}' is not a declared category")
    for key in spec.demoted_categories:
        if key not in categories:
            raise domain.error("demotedCategories", f"'{key}' is not a declared category")
    for type_key, sentiment in (spec.type_sentiment or {}).items():
        if type_key not in types:
            raise domain.error(f"typeSentiment.{type_key}", "is not a declared type")
        if sentiment not in sentiments:
            raise domain.error(f"typeSentiment.{type_key}", f"'{sentiment}' is not a declared sentiment")
    if DESK_SOURCE not in spec.sources:
        raise domain.error("sources", f"must contain '{DESK_SOURCE}' (the clerk desk posts with that source)")
    required = [SYNTHESIS_ROLE] + ([ALERT_NOMINATION_ROLE, ALERT_VERIFY_ROLE] if alert_nomination else [])
    for role in required:
        if role not in spec.prompts:
            raise domain.error(f"prompts.{role}", "is required (declare the prompt file for this role)")
    if alert_nomination and spec.language not in ALERT_VERIFY_WORDS:
        raise domain.error(
            "language",
            f"must be one of {sorted(ALERT_VERIFY_WORDS)} while the alert screen is on, got '{spec.language}'",
        )
    for name in spec.prior_fields:
        if name not in (*SCHEMA_FIELDS, *OPTIONAL_FIELDS):
            fields = ", ".join((*SCHEMA_FIELDS, *OPTIONAL_FIELDS))
            raise domain.error("priorFields", f"'{name}' is not a structure field ({fields})")

    for category in alerts.exceptions:
        if category not in alerts.categories:
            raise readers.alerts.error(f"exceptions.{category}", "is not an alert category of this file")
    for category in alerts.digest_categories:
        if category not in alerts.categories:
            raise readers.alerts.error("digestCategories", f"'{category}' is not an alert category of this file")

    if category_file is not None:
        for category in category_file.categories:
            if category not in categories:
                raise readers.categories.error(f"categories.{category}", "is not a declared category in domain.json")

    if vulgarity is not None:
        target = vulgarity.demote_to_category
        if target not in categories:
            raise readers.vulgarity.error("demoteToCategory", f"'{target}' is not a declared category in domain.json")
        if target not in spec.demoted_categories:
            raise readers.vulgarity.error(
                "demoteToCategory", f"'{target}' must be one of domain.json's demotedCategories"
            )

    if prior is not None:
        file = readers.prior
        for type_key in prior.type_cues:
            if type_key not in types:
                raise file.error(f"typeCues.{type_key}", "is not a declared type in domain.json")
        if prior.default_type is not None and prior.default_type not in types:
            raise file.error("defaultType", f"'{prior.default_type}' is not a declared type in domain.json")
        maps: list[tuple[str, dict[str, str], Any, str]] = [
            ("severityByAlert", prior.severity_by_alert, alerts.categories, "an alert category of alert-keywords.json"),
            ("severityByType", prior.severity_by_type, types, "a declared type in domain.json"),
        ]
        for key, mapping, allowed, what in maps:
            for name, severity in mapping.items():
                if name not in allowed:
                    raise file.error(f"{key}.{name}", f"is not {what}")
                if severity not in severities:
                    raise file.error(f"{key}.{name}", f"'{severity}' is not a declared severity in domain.json")


def _check_issues(
    readers: _Readers, spec: files.DomainFile, alerts: files.AlertFile, file: files.IssueFile | None
) -> None:
    """The issue list is declared in domain.json; the rules file may name only what is declared."""
    issues = spec.issues
    for key, labels in issues.items():
        if not labels:
            raise readers.domain.error(f"issues.{key}", "must give at least one label (language -> label)")
    if spec.catch_all_issue is not None and spec.catch_all_issue not in issues:
        raise readers.domain.error("catchAllIssue", f"'{spec.catch_all_issue}' is not a declared issue")
    if file is None:
        return
    if not issues:
        raise readers.issues.error(None, "needs the issue list: declare domain.json's 'issues'")
    declared: list[tuple[str, dict[str, str], Any, str]] = [
        ("byAlert", file.by_alert, alerts.categories, "an alert category of alert-keywords.json"),
        ("byType", file.by_type, spec.types or DEFAULT_TYPES, "a declared type in domain.json"),
        ("byCategory", file.by_category, spec.categories, "a declared category in domain.json"),
        ("issues", {key: key for key in file.issues}, issues, "a declared issue in domain.json"),
    ]
    for key, mapping, allowed, what in declared:
        for name, issue in mapping.items():
            if name not in allowed:
                raise readers.issues.error(f"{key}.{name}", f"is not {what}")
            if issue not in issues:
                raise readers.issues.error(f"{key}.{name}", f"'{issue}' is not a declared issue in domain.json")


def _issue_rules(file: files.IssueFile | None) -> IssueRules:
    if file is None:
        return IssueRules()
    return IssueRules(
        keywords=tuple(
            CategoryKeywordRule(issue, r.terms, r.exclude_if_contains, r.weak_terms, r.not_evidence)
            for issue, r in file.issues.items()
        ),
        by_alert=dict(file.by_alert),
        by_type=dict(file.by_type),
        by_category=dict(file.by_category),
    )


def _category_rules(file: files.CategoryFile | None) -> tuple[CategoryKeywordRule, ...]:
    if file is None:
        return ()
    return tuple(
        CategoryKeywordRule(category, r.terms, r.exclude_if_contains, r.weak_terms, r.not_evidence)
        for category, r in file.categories.items()
    )


def _incident_places(file: files.CategoryFile | None) -> IncidentPlaces:
    if file is None or file.incident_places is None:
        return IncidentPlaces()
    places = file.incident_places
    return IncidentPlaces(places.incident_words, places.postpositions, places.place_stems)


def _vulgarity(file: files.VulgarityFile | None) -> VulgarityLexicon:
    if file is None:
        return VulgarityLexicon()
    return VulgarityLexicon(
        mild=file.tiers.mild,
        strong=file.tiers.strong,
        demote_to_category=file.demote_to_category,
        demote_ratio=file.demote_ratio,
        demote_min_distinct_stems=int(file.demote_min_distinct_stems),
    )


def _sentiment(file: files.SentimentFile | None) -> SentimentLexicon:
    if file is None:
        return SentimentLexicon()
    return SentimentLexicon(
        positive=file.positive,
        negative=file.negative,
        neutral=file.neutral,
        negations=file.negations,
        intensifiers=file.intensifiers,
        exceptions=file.exceptions,
        rules=dict(file.rules),
    )


def _prior(file: files.PriorFile | None) -> PriorLexicon:
    if file is None:
        return PriorLexicon()
    return PriorLexicon(
        languages=file.languages,
        type_cues=dict(file.type_cues),
        default_type=file.default_type,
        severity_by_alert=dict(file.severity_by_alert),
        severity_by_type=dict(file.severity_by_type),
        stopwords=file.stopwords,
        generic_nouns=file.generic_nouns,
        personal_data=(
            PersonalDataRules(
                file.personal_data.name_verbs, file.personal_data.name_titles, dict(file.personal_data.placeholders)
            )
            if file.personal_data
            else PersonalDataRules()
        ),
    )


def read_prompt_file(path: Path) -> str:
    """A prompt or template file as LF-normalised UTF-8 text (a BOM is dropped)."""
    return normalize_newlines(path.read_text(encoding="utf-8-sig"))


def _read_prompt(spec: _Reader, folder: Path, role: str, relative: str) -> str:
    key = f"prompts.{role}"
    candidate = Path(relative)
    if candidate.is_absolute():
        raise spec.error(key, f"must be a path relative to the domain folder, got '{relative}'")
    path = (folder / candidate).resolve()
    if not path.is_relative_to(folder.resolve()):
        raise spec.error(key, f"'{relative}' points outside the domain folder")
    if not path.is_file():
        raise spec.error(key, f"prompt file {path} does not exist")
    try:
        text = read_prompt_file(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise spec.error(key, f"prompt file {path} cannot be read ({exc})") from None
    if not text.strip():
        raise spec.error(key, f"prompt file {path} is empty")
    placeholder = PROMPT_PLACEHOLDERS.get(role)
    if placeholder and placeholder not in text:
        raise spec.error(key, f"prompt file {path} must contain the placeholder {placeholder}")
    return text


def schema_json(domain: Domain) -> dict[str, Any]:
    """The ``GET /schema`` body (docs/rules.md, "Schema body"): camelCase keys, everything in declaration order."""
    return {
        "language": domain.language,
        "categoryField": domain.category_field_label,
        "catchAllCategory": domain.catch_all_category,
        "demotedCategories": list(domain.demoted_categories),
        "categories": list(domain.categories),
        "severities": list(domain.severities),
        "types": list(domain.types),
        "sources": list(domain.sources),
        "categoryLabels": dict(domain.categories),
        "severityLabels": dict(domain.severities),
        "typeLabels": dict(domain.types),
        "sentiments": list(domain.sentiments),
        "sentimentLabels": dict(domain.sentiments),
        "typeSentiment": dict(domain.type_sentiment),
        "alertCategories": list(domain.alert_keywords),
        "digestAlertCategories": list(domain.digest_alert_categories),
        "caseRootCauses": {key: dict(labels) for key, labels in domain.case_root_causes.items()},
        "issues": list(domain.issues),
        "issueLabels": domain.issue_labels(),
        "catchAllIssue": domain.catch_all_issue,
    }
