"""Load a domain module (a folder of JSON + prompt files) into a :class:`Domain`, validating everything.

A domain is data only. Adding one is adding a folder::

    <name>/domain.json               taxonomy, sources, prompt map              (required)
    <name>/alert-keywords.json       deterministic alert lexicon                (required)
    <name>/category-keywords.json    category keyword rules                     (optional)
    <name>/vulgarity-lexicon.json    vulgarity density lexicon                  (optional)
    <name>/prior-lexicon.json        cues of the deterministic prior            (optional)
    <name>/sentiment-lexicon.json    cues of the text's sentiment reading       (optional)
    <name>/prompts/*                 files named by domain.json's "prompts" map

Every problem raises :class:`DomainError` with a message naming the file and the offending key,
so a bad domain stops the boot with a message an operator can act on.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from feedback_intelligence.domain.model import (
    ALERT_NOMINATION_ROLE,
    ALERT_VERIFY_ROLE,
    ALERT_VERIFY_WORDS,
    OPTIONAL_FIELDS,
    PROMPT_PLACEHOLDERS,
    SCHEMA_FIELDS,
    SENTIMENT_RULES,
    SYNTHESIS_ROLE,
    CategoryKeywordRule,
    Domain,
    IncidentPlaces,
    PriorLexicon,
    SentimentLexicon,
    VulgarityLexicon,
    normalize_newlines,
)

DOMAINS_ROOT = Path(__file__).resolve().parent.parent / "domains"

DOMAIN_FILE = "domain.json"
ALERT_FILE = "alert-keywords.json"
CATEGORY_KEYWORD_FILE = "category-keywords.json"
VULGARITY_FILE = "vulgarity-lexicon.json"
PRIOR_FILE = "prior-lexicon.json"
SENTIMENT_FILE = "sentiment-lexicon.json"

DESK_SOURCE = "desk"

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

# Placeholders each API prompt role must contain (the report fills them).

_DOMAIN_KEYS = frozenset(
    {
        "name",
        "language",
        "categoryFieldLabel",
        "categories",
        "categoryHints",
        "catchAllCategory",
        "demotedCategories",
        "severities",
        "types",
        "sentiments",
        "typeSentiment",
        "sources",
        "prompts",
        "priorFields",
    }
)
_DOC_KEYS = frozenset({"description", "$schema", "comment", "notes"})


class DomainError(Exception):
    """A domain module that cannot be used; the message names the file and the key."""


# --------------------------------------------------------------------------- helpers


class _File:
    """One JSON file of a domain and the error vocabulary for it."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def error(self, key: str | None, problem: str) -> DomainError:
        where = f"{self.path}: '{key}'" if key else str(self.path)
        return DomainError(f"{where}: {problem}")

    def load(self) -> dict[str, Any]:
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

    # typed accessors -------------------------------------------------------

    def text(self, value: Any, key: str) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.error(key, f"must be a non-blank string, got {_show(value)}")
        return value.strip()

    def optional_text(self, data: dict[str, Any], key: str, default: str) -> str:
        value = data.get(key)
        return default if value is None else self.text(value, key)

    def obj(self, value: Any, key: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.error(key, f"must be a JSON object, got {_show(value)}")
        return value

    def array(self, value: Any, key: str) -> list[Any]:
        if not isinstance(value, list):
            raise self.error(key, f"must be a JSON array, got {_show(value)}")
        return value

    def string_list(self, value: Any, key: str, *, drop_blank: bool = False) -> list[str]:
        """A list of strings, trimmed, duplicates removed (case-sensitive) in first order."""
        items: list[str] = []
        for index, item in enumerate(self.array(value, key)):
            if drop_blank and (not isinstance(item, str) or not item.strip()):
                continue
            items.append(self.text(item, f"{key}[{index}]"))
        return list(dict.fromkeys(items))

    def labels(self, value: Any, key: str) -> dict[str, str]:
        """key -> label; a non-string label falls back to the key itself."""
        result: dict[str, str] = {}
        for k, label in self.obj(value, key).items():
            name = self.text(k, f"{key}.{k}")
            if name != k:
                raise self.error(f"{key}.{k}", "keys must not have surrounding whitespace")
            result[name] = label.strip() if isinstance(label, str) and label.strip() else name
        return result


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:60] + "…"


def _given(data: dict[str, Any], key: str, default: Any) -> Any:
    """The value of an optional field; ``default`` only when the key is absent or null."""
    value = data.get(key)
    return default if value is None else value


