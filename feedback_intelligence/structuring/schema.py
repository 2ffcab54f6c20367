"""The JSON schema of a structure, for constrained decoding.

Backends turn it into their own constraint: a llama.cpp grammar (embedded), Ollama's ``format``,
an OpenAI-compatible ``response_format``. The parser still validates every reply: a backend may
ignore the schema, and a schema cannot say everything (a theme's wording, for one).
"""

from __future__ import annotations

from typing import Any

from feedback_intelligence.domain.model import Domain
from feedback_intelligence.text.bounds import THEME_MAX_CHARS

# The fields the deterministic rules can decide (domain.json ``priorFields``); the theme is the model's.
RULE_FIELDS: tuple[str, ...] = ("category", "severity", "type", "sentiment", "language")


def asks_theme_only(domain: Domain) -> bool:
    """Whether the rules decide every field but the theme, so the model is asked for the theme alone."""
    decided = set(domain.prior_fields)
    return decided.issuperset(RULE_FIELDS) and "theme" not in decided


def theme_json_schema(*, theme_max_length: int = THEME_MAX_CHARS) -> dict[str, Any]:
    """The theme alone: one required string, nothing else allowed."""
    return {
        "type": "object",
        "properties": {"theme": {"type": "string", "minLength": 1, "maxLength": theme_max_length}},
        "required": ["theme"],
        "additionalProperties": False,
    }


def structure_json_schema(domain: Domain, *, theme_max_length: int = THEME_MAX_CHARS) -> dict[str, Any]:
    """Enums for the domain's keys, the five required fields, nothing else allowed."""
    return {
        "type": "object",
        "properties": {
            "category": {"type": "string", "enum": list(domain.categories)},
            "theme": {"type": "string", "minLength": 1, "maxLength": theme_max_length},
            "severity": {"type": "string", "enum": list(domain.severities)},
            "type": {"type": "string", "enum": list(domain.types)},
            "sentiment": {"type": "string", "enum": list(domain.sentiments)},
            "language": {"type": "string", "pattern": "^[a-z]{2}$"},
        },
        "required": ["category", "theme", "severity", "type", "language"],
        "additionalProperties": False,
    }
