"""What the simulated model "says": deterministic prose, or JSON that satisfies a requested schema.

The content only has to be well-formed; timing is the point of the simulator. Deterministic text lets a
test compare a streamed reply with a non-streamed one.
"""

from __future__ import annotations

import json
import math
from typing import Any

_WORDS = (
    "This", "is", "a", "simulated", "reply", "from", "a", "model", "that", "only", "pretends",
    "to", "think;", "its", "timing", "is", "what", "matters", "here.",
)  # fmt: skip

_STRING_FORMATS = {
    "date-time": "2024-01-01T00:00:00Z",
    "date": "2024-01-01",
    "time": "00:00:00",
    "email": "sim@example.com",
    "uri": "https://example.com/",
    "url": "https://example.com/",
    "uuid": "00000000-0000-4000-8000-000000000000",
}

_MAX_DEPTH = 16


def prose_tokens(count: int) -> list[str]:
    """``count`` words, each a "token" chunk as a stream sends it (a leading space joins them)."""
    return [(" " if i else "") + _WORDS[i % len(_WORDS)] for i in range(count)]


def json_tokens(text: str, size: int = 4) -> list[str]:
    """A JSON reply cut into small chunks, as a grammar-constrained model streams it."""
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def count_words(*texts: str) -> int:
    """A stand-in for a tokenizer: one token per whitespace-separated word, at least one."""
    return max(1, sum(len(t.split()) for t in texts if t))


def json_reply(fmt: Any) -> str:
    """The JSON text answering ``format``: ``"json"`` gets a small object, a schema gets an instance of it."""
    value = instance_for_schema(fmt) if isinstance(fmt, dict) else {"reply": "simulated"}
    return json.dumps(value, ensure_ascii=False)


def instance_for_schema(schema: Any, root: Any = None, depth: int = 0) -> Any:
    """A small value that satisfies ``schema``: every listed property is present (so every required one
    is), ``enum``/``const`` pick their first value, strings are short, numbers sit at their lower bound.

    Deliberately simple: ``pattern``, ``multipleOf``, ``not`` and conditional keywords are not solved.
    """
    if root is None:
        root = schema
    if not isinstance(schema, dict) or depth > _MAX_DEPTH:
        return None if schema is False else "sim"
    if "$ref" in schema:
        return instance_for_schema(_resolve_ref(root, schema["$ref"]), root, depth + 1)
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            non_null = [o for o in options if not (isinstance(o, dict) and o.get("type") == "null")]
            return instance_for_schema((non_null or options)[0], root, depth + 1)
    if isinstance(schema.get("allOf"), list):
        return instance_for_schema(_merge_all_of(schema), root, depth + 1)

    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind is None:
        kind = "object" if "properties" in schema else "array" if "items" in schema else "string"

    if kind == "object":
        declared = schema.get("properties")
        properties: dict[str, Any] = declared if isinstance(declared, dict) else {}
        required = [r for r in schema.get("required", []) if isinstance(r, str)]
        keys = list(properties) + [r for r in required if r not in properties]
        return {k: instance_for_schema(properties.get(k, {"type": "string"}), root, depth + 1) for k in keys}
    if kind == "array":
        return _array_instance(schema, root, depth)
    if kind == "string":
        return _string_instance(schema)
    if kind in ("integer", "number"):
        return _number_instance(schema, integer=kind == "integer")
    if kind == "boolean":
        return True
    return None


def _resolve_ref(root: Any, ref: Any) -> Any:
    if not isinstance(ref, str) or not ref.startswith("#"):
        return {}
    node = root
    for part in ref.lstrip("#").split("/"):
        if not part:
            continue
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return {}
        node = node[part]
    return node


def _merge_all_of(schema: dict[str, Any]) -> dict[str, Any]:
    merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
    for part in schema["allOf"]:
        if not isinstance(part, dict):
            continue
        for key, value in part.items():
            if key == "properties" and isinstance(value, dict):
                merged.setdefault("properties", {}).update(value)
            elif key == "required" and isinstance(value, list):
                merged["required"] = [*merged.get("required", []), *value]
            else:
                merged.setdefault(key, value)
    return merged


def _array_instance(schema: dict[str, Any], root: Any, depth: int) -> list[Any]:
    prefix = schema.get("prefixItems")
    items = schema.get("items", {})
    if isinstance(items, list):  # draft-04..07 tuple form
        prefix, items = items, schema.get("additionalItems", {})
    prefix = prefix if isinstance(prefix, list) else []
    low = int(schema.get("minItems", 0) or 0)
    high = schema.get("maxItems")
    count = max(low, len(prefix), 1)
    if isinstance(high, int):
        count = min(count, high)
    out = [instance_for_schema(s, root, depth + 1) for s in prefix[:count]]
    while len(out) < count:
        out.append(instance_for_schema(items if items is not True else {}, root, depth + 1))
    return out


def _string_instance(schema: dict[str, Any]) -> str:
    value = _STRING_FORMATS.get(str(schema.get("format", "")), "sim")
    low = schema.get("minLength")
    high = schema.get("maxLength")
    if isinstance(low, int) and len(value) < low:
        value = value + "x" * (low - len(value))
    if isinstance(high, int) and len(value) > high:
        value = value[:high]
    return value


def _number_instance(schema: dict[str, Any], *, integer: bool) -> int | float:
    value: float = 0
    low, high = schema.get("minimum"), schema.get("maximum")
    xlow, xhigh = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    if isinstance(low, int | float) and not isinstance(low, bool):
        value = max(value, low)
    if isinstance(xlow, int | float) and not isinstance(xlow, bool) and value <= xlow:
        value = xlow + 1
    if isinstance(high, int | float) and not isinstance(high, bool) and value > high:
        value = high
    if isinstance(xhigh, int | float) and not isinstance(xhigh, bool) and value >= xhigh:
        value = xhigh - 1
        if isinstance(xlow, int | float) and not isinstance(xlow, bool) and value <= xlow:
            value = (xlow + xhigh) / 2
    if integer:
        return math.ceil(value)
    return value