def _number(file: _File, data: dict[str, Any], key: str, default: float) -> float:
    if key not in data:
        return float(default)
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise file.error(key, f"must be a number, got {_show(value)}")
    return float(value)


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
    spec = _File(folder / DOMAIN_FILE)
    data = spec.load()
    _check_known_keys(spec, data)
    domain_name = spec.optional_text(data, "name", folder.name)
    language = spec.optional_text(data, "language", "en")
    category_label = spec.optional_text(data, "categoryFieldLabel", "category")
    taxonomy = _load_taxonomy(spec, data)
    sources = _load_sources(spec, data)
    prompts = _load_prompts(spec, folder, data, language=language, alert_nomination=alert_nomination)
    prior_fields = _load_prior_fields(spec, data)
    alert_keywords, alert_exceptions = _load_alert_keywords(folder)
    category_keywords, incident_places = _load_category_file(folder, taxonomy.categories)
    vulgarity = _load_vulgarity(folder, taxonomy.categories, list(taxonomy.demoted))
    prior = _load_prior(folder, taxonomy.types, taxonomy.severities, alert_keywords)
    sentiment_lexicon = _load_sentiment(folder)
    return Domain(
        name=domain_name,
        language=language,
        category_field_label=category_label,
        categories=taxonomy.categories,
        category_hints=taxonomy.hints,
        catch_all_category=taxonomy.catch_all,
        demoted_categories=taxonomy.demoted,
        severities=taxonomy.severities,
        types=taxonomy.types,
        sentiments=taxonomy.sentiments,
        type_sentiment=taxonomy.type_sentiment,
        sources=sources,
        alert_keywords=alert_keywords,
        category_keywords=category_keywords,
        incident_places=incident_places,
        alert_exceptions=alert_exceptions,
        prior=prior,
        prior_fields=prior_fields,
        vulgarity=vulgarity,
        sentiment_lexicon=sentiment_lexicon,
        prompts=prompts,
        directory=folder,
    )


def _check_known_keys(spec: _File, data: dict[str, Any]) -> None:
    for key in data:
        if key not in _DOMAIN_KEYS and key not in _DOC_KEYS and not key.startswith("_"):
            raise spec.error(key, f"is not a domain.json field (known: {', '.join(sorted(_DOMAIN_KEYS))})")


@dataclass(frozen=True, slots=True)
class _Taxonomy:
    categories: dict[str, str]
    hints: dict[str, str]
    catch_all: str | None
    demoted: tuple[str, ...]
    severities: dict[str, str]
    types: dict[str, str]
    sentiments: dict[str, str]
    type_sentiment: dict[str, str]


def _load_taxonomy(spec: _File, data: dict[str, Any]) -> _Taxonomy:
    """The value sets of ``domain.json``: categories with their hints, catch-all and demoted ones, the enums."""
    categories = _load_categories(spec, data)
    hints: dict[str, str] = {}
    for key, hint in spec.obj(_given(data, "categoryHints", {}), "categoryHints").items():
        if key not in categories:
            raise spec.error(f"categoryHints.{key}", "is not a declared category")
        hints[key] = spec.text(hint, f"categoryHints.{key}")

    catch_all = data.get("catchAllCategory")
    if catch_all is not None:
        catch_all = spec.text(catch_all, "catchAllCategory")
        if catch_all not in categories:
            raise spec.error("catchAllCategory", f"'{catch_all}' is not a declared category")

    demoted = spec.string_list(_given(data, "demotedCategories", []), "demotedCategories")
    for key in demoted:
        if key not in categories:
            raise spec.error("demotedCategories", f"'{key}' is not a declared category")

    severities = spec.labels(_given(data, "severities", {}), "severities") or dict(DEFAULT_SEVERITIES)
    types = spec.labels(_given(data, "types", {}), "types") or dict(DEFAULT_TYPES)
    sentiments = spec.labels(_given(data, "sentiments", {}), "sentiments") or dict(DEFAULT_SENTIMENTS)
    return _Taxonomy(
        categories=categories,
        hints=hints,
        catch_all=catch_all,
        demoted=tuple(demoted),
        severities=severities,
        types=types,
        sentiments=sentiments,
        type_sentiment=_load_type_sentiment(spec, data, types, sentiments),
    )


def _load_categories(spec: _File, data: dict[str, Any]) -> dict[str, str]:
    if "categories" not in data:
        raise spec.error("categories", "is required")
    categories = spec.labels(data["categories"], "categories")
    if not categories:
        raise spec.error("categories", "must declare at least one category")
    return categories


