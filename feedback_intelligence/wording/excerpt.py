"""The one cut of a customer's text to an excerpt: the report's alert rows and prompts, and a notification."""

from __future__ import annotations


def excerpt(text: str, chars: int) -> str:
    """The first ``chars`` characters of ``text``, with an ellipsis where it was cut."""
    return text if len(text) <= chars else text[:chars] + "…"
