"""The JSON schema of a structure, for constrained decoding.

Backends turn it into their own constraint: a llama.cpp grammar (embedded), Ollama's ``format``,
an OpenAI-compatible ``response_format``. The parser still validates every reply: a backend may
ignore the schema, and a schema cannot say everything (a theme's wording, for one).
"""

from __future__ import annotations

from typing import Any

from feedback_intelligence.domain.model import Domain
from feedback_intelligence.text.bounds import THEME_MAX_CHARS


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
