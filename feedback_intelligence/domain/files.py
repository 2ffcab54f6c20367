"""The shape of each JSON file of a domain folder, as pydantic models (one class per file).

The models say what a file may hold: its keys (camelCase, nothing unknown), their JSON types, and the
rules one value can check alone (non-blank, a number in range, a pattern without an empty part). What
one key says about another — a hint naming a declared category, a prior severity naming a declared
severity — is checked in one place, ``loader._check_references``. ``describe`` turns a pydantic error
into the message the loader raises, naming the file and the key.

A JSON ``null`` means "not given" (the default), except for numbers, which must be numbers.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError, field_validator, model_validator
from pydantic.alias_generators import to_camel

from feedback_intelligence.domain.model import SENTIMENT_RULES

# Keys any file may carry for its readers.
DOC_KEYS = frozenset({"description", "$schema", "comment", "notes"})


def show(value: Any) -> str:
    """A value as the message quotes it (JSON, cut at 60 characters)."""
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:60] + "…"


# --------------------------------------------------------------------------- value types


def _text(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"must be a non-blank string, got {show(value)}")
    return value.strip()


def _array(value: Any) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f"must be a JSON array, got {show(value)}")
    return value


def _object(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"must be a JSON object, got {show(value)}")
    return value


def _kept_words(value: Any) -> tuple[str, ...]:
    """Lexicon words: blank and non-string entries dropped, trimmed, duplicates removed in first order."""
    words = (item.strip() for item in _array(value) if isinstance(item, str) and item.strip())
    return tuple(dict.fromkeys(words))


def _unique(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values))


def _labels(value: Any) -> dict[str, str]:
    """key -> label; a label that is not a non-blank string falls back to its key."""
    result: dict[str, str] = {}
    for key, label in _object(value).items():
        if key != key.strip() or not key:
            raise ValueError(f"key {show(key)} must be non-blank, without surrounding whitespace")
        result[key] = label.strip() if isinstance(label, str) and label.strip() else key
    return result


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"must be a number, got {show(value)}")
    return float(value)


def _pattern(value: str) -> str:
    # a co-occurrence pattern ("a|b & c") with an empty group or alternative would match too much
    if "&" in value or "|" in value:
        groups = [[alt.strip() for alt in group.split("|")] for group in value.split("&")]
        if any(not alt for group in groups for alt in group):
            raise ValueError(f"pattern '{value}' has an empty part around '&' or '|'")
    return value


def _patterns(value: Any) -> tuple[str, ...]:
    kept = _kept_words(value)
    if not kept:
        raise ValueError("must keep at least one non-blank pattern")
    return tuple(_pattern(p) for p in kept)


Text = Annotated[str, BeforeValidator(_text)]
TextList = Annotated[tuple[Text, ...], BeforeValidator(_array)]  # every entry must be a non-blank string
Words = Annotated[tuple[str, ...], BeforeValidator(_kept_words)]  # blank entries are dropped
Labels = Annotated[dict[str, str], BeforeValidator(_labels)]
Number = Annotated[float, BeforeValidator(_number)]
Patterns = Annotated[tuple[str, ...], BeforeValidator(_patterns)]
TextMap = Annotated[dict[str, Text], BeforeValidator(_object)]  # a JSON object of non-blank strings (null = {})
WordsMap = Annotated[dict[str, Words], BeforeValidator(_object)]  # a JSON object of word lists (null = {})


# --------------------------------------------------------------------------- files


class _File(BaseModel):
    """camelCase keys, nothing unknown, immutable; documentation keys and ``_``-keys are read past."""

    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=False, frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _skip_documentation(cls, data: Any) -> Any:
        if isinstance(data, dict):
            return {k: v for k, v in data.items() if k not in DOC_KEYS and not k.startswith("_")}
        return data


class DomainFile(_File):
    """``domain.json``: identity, taxonomy, sources, prompt files, prior fields."""

    name: Annotated[str | None, BeforeValidator(lambda v: None if v is None else _text(v))] = None
    language: Annotated[str, BeforeValidator(lambda v: "en" if v is None else _text(v))] = "en"
    category_field_label: Annotated[str, BeforeValidator(lambda v: "category" if v is None else _text(v))] = "category"
    categories: Labels
    category_hints: TextMap = {}
    catch_all_category: Annotated[str | None, BeforeValidator(lambda v: None if v is None else _text(v))] = None
    demoted_categories: Annotated[TextList, BeforeValidator(_array)] = ()
    severities: Labels = {}
    types: Labels = {}
    sentiments: Labels = {}
    type_sentiment: Annotated[dict[str, Text] | None, BeforeValidator(lambda v: None if v is None else _object(v))] = (
        None
    )
    sources: TextList
    prompts: TextMap = {}
    prior_fields: TextList = ()
    # why a handled case happened: key -> {language -> label}, in the order the page lists them
    case_root_causes: Annotated[dict[str, TextMap], BeforeValidator(_object)] = {}

    @field_validator("case_root_causes")
    @classmethod
    def _labelled_causes(cls, value: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
        for key, labels in value.items():
            if key != key.strip() or not key or len(key) > 40:
                raise ValueError(f"key {show(key)} must be 1 to 40 characters without surrounding whitespace")
            if not labels:
                raise ValueError(f"{key} needs a label in at least one language")
        return value

    issues: Annotated[dict[str, Labels], BeforeValidator(_object)] = {}  # issue -> language -> label
    catch_all_issue: Annotated[str | None, BeforeValidator(lambda v: None if v is None else _text(v))] = None

    @field_validator("categories")
    @classmethod
    def _some_category(cls, value: dict[str, str]) -> dict[str, str]:
        if not value:
            raise ValueError("must declare at least one category")
        return value

    @field_validator("sources")
    @classmethod
    def _some_source(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            raise ValueError("must list at least one source")
        return _unique(value)

    @field_validator("demoted_categories", "prior_fields")
    @classmethod
    def _once_each(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return _unique(value)


class AlertFile(_File):
    """``alert-keywords.json``: patterns per alert category, and phrases masked before a category looks."""

    categories: dict[str, Patterns]
    exceptions: WordsMap = {}
    # Categories whose alerts wait for the day's digest instead of paging a person and opening a case.
    digest_categories: TextList = ()
    # Written for the lexicon's readers (how patterns match, what was left out on purpose and why).
    matching: Any = None
    deliberate_exclusions: Any = None

    @field_validator("categories")
    @classmethod
    def _some_category(cls, value: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
        if not value:
            raise ValueError("must declare at least one alert category")
        return value


class CategoryRuleEntry(_File):
    terms: Words = ()
    weak_terms: Words = ()
    not_evidence: Words = ()
    exclude_if_contains: Words = ()

    @model_validator(mode="after")
    def _some_term(self) -> CategoryRuleEntry:
        if not self.terms and not self.weak_terms:
            raise ValueError("terms: must contain at least one non-blank term")
        return self


class IncidentPlacesEntry(_File):
    incident_words: Words = ()
    postpositions: Words = ()
    place_stems: Words = ()

    @model_validator(mode="after")
    def _some_word(self) -> IncidentPlacesEntry:
        if not self.incident_words:
            raise ValueError("incidentWords: must contain at least one non-blank word")
        return self


class CategoryFile(_File):
    """``category-keywords.json``: keyword rules per category, and the incident places."""

    categories: dict[str, CategoryRuleEntry]
    incident_places: IncidentPlacesEntry | None = None


class IssueFile(_File):
    """``issue-keywords.json``: keyword rules per issue (the category rules' shape), and the alert, type
    and category maps that decide an issue where the words do not."""

    issues: dict[str, CategoryRuleEntry]
    by_alert: TextMap = {}
    by_type: TextMap = {}
    by_category: TextMap = {}


class Tiers(_File):
    mild: Words = ()
    strong: Words = ()

    @model_validator(mode="after")
    def _some_stem(self) -> Tiers:
        if not self.mild and not self.strong:
            raise ValueError("must contain at least one stem across mild and strong")
        return self


class VulgarityFile(_File):
    """``vulgarity-lexicon.json``: stems by tier and when a text is demoted for them."""

    tiers: Tiers
    demote_to_category: Text
    demote_ratio: Number = 0.4
    demote_min_distinct_stems: Number = 2.0

    @field_validator("demote_ratio")
    @classmethod
    def _a_share(cls, value: float) -> float:
        if not 0 < value <= 1:
            raise ValueError(f"must be in (0, 1], got {value}")
        return value

    @field_validator("demote_min_distinct_stems")
    @classmethod
    def _a_count(cls, value: float) -> float:
        if not value.is_integer() or value < 1:
            raise ValueError(f"must be a whole number >= 1, got {show(value)}")
        return value


def _language_code(value: str) -> str:
    if len(value) != 2 or not value.isascii() or not value.islower():
        raise ValueError(f"'{value}' is not a lowercase two-letter ISO 639-1 code")
    return value


class PersonalDataFile(_File):
    """``prior-lexicon.json``'s ``personalData``: where a name stands, and the placeholders of what is removed."""

    name_verbs: Words = ()  # a capitalised name right before one of these ("soitti", "kertoi") is a person's
    name_titles: Words = ()  # ... or right after one of these ("asiakas", "nimeltä")
    placeholders: TextMap = {}  # kind (phone, email, hetu, iban, card, name) -> what replaces it


class PriorFile(_File):
    """``prior-lexicon.json``: what the deterministic prior reads besides the other lexicons."""

    personal_data: PersonalDataFile | None = None
    languages: TextList = ()
    type_cues: WordsMap = {}
    default_type: Annotated[str | None, BeforeValidator(lambda v: None if v is None else _text(v))] = None
    severity_by_alert: TextMap = {}
    severity_by_type: TextMap = {}
    stopwords: Words = ()
    generic_nouns: Words = ()

    @field_validator("languages")
    @classmethod
    def _codes(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return _unique(tuple(_language_code(code) for code in value))


class SentimentFile(_File):
    """``sentiment-lexicon.json``: the cues of the text's sentiment reading, and which reading each
    language keeps (deterministic/sentiment.py)."""

    positive: Words = ()
    negative: Words = ()
    neutral: Words = ()
    negations: Words = ()
    intensifiers: Words = ()
    exceptions: Words = ()
    rules: TextMap = {}

    @model_validator(mode="after")
    def _both_tones(self) -> SentimentFile:
        if not self.positive or not self.negative:
            raise ValueError("positive: positive and negative must each list at least one cue")
        return self

    @field_validator("rules")
    @classmethod
    def _rules(cls, value: dict[str, str]) -> dict[str, str]:
        for code, rule in value.items():
            _language_code(code)
            if rule not in SENTIMENT_RULES:
                raise ValueError(f"{code}: '{rule}' is not a sentiment rule ({', '.join(SENTIMENT_RULES)})")
        return value


# --------------------------------------------------------------------------- errors


def _where(loc: tuple[int | str, ...]) -> str:
    """``("categories", "hevi", "terms")`` -> ``categories.hevi.terms``; list indexes as ``[i]``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


_TYPE_PROBLEMS: dict[str, Callable[[Any], str]] = {
    "missing": lambda _v: "is required",
    "model_type": lambda v: f"must be a JSON object, got {show(v)}",
    "model_attributes_type": lambda v: f"must be a JSON object, got {show(v)}",
    "dict_type": lambda v: f"must be a JSON object, got {show(v)}",
    "tuple_type": lambda v: f"must be a JSON array, got {show(v)}",
    "string_type": lambda v: f"must be a non-blank string, got {show(v)}",
}


def describe(error: ValidationError, known: Callable[[tuple[int | str, ...]], list[str]]) -> tuple[str, str]:
    """The key and the problem of the first error, in the loader's words. ``known(loc)`` lists the keys
    allowed where an unknown key was found."""
    first = error.errors(include_url=False)[0]
    loc = tuple(first["loc"])
    kind = first["type"]
    if kind == "extra_forbidden":
        return _where(loc), f"is not a field here (known: {', '.join(known(loc[:-1]))})"
    if kind == "value_error":
        problem = str(first["ctx"]["error"]) if "ctx" in first else first["msg"]
        # a check across fields of one object names its field first ("terms: must …")
        field, sep, rest = problem.partition(": ")
        if sep and field.isidentifier() and " " not in field:
            return _where((*loc, field)), rest
        return _where(loc), problem
    describe_type = _TYPE_PROBLEMS.get(kind)
    return _where(loc), describe_type(first.get("input")) if describe_type else first["msg"]


def known_keys(model: type[BaseModel], loc: tuple[int | str, ...]) -> list[str]:
    """The camelCase keys of the model found at ``loc`` under ``model`` (for "not a field" messages)."""
    current: Any = model
    for part in loc:
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            break
        field = next((f for f in current.model_fields.values() if f.alias == part), None)
        if field is None:  # a mapping's key: the entry model is the mapping's value type
            break
        current = _entry_model(field.annotation)
    if isinstance(current, type) and issubclass(current, BaseModel):
        return sorted(f.alias or name for name, f in current.model_fields.items())
    return []


def _entry_model(annotation: Any) -> Any:
    """The model a field holds: itself, the value of a ``dict[str, Model]``, or the ``Model`` of ``Model | None``."""
    for arg in (annotation, *getattr(annotation, "__args__", ())):
        if isinstance(arg, type) and issubclass(arg, BaseModel):
            return arg
    return annotation
