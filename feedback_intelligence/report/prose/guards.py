"""What model prose must pass before a manager reads it: grounding, no directives, no echoed ids."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from typing import Any

from feedback_intelligence.report.prose.directives import gives_directive

_ID_CHARS = "A-Za-z0-9._-"
_EMPTY_BRACKETS = re.compile(r"[\[(][\s,;·]*[\])]")
_SPACE_RUNS = re.compile(r"\s{2,}")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+(?=[,.;:!?])")


def looks_action_bearing(text: str | None) -> bool:
    """True when the text gives instructions about people or recommends, demands or orders anything
    (by meaning, through base forms: :mod:`feedback_intelligence.report.prose.directives`)."""
    return gives_directive(text)


def strip_id_echo(text: str, ids: Iterable[str]) -> str:
    """Remove feedback ids the model echoed into prose.

    Longest ids first; ``[id]`` / ``(id)`` always go; a bare id goes only when it is not a plain
    word (an id like ``on`` must not eat the Finnish word) and stands apart from other id characters.
    Then empty bracket residue, doubled spaces and spaces before punctuation are tidied.
    """
    present = sorted({i for i in ids if i and i in text}, key=len, reverse=True)
    for feedback_id in present:
        escaped = re.escape(feedback_id)
        text = re.sub(rf"[\[(]{escaped}[\])]", "", text)
        if not feedback_id.isalpha():
            text = re.sub(rf"(?<![{_ID_CHARS}]){escaped}(?![{_ID_CHARS}])", "", text)
    text = _EMPTY_BRACKETS.sub("", text)
    text = _SPACE_RUNS.sub(" ", text)
    text = _SPACE_BEFORE_PUNCT.sub("", text)
    return text.strip()


def is_grounded(cited: Any, allowed: Collection[str]) -> bool:
    """Citations are a non-empty list of strings, each the id of an item the prose is about."""
    if not isinstance(cited, list) or not cited:
        return False
    return all(isinstance(c, str) and c in allowed for c in cited)