def _load_type_sentiment(
    spec: _File, data: dict[str, Any], types: dict[str, str], sentiments: dict[str, str]
) -> dict[str, str]:
    """``typeSentiment`` as declared, else the core defaults restricted to the declared types and sentiments."""
    raw_map = data.get("typeSentiment")
    if raw_map is None:
        return {t: s for t, s in DEFAULT_TYPE_SENTIMENT.items() if t in types and s in sentiments}
    type_sentiment: dict[str, str] = {}
    for type_key, value in spec.obj(raw_map, "typeSentiment").items():
        if type_key not in types:
            raise spec.error(f"typeSentiment.{type_key}", "is not a declared type")
        sentiment = spec.text(value, f"typeSentiment.{type_key}")
        if sentiment not in sentiments:
            raise spec.error(f"typeSentiment.{type_key}", f"'{sentiment}' is not a declared sentiment")
        type_sentiment[type_key] = sentiment
    return type_sentiment


def _load_sources(spec: _File, data: dict[str, Any]) -> tuple[str, ...]:
    if "sources" not in data:
        raise spec.error("sources", "is required")
    sources = spec.string_list(data["sources"], "sources")
    if not sources:
        raise spec.error("sources", "must list at least one source")
    if DESK_SOURCE not in sources:
        raise spec.error("sources", f"must contain '{DESK_SOURCE}' (the clerk desk posts with that source)")
    return tuple(sources)


def _load_prompts(
    spec: _File, folder: Path, data: dict[str, Any], *, language: str, alert_nomination: bool
) -> dict[str, str]:
    """The prompt files ``domain.json`` names, by role; the roles the API needs must be there."""
    prompt_files = {
        role: spec.text(path, f"prompts.{role}")
        for role, path in spec.obj(_given(data, "prompts", {}), "prompts").items()
    }
    required = [SYNTHESIS_ROLE] + ([ALERT_NOMINATION_ROLE, ALERT_VERIFY_ROLE] if alert_nomination else [])
    for role in required:
        if role not in prompt_files:
            raise spec.error(f"prompts.{role}", "is required (declare the prompt file for this role)")
    if alert_nomination and language not in ALERT_VERIFY_WORDS:
        raise spec.error(
            "language", f"must be one of {sorted(ALERT_VERIFY_WORDS)} while the alert screen is on, got '{language}'"
        )
    return {role: _read_prompt(spec, folder, role, rel) for role, rel in prompt_files.items()}


def _load_prior_fields(spec: _File, data: dict[str, Any]) -> tuple[str, ...]:
    prior_fields = spec.string_list(_given(data, "priorFields", []), "priorFields")
    for name in prior_fields:
        if name not in (*SCHEMA_FIELDS, *OPTIONAL_FIELDS):
            fields = ", ".join((*SCHEMA_FIELDS, *OPTIONAL_FIELDS))
            raise spec.error("priorFields", f"'{name}' is not a structure field ({fields})")
    return tuple(prior_fields)


def read_prompt_file(path: Path) -> str:
    """A prompt or template file as LF-normalised UTF-8 text (a BOM is dropped)."""
    return normalize_newlines(path.read_text(encoding="utf-8-sig"))


def _read_prompt(spec: _File, folder: Path, role: str, relative: str) -> str:
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


def _load_alert_keywords(folder: Path) -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """The patterns per alert category, and the phrases masked before a category's patterns are searched."""
    file = _File(folder / ALERT_FILE)
    data = file.load()
    if "categories" not in data:
        raise file.error("categories", "is required")
    result: dict[str, tuple[str, ...]] = {}
    for category, patterns in file.obj(data["categories"], "categories").items():
        key = f"categories.{category}"
        name = file.text(category, key)
        kept = file.string_list(patterns, key, drop_blank=True)
        if not kept:
            raise file.error(key, "must keep at least one non-blank pattern")
        for pattern in kept:
            # a co-occurrence pattern ("a|b & c") with an empty group or alternative would match too much
            if "&" in pattern or "|" in pattern:
                groups = [[alt.strip() for alt in group.split("|")] for group in pattern.split("&")]
                if any(not alt for group in groups for alt in group):
                    raise file.error(key, f"pattern '{pattern}' has an empty part around '&' or '|'")
        result[name] = tuple(kept)
    if not result:
        raise file.error("categories", "must declare at least one alert category")
    exceptions: dict[str, tuple[str, ...]] = {}
    for category, phrases in file.obj(_given(data, "exceptions", {}), "exceptions").items():
        key = f"exceptions.{category}"
        if category not in result:
            raise file.error(key, "is not an alert category of this file")
        exceptions[category] = tuple(file.string_list(phrases, key, drop_blank=True))
    return result, exceptions


