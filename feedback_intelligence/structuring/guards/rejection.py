"""What a guard says when it rejects a model value: which field, why, what the model said, what replaced it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from feedback_intelligence.records import Structure
from feedback_intelligence.text.invisible import escape_not_text

# The domain gives the field to the deterministic prior (domain.json ``priorFields``): a policy, not a
# fault of the model, so it is listed and counted but leaves no note on every item.
PRIOR_FIELD = "prior_field"


@dataclass(frozen=True, slots=True)
class Rejection:
    field: str
    reason: str  # a stable code, the ``reason`` label of ``fi_guard_rejections_total``
    model_value: str | None  # exactly what the model said (the eval's "model alone" figures read it)
    replacement: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "field": self.field,
            "reason": self.reason,
            "modelValue": self.model_value,
            "replacement": self.replacement,
        }

    def note(self) -> str:
        """The line stored with the item's salvage notes."""
        shown, used = _clip(self.model_value), _clip(self.replacement)
        return f"guard: '{self.field}' value '{shown}' rejected ({self.reason}), used '{used}'"


@dataclass(frozen=True, slots=True)
class GuardedStructure:
    structure: Structure  # what a person sees
    rejections: tuple[Rejection, ...] = ()

    @property
    def notes(self) -> tuple[str, ...]:
        """One note per rejected value (the prior's own fields excepted: they would note every item)."""
        return tuple(r.note() for r in self.rejections if r.reason != PRIOR_FIELD)


def _clip(value: str | None, limit: int = 60) -> str:
    """Short and inert: control, bidi and zero-width characters shown as escapes, never applied."""
    text = "" if value is None else value
    text = text if len(text) <= limit else text[:limit] + "…"
    return escape_not_text(text)
