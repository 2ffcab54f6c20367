"""Input rules shared by the routes; every message names the rule it enforces (docs/rules.md, "Input rules")."""

from __future__ import annotations

import re

from feedback_intelligence.api.problems import Problem
from feedback_intelligence.config.stores import StoreDirectory
from feedback_intelligence.domain.model import OPTIONAL_FIELDS, SCHEMA_FIELDS, Domain
from feedback_intelligence.instants.timestamps import normalize_timestamp, on_edge_day
from feedback_intelligence.records import Correction, Structure
from feedback_intelligence.text.normalize import is_blank

ID_PATTERN = re.compile(r"[A-Za-z0-9._-]+")  # always fullmatch: "$" would let a trailing newline through
# A clerk may correct every field the desk shows, the optional sentiment included.
CORRECTABLE_FIELDS: tuple[str, ...] = (*SCHEMA_FIELDS, *OPTIONAL_FIELDS)


def text_errors(text: str | None, max_chars: int) -> list[str]:
    if text is None or is_blank(text):  # only zero-width or format characters is empty too
        return [Problem("text must be non-empty.", "text_empty")]
    # The cap counts the text as sent (what the schema's maxLength counts), not what normalisation left.
    length = max(len(text), getattr(text, "sent_length", 0))
    if length > max_chars:
        return [
            Problem(
                f"text exceeds the {max_chars}-character cap ({length}).",
                "text_too_long",
                limit=max_chars,
                length=length,
            )
        ]
    return []


def source_errors(source: str, domain: Domain) -> list[str]:
    if source in domain.sources:
        return []
    return [
        Problem(f"source must be one of [{', '.join(domain.sources)}], got '{source}'.", "source_unknown", value=source)
    ]


def timestamp_errors(timestamp: str | None) -> list[str]:
    if timestamp is None:
        return []
    if on_edge_day(timestamp):
        return [
            Problem(
                f"timestamp must lie between 0001-01-02 and 9999-12-30, got '{timestamp}'.",
                "timestamp_invalid",
                field="timestamp",
            )
        ]
    try:
        normalize_timestamp(timestamp)
    except ValueError:
        return [
            Problem(
                f"timestamp must be a parseable ISO-8601 instant, got '{timestamp}'.",
                "timestamp_invalid",
                field="timestamp",
            )
        ]
    return []


def id_errors(feedback_id: str | None, max_length: int) -> list[str]:
    if feedback_id is None:
        return []
    if len(feedback_id) > max_length or not ID_PATTERN.fullmatch(feedback_id):
        return [Problem(f"id must match [A-Za-z0-9._-], max {max_length} chars.", "id_invalid", limit=max_length)]
    return []


def structure_errors(structure: Structure, domain: Domain) -> list[str]:
    errors: list[str] = []
    for name, allowed in (("category", domain.categories), ("severity", domain.severities), ("type", domain.types)):
        value = getattr(structure, name)
        if value not in allowed:
            errors.append(
                Problem(
                    f"{name} '{value}' is not a domain taxonomy value",
                    "value_not_in_taxonomy",
                    field=name,
                    value=str(value),
                )
            )
    if is_blank(structure.theme):
        errors.append(Problem("theme must be a non-empty string", "field_empty", field="theme"))
    if is_blank(structure.language):
        errors.append(Problem("language must be a non-empty string", "field_empty", field="language"))
    if structure.sentiment is not None and structure.sentiment not in domain.sentiments:
        errors.append(
            Problem(
                f"sentiment '{structure.sentiment}' is not a domain taxonomy value",
                "value_not_in_taxonomy",
                field="sentiment",
                value=structure.sentiment,
            )
        )
    return errors


def correction_errors(corrections: tuple[Correction, ...] | None, has_structure: bool, model_failed: bool) -> list[str]:
    if corrections is None:
        return []
    errors: list[str] = []
    if not has_structure:
        errors.append(Problem("corrections require an acceptedStructure.", "corrections_need_structure"))
    if model_failed:
        errors.append(
            Problem("corrections cannot be combined with modelInterpretationFailed.", "corrections_with_model_failed")
        )
    for correction in corrections:
        if correction.field not in CORRECTABLE_FIELDS:
            errors.append(
                Problem(
                    f"correction field '{correction.field}' is not a schema field ({', '.join(CORRECTABLE_FIELDS)}).",
                    "correction_field_unknown",
                    field=correction.field,
                )
            )
    return errors


def later_errors(structure_later: bool, has_structure: bool) -> list[str]:
    if structure_later and has_structure:
        return [
            Problem(
                "structureLater cannot be combined with acceptedStructure (the clerk's structure needs no model).",
                "later_with_structure",
            )
        ]
    return []


def store_errors(store: str | None, stores: StoreDirectory, field: str = "store") -> list[str]:
    """An item's ``store`` (and the ``store`` query of lists and reports): a store this deployment knows."""
    if store is None or stores.accepts(store):
        return []
    return [
        Problem(
            f"{field} must be {stores.rule()}, got '{store[:64]}'.",
            "store_unknown",
            field=field,
            value=store[:64],
        )
    ]