def _load_category_file(
    folder: Path, categories: dict[str, str]
) -> tuple[tuple[CategoryKeywordRule, ...], IncidentPlaces]:
    """``category-keywords.json`` (optional), read once: its keyword rules and its incident places."""
    path = folder / CATEGORY_KEYWORD_FILE
    if not path.exists():
        return (), IncidentPlaces()
    file = _File(path)
    data = file.load()
    return _load_category_keywords(file, data, categories), _load_incident_places(file, data)


def _load_category_keywords(
    file: _File, data: dict[str, Any], categories: dict[str, str]
) -> tuple[CategoryKeywordRule, ...]:
    if "categories" not in data:
        raise file.error("categories", "is required")
    for top in data:
        if top not in ("categories", "incidentPlaces", "description"):
            raise file.error(top, "is not a key of this file (categories, incidentPlaces, description)")
    rules: list[CategoryKeywordRule] = []
    for category, rule in file.obj(data["categories"], "categories").items():
        key = f"categories.{category}"
        if category not in categories:
            raise file.error(key, "is not a declared category in domain.json")
        body = file.obj(rule, key)
        for field_name in body:
            if field_name not in ("terms", "weakTerms", "notEvidence", "excludeIfContains", "description"):
                raise file.error(
                    f"{key}.{field_name}", "is not a rule field (terms, weakTerms, notEvidence, excludeIfContains)"
                )
        terms = file.string_list(_given(body, "terms", []), f"{key}.terms", drop_blank=True)
        weak = file.string_list(_given(body, "weakTerms", []), f"{key}.weakTerms", drop_blank=True)
        if not terms and not weak:
            raise file.error(f"{key}.terms", "must contain at least one non-blank term")
        exclusions = file.string_list(
            _given(body, "excludeIfContains", []), f"{key}.excludeIfContains", drop_blank=True
        )
        not_evidence = file.string_list(_given(body, "notEvidence", []), f"{key}.notEvidence", drop_blank=True)
        rules.append(CategoryKeywordRule(category, tuple(terms), tuple(exclusions), tuple(weak), tuple(not_evidence)))
    return tuple(rules)


def _load_incident_places(file: _File, data: dict[str, Any]) -> IncidentPlaces:
    """``incidentPlaces`` (optional): place phrases that are not evidence in an incident."""
    if "incidentPlaces" not in data:
        return IncidentPlaces()
    body = file.obj(data["incidentPlaces"], "incidentPlaces")
    known = ("incidentWords", "postpositions", "placeStems", "description")
    for key in body:
        if key not in known:
            raise file.error(f"incidentPlaces.{key}", "is not a field (incidentWords, postpositions, placeStems)")
    words = file.string_list(_given(body, "incidentWords", []), "incidentPlaces.incidentWords", drop_blank=True)
    if not words:
        raise file.error("incidentPlaces.incidentWords", "must contain at least one non-blank word")
    postpositions = file.string_list(_given(body, "postpositions", []), "incidentPlaces.postpositions", drop_blank=True)
    stems = file.string_list(_given(body, "placeStems", []), "incidentPlaces.placeStems", drop_blank=True)
    return IncidentPlaces(tuple(words), tuple(postpositions), tuple(stems))


def _load_vulgarity(folder: Path, categories: dict[str, str], demoted: list[str]) -> VulgarityLexicon:
    path = folder / VULGARITY_FILE
    if not path.exists():
        return VulgarityLexicon()
    file = _File(path)
    data = file.load()

    tiers = file.obj(data.get("tiers"), "tiers")
    for tier in tiers:
        if tier not in ("mild", "strong"):
            raise file.error(f"tiers.{tier}", "is not a tier (mild, strong)")
    mild = file.string_list(_given(tiers, "mild", []), "tiers.mild", drop_blank=True)
    strong = file.string_list(_given(tiers, "strong", []), "tiers.strong", drop_blank=True)
    if not mild and not strong:
        raise file.error("tiers", "must contain at least one stem across mild and strong")

    target = file.text(data.get("demoteToCategory"), "demoteToCategory")
    if target not in categories:
        raise file.error("demoteToCategory", f"'{target}' is not a declared category in domain.json")
    if target not in demoted:
        raise file.error("demoteToCategory", f"'{target}' must be one of domain.json's demotedCategories")

    ratio = _number(file, data, "demoteRatio", 0.4)
    if not 0 < ratio <= 1:
        raise file.error("demoteRatio", f"must be in (0, 1], got {ratio}")
    key_min = "demoteMinDistinctStems"
    min_distinct = _number(file, data, key_min, 2.0)
    if not min_distinct.is_integer() or min_distinct < 1:
        raise file.error("demoteMinDistinctStems", f"must be a whole number >= 1, got {_show(data.get(key_min))}")

    return VulgarityLexicon(
        mild=tuple(mild),
        strong=tuple(strong),
        demote_to_category=target,
        demote_ratio=ratio,
        demote_min_distinct_stems=int(min_distinct),
    )


