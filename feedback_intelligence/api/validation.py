"""Input rules shared by the routes; every message names the rule it enforces."""

from __future__ import annotations


def text_errors(text: str | None, max_chars: int) -> list[str]:
    if text is None or not text.strip():
        return ["text must be non-empty."]
    if len(text) > max_chars:
        return [f"text exceeds the {max_chars}-character cap ({len(text)})."]
    return []
