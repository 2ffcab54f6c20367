"""Find the one JSON object in a model's reply: strictly if the reply is just that, else by salvage.

Salvage tolerates the usual wrappings of small models: a ``<think>`` block, a markdown code fence,
words before or after the object. What it finds must still be a JSON object.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)
_FENCED = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Extraction:
    obj: dict[str, Any] | None
    strict: bool  # the trimmed reply was exactly one JSON object
    salvaged: bool  # an object was found only by unwrapping the reply


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _load_object(text: str) -> dict[str, Any] | None:
    """Standard JSON only (no NaN/Infinity); anything but an object counts as not found."""
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def extract_json_object(raw: str) -> Extraction:
    text = raw.strip()
    obj = _load_object(text)
    if obj is not None:
        return Extraction(obj, strict=True, salvaged=False)
    text = _THINK.sub("", text).strip()
    fenced = _FENCED.search(text)
    if fenced:
        text = fenced.group(1).strip()
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        return Extraction(None, strict=False, salvaged=False)
    obj = _load_object(text[start : end + 1])
    return Extraction(obj, strict=False, salvaged=obj is not None)
