"""Rows saved "structure later" (ADR 0015), for the queue's and the worker's tests."""

from __future__ import annotations

from feedback_intelligence.records import StoredFeedback, Structure

PROPOSAL = Structure("muu", "maito", "low", "complaint", "fi", "negative")  # the deterministic proposal
MODEL = Structure("maito_kylma", "hapan maito", "high", "complaint", "fi", "negative")  # what a model answers


def later(id_: str, second: int, text: str = "Maito oli hapanta.") -> StoredFeedback:
    """A pending row with the proposal as its structure, created at ``second`` past a fixed minute."""
    return StoredFeedback(
        id=id_,
        source="desk",
        text=f"{text} {id_}",
        timestamp="2026-11-30T10:00:00.0000000+00:00",
        created_at=f"2026-11-30T10:00:{second:02d}.0000000+00:00",
        structure=PROPOSAL,
        pending=True,
    )
