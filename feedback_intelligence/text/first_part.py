"""The part of a long text the model reads: a stored text may be longer than the model is asked to
read (FI_TEXT_STORE_MAX_CHARS over FI_INPUT_MAX_CHARS, ADR 0025). The model then reads the first part,
cut at a word boundary, and the stored row's notes say how much it read: nothing is cut silently,
and the text itself is always stored whole."""

from __future__ import annotations

# Look back at most this share of the limit for a space to cut at; beyond it, cut mid-word.
WORD_BOUNDARY_SLACK = 0.1


def first_part(text: str, max_chars: int | None) -> str:
    """``text`` itself when it fits in ``max_chars`` (or there is no limit), else its first part."""
    if max_chars is None or len(text) <= max_chars:
        return text
    head = text[:max_chars]
    space = head.rfind(" ", int(max_chars * (1 - WORD_BOUNDARY_SLACK)))
    return (head[:space] if space > 0 else head).rstrip()


def read_note(read_chars: int, total_chars: int) -> str:
    """The note stored with a row whose text the model read only in part."""
    return f"the model read the first {read_chars} of {total_chars} characters; the text is stored whole"
