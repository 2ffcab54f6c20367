"""Ollama's ``keep_alive`` values, parsed the way Ollama parses them (``api.Duration.UnmarshalJSON``).

A JSON number is whole seconds (Ollama truncates: ``0.5`` means 0, i.e. unload at once); a string is a Go
duration (``"30m"``, ``"1h30m"``, ``"250ms"``, ``"0"``); anything negative means "keep loaded forever".
"""

from __future__ import annotations

import math
import re

FOREVER = math.inf

_UNITS_S = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,  # Go accepts both micro signs
    "μs": 1e-6,
    "ms": 1e-3,
    "s": 1.0,
    "m": 60.0,
    "h": 3600.0,
}
_PART = re.compile(r"(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)")


class DurationError(ValueError):
    """A ``keep_alive`` Ollama would reject with 400."""


def parse_go_duration(text: str) -> float:
    """Seconds in a Go duration string (``time.ParseDuration``), sign included."""
    original = text
    sign = 1.0
    if text and text[0] in "+-":
        sign = -1.0 if text[0] == "-" else 1.0
        text = text[1:]
    if text == "0":
        return 0.0
    if not text:
        raise DurationError(f'time: invalid duration "{original}"')
    total = 0.0
    pos = 0
    while pos < len(text):
        match = _PART.match(text, pos)
        if match is None:
            if re.fullmatch(r"[\d.]+", text[pos:]):
                raise DurationError(f'time: missing unit in duration "{original}"')
            raise DurationError(f'time: invalid duration "{original}"')
        total += float(match.group(1)) * _UNITS_S[match.group(2)]
        pos = match.end()
    return sign * total


def parse_keep_alive(value: object) -> float | None:
    """Seconds to stay loaded after the last request; ``None`` when absent (JSON null leaves it unset),
    :data:`FOREVER` when negative."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise DurationError("Unsupported type: 'bool'")
    if isinstance(value, int | float):
        if value < 0:
            return FOREVER
        return float(math.trunc(value))
    if isinstance(value, str):
        seconds = parse_go_duration(value)
        return FOREVER if seconds < 0 else seconds
    raise DurationError(f"Unsupported type: '{type(value).__name__}'")
