"""Every line of an import checked against the service's own schema (``GET /schema``'s body) before any is
stored: sources, the taxonomy of an ``acceptedStructure``, text bounds. A file with a bad line is refused
whole, each bad line named, so an import is never left half done by a fault in the file (``feedctl load``
and the page's upload alike)."""

from __future__ import annotations

from typing import Any

from feedback_intelligence.imports.rows import Line
from feedback_intelligence.instants.timestamps import normalize_timestamp
from feedback_intelligence.text.normalize import is_blank

STRUCTURE_ENUMS = (("category", "categories"), ("severity", "severities"), ("type", "types"))


def text_limit(schema: dict[str, Any]) -> int | None:
    """The longest text the service stores (``textStoreMaxChars``; older services: ``textMaxChars``)."""
    for key in ("textStoreMaxChars", "textMaxChars"):
        value = schema.get(key)
        if isinstance(value, int) and value > 0:
            return value
    return None


def line_problems(line: Line, schema: dict[str, Any]) -> list[str]:
    """What the service would refuse in this line, in its terms; empty when the line is fine."""
    item = line.item
    problems: list[str] = []
    sources = schema.get("sources") or []
    if sources and item["source"] not in sources:
        problems.append(f"source '{item['source']}' is not one of {', '.join(sources)}")
    text = item["text"]
    limit = text_limit(schema)
    if is_blank(text):
        problems.append("text is empty")
    elif limit is not None and len(text) > limit:
        problems.append(f"text has {len(text)} characters, more than the service stores ({limit})")
    if "id" in item and (not isinstance(item["id"], str) or is_blank(item["id"])):
        problems.append("id must be a non-empty string")
    timestamp = item.get("timestamp")
    if timestamp is not None and not _is_instant(timestamp):
        problems.append(f"timestamp {timestamp!r} is not an ISO-8601 instant nor d.m.yyyy hh.mm(.ss)")
    problems += _structure_problems(item.get("acceptedStructure"), schema)
    return problems


def _is_instant(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        normalize_timestamp(value)
    except ValueError:
        return False
    return True


def _structure_problems(structure: Any, schema: dict[str, Any]) -> list[str]:
    if structure is None:
        return []
    if not isinstance(structure, dict):
        return ["acceptedStructure must be an object"]
    problems = []
    for field, key in STRUCTURE_ENUMS:
        allowed = schema.get(key) or []
        if structure.get(field) not in allowed:
            problems.append(f"acceptedStructure.{field} {structure.get(field)!r} is not one of {', '.join(allowed)}")
    sentiment = structure.get("sentiment")
    if sentiment is not None and sentiment not in (schema.get("sentiments") or [sentiment]):
        problems.append(f"acceptedStructure.sentiment {sentiment!r} is not one of {', '.join(schema['sentiments'])}")
    for field in ("theme", "language"):
        if not isinstance(structure.get(field), str) or is_blank(structure[field]):
            problems.append(f"acceptedStructure.{field} must be a non-empty string")
    return problems


def store_problem(item: dict[str, Any], schema: dict[str, Any]) -> str | None:
    """A store the service will refuse (not of its FI_STORES): for a dry run's forecast. A real load leaves
    this to the service, which names the line and stores the rest of its batch."""
    stores = schema.get("stores")
    store = item.get("store")
    if not stores or store is None or store in {s.get("id") for s in stores if isinstance(s, dict)}:
        return None
    return f"store '{store}' is neither an id nor a name of FI_STORES"


def bad_lines(lines: list[Line], schema: dict[str, Any], where: str) -> list[str]:
    """One message per bad line: ``FILE:N: problem; problem``."""
    out = []
    for line in lines:
        problems = line_problems(line, schema)
        if problems:
            out.append(f"{where}:{line.number}: {'; '.join(problems)}")
    return out
