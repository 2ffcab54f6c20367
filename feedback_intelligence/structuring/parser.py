"""Validate a model's reply against the domain: a structure, or the violations that prevent one.

Violations make a reply unusable (they are what a re-prompt names); notes record what was
tolerated or repaired on the way (they are stored with the feedback as salvage notes). Property
names are case-sensitive. The rules and the wording of the messages follow the reference system.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from feedback_intelligence.domain.model import Domain
from feedback_intelligence.records import Structure
from feedback_intelligence.structuring.extract import extract_json_object
from feedback_intelligence.text import bounds
from feedback_intelligence.text.normalize import TextRuleError, is_blank, printable, single_line

ENUM_FIELDS: tuple[str, ...] = ("category", "severity", "type")
TEXT_FIELDS: tuple[str, ...] = ("theme", "language")
KNOWN_FIELDS: frozenset[str] = frozenset((*ENUM_FIELDS, *TEXT_FIELDS, "sentiment"))
_SHOW_MAX = 60
NO_OBJECT = "the reply contains no JSON object"
# Model text is bounded like client text (feedback_intelligence.text.bounds) before it is stored.
TEXT_MAX_CHARS: dict[str, int] = {"theme": bounds.THEME_MAX_CHARS, "language": bounds.LANGUAGE_MAX_CHARS}


@dataclass(slots=True)
class ParseResult:
    structure: Structure | None
    violations: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    strict: bool = False
    salvaged: bool = False
    normalized: bool = False

    @property
    def valid(self) -> bool:
        return self.structure is not None


def json_kind(value: Any) -> str:
    """The JSON value kind, named as the reference names it (``String``, ``Number``, ``Array``, ...)."""
    if value is None:
        return "Null"
    if value is True:
        return "True"
    if value is False:
        return "False"
    if isinstance(value, str):
        return "String"
    if isinstance(value, int | float):
        return "Number"
    if isinstance(value, list):
        return "Array"
    return "Object"


def _clip(text: str) -> str:
    """Model text quoted in a note or a violation: printable (it is stored and shown), and short."""
    text = printable(text)
    return text if len(text) <= _SHOW_MAX else text[:_SHOW_MAX] + "…"


def _raw(value: Any) -> str:
    """A JSON value as text, clipped, for a message."""
    return _clip(json.dumps(value, ensure_ascii=False))


class _Checker:
    def __init__(self, obj: dict[str, Any]) -> None:
        self.obj = obj
        self.violations: list[str] = []
        self.notes: list[str] = []
        self.normalized = False

    def _normalize(self, name: str, original: str, clean: str) -> str:
        if clean != original:
            self.notes.append(f"'{name}' normalized from '{_clip(original)}' to '{_clip(clean)}'")
            self.normalized = True
        return clean

    def enum(self, name: str, allowed: Iterable[str], *, array_salvage: bool = False) -> str | None:
        if name not in self.obj:
            self.violations.append(f"missing field '{name}'")
            return None
        value = self.obj[name]
        if array_salvage and isinstance(value, list) and value and isinstance(value[0], str):
            self.notes.append(f"'{name}' was an array {_raw(value)}; kept first element, discarded the rest")
            self.normalized = True
            value = value[0]
        if not isinstance(value, str):
            self.violations.append(f"'{name}' must be a string, got {json_kind(value)}: {_raw(value)}")
            return None
        clean = self._normalize(name, value, value.strip().lower())
        if clean not in set(allowed):
            self.violations.append(f"'{name}' value '{_clip(value)}' is not in the allowed set")
            return None
        return clean

    def text(self, name: str, *, lower: bool) -> str | None:
        if name not in self.obj:
            self.violations.append(f"missing field '{name}'")
            return None
        value = self.obj[name]
        if not isinstance(value, str) or is_blank(value):
            self.violations.append(f"'{name}' must be a non-empty string, got {json_kind(value)}: {_raw(value)}")
            return None
        try:
            clean = single_line(value)  # the one normalisation step: controls, bidi, zero-width, NFC
        except TextRuleError as exc:
            self.violations.append(f"'{name}' {exc}")
            return None
        if len(clean) > TEXT_MAX_CHARS[name]:
            self.violations.append(f"'{name}' is longer than {TEXT_MAX_CHARS[name]} characters: {_clip(value)}")
            return None
        if name == "language" and not re.fullmatch(bounds.LANGUAGE_PATTERN, clean):
            # the same shape a desk save must have, so an accepted interpretation can always be saved
            self.violations.append(f"'language' must be a language tag such as 'fi', got '{_clip(value)}'")
            return None
        return self._normalize(name, value, clean.lower() if lower else clean)

    def optional_enum(self, name: str, allowed: Iterable[str]) -> str | None:
        """Never a violation: anything unusable is dropped with a note (an explicit null silently)."""
        value = self.obj.get(name)
        if value is None:
            return None
        if not isinstance(value, str):
            self.notes.append(f"optional '{name}' was {json_kind(value)}, ignored")
            return None
        if not value.strip():
            return None
        clean = self._normalize(name, value, value.strip().lower())
        if clean not in set(allowed):
            self.notes.append(f"optional '{name}' value '{_clip(value)}' is not in the allowed set, ignored")
            return None
        return clean


def validate_structure(obj: dict[str, Any], domain: Domain) -> ParseResult:
    """Check one JSON object's fields against the domain (no extraction: see :func:`parse_structure`)."""
    check = _Checker(obj)
    category = check.enum("category", domain.categories, array_salvage=True)
    severity = check.enum("severity", domain.severities)
    type_ = check.enum("type", domain.types)
    theme = check.text("theme", lower=False)
    language = check.text("language", lower=True)
    sentiment = check.optional_enum("sentiment", domain.sentiments)
    check.notes.extend(f"ignored extra field '{_clip(name)}'" for name in obj if name not in KNOWN_FIELDS)
    structure = None
    if not check.violations:
        assert category and severity and type_ and theme and language
        structure = Structure(category, theme, severity, type_, language, sentiment)
    return ParseResult(structure, check.violations, check.notes, normalized=check.normalized)


def parse_structure(raw: str, domain: Domain) -> ParseResult:
    """Extract the JSON object from a model's reply and validate it against the domain."""
    extraction = extract_json_object(raw)
    if extraction.obj is None:
        return ParseResult(None, [NO_OBJECT])
    result = validate_structure(extraction.obj, domain)
    result.strict = extraction.strict
    result.salvaged = extraction.salvaged
    return result


def parse_theme(raw: str, decided: Structure) -> ParseResult:
    """A theme-only reply (``{"theme": …}``) on top of ``decided``, the structure the rules decided (the
    prior's): the theme is the only value taken from the model. Other known fields a backend adds anyway
    are ignored silently (the rules decide them); unknown ones are noted."""
    extraction = extract_json_object(raw)
    if extraction.obj is None:
        return ParseResult(None, [NO_OBJECT])
    check = _Checker(extraction.obj)
    theme = check.text("theme", lower=False)
    check.notes.extend(f"ignored extra field '{_clip(name)}'" for name in extraction.obj if name not in KNOWN_FIELDS)
    structure = replace(decided, theme=theme) if theme and not check.violations else None
    result = ParseResult(structure, check.violations, check.notes, normalized=check.normalized)
    result.strict = extraction.strict
    result.salvaged = extraction.salvaged
    return result