def _load_sentiment(folder: Path) -> SentimentLexicon:
    path = folder / SENTIMENT_FILE
    if not path.exists():
        return SentimentLexicon()
    file = _File(path)
    data = file.load()
    lists = ("positive", "negative", "neutral", "negations", "intensifiers", "exceptions")
    known = {*lists, "rules"}
    for key in data:
        if key not in known and key not in _DOC_KEYS and not key.startswith("_"):
            raise file.error(key, f"is not a sentiment-lexicon field (known: {', '.join(sorted(known))})")
    values = {key: tuple(file.string_list(_given(data, key, []), key, drop_blank=True)) for key in lists}
    if not values["positive"] or not values["negative"]:
        raise file.error("positive", "positive and negative must each list at least one cue")
    rules: dict[str, str] = {}
    for code, rule in file.obj(_given(data, "rules", {}), "rules").items():
        if len(code) != 2 or not code.isascii() or not code.islower():
            raise file.error(f"rules.{code}", "is not a lowercase two-letter ISO 639-1 code")
        rule = file.text(rule, f"rules.{code}")
        if rule not in SENTIMENT_RULES:
            raise file.error(f"rules.{code}", f"'{rule}' is not a sentiment rule ({', '.join(SENTIMENT_RULES)})")
        rules[code] = rule
    return SentimentLexicon(rules=rules, **values)


def _load_prior(
    folder: Path, types: dict[str, str], severities: dict[str, str], alerts: dict[str, tuple[str, ...]]
) -> PriorLexicon:
    path = folder / PRIOR_FILE
    if not path.exists():
        return PriorLexicon()
    file = _File(path)
    data = file.load()
    known = {"languages", "typeCues", "defaultType", "severityByAlert", "severityByType", "stopwords", "genericNouns"}
    for key in data:
        if key not in known and key not in _DOC_KEYS and not key.startswith("_"):
            raise file.error(key, f"is not a prior-lexicon field (known: {', '.join(sorted(known))})")

    languages = file.string_list(_given(data, "languages", []), "languages")
    for code in languages:
        if len(code) != 2 or not code.isascii() or not code.islower():
            raise file.error("languages", f"'{code}' is not a lowercase two-letter ISO 639-1 code")

    cues: dict[str, tuple[str, ...]] = {}
    for type_key, terms in file.obj(_given(data, "typeCues", {}), "typeCues").items():
        if type_key not in types:
            raise file.error(f"typeCues.{type_key}", "is not a declared type in domain.json")
        cues[type_key] = tuple(file.string_list(terms, f"typeCues.{type_key}", drop_blank=True))

    default_type = data.get("defaultType")
    if default_type is not None:
        default_type = file.text(default_type, "defaultType")
        if default_type not in types:
            raise file.error("defaultType", f"'{default_type}' is not a declared type in domain.json")

    def severity_map(key: str, allowed: dict[str, tuple[str, ...]] | dict[str, str], what: str) -> dict[str, str]:
        result: dict[str, str] = {}
        for name, severity in file.obj(_given(data, key, {}), key).items():
            if name not in allowed:
                raise file.error(f"{key}.{name}", f"is not {what}")
            severity = file.text(severity, f"{key}.{name}")
            if severity not in severities:
                raise file.error(f"{key}.{name}", f"'{severity}' is not a declared severity in domain.json")
            result[name] = severity
        return result

    return PriorLexicon(
        languages=tuple(languages),
        type_cues=cues,
        default_type=default_type,
        severity_by_alert=severity_map("severityByAlert", alerts, "an alert category of alert-keywords.json"),
        severity_by_type=severity_map("severityByType", types, "a declared type in domain.json"),
        stopwords=tuple(file.string_list(_given(data, "stopwords", []), "stopwords", drop_blank=True)),
        generic_nouns=tuple(file.string_list(_given(data, "genericNouns", []), "genericNouns", drop_blank=True)),
    )


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
    }
