"""Reading a JSON object out of a model reply: strict first, then the usual salvage."""

from __future__ import annotations

import json
import re
from typing import Any

_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_FENCED = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


def json_object(raw: str | None) -> dict[str, Any] | None:
    """The reply as a JSON object, or ``None``.

    Salvage order: drop ``<think>`` blocks, prefer a fenced block's body, then take the span from
    the first ``{`` to the last ``}``.
    """
    if raw is None:
        return None
    parsed = _loads(raw.strip())
    if parsed is not None:
        return parsed
    text = _THINK.sub("", raw).strip()
    fenced = _FENCED.search(text)
    if fenced:
        text = fenced.group(1).strip()
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return None
    return _loads(text[start : end + 1])


def _loads(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None
