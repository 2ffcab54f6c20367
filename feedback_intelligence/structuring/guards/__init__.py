"""Guards on every model-written field a person reads: a rejected value is replaced and the rejection recorded.

* :func:`guard_structure` — all guards over one structure (used by the structuring service, so interpret,
  ingest and restructure all get them);
* :func:`theme_rejection` — the theme rule alone (the report checks the themes it shows with it);
* :func:`language_rejection`, :func:`is_iso639_1` — the language rule;
* :class:`Rejection`, :class:`GuardedStructure` — what the guards say.
"""

from feedback_intelligence.structuring.guards.language import is_iso639_1, language_rejection
from feedback_intelligence.structuring.guards.rejection import PRIOR_FIELD, GuardedStructure, Rejection
from feedback_intelligence.structuring.guards.structure import guard_structure
from feedback_intelligence.structuring.guards.theme import THEME_REASONS, theme_rejection

__all__ = [
    "PRIOR_FIELD",
    "THEME_REASONS",
    "GuardedStructure",
    "Rejection",
    "guard_structure",
    "is_iso639_1",
    "language_rejection",
    "theme_rejection",
]
