"""How many hypothesis examples a test runs: its full count, scaled by the profile the run loaded.

``make test`` runs hypothesis' default profile (100 examples a test, and each test's own count as
written); ``make test-fast`` selects the ``fast`` profile (tests/conftest.py), which keeps a fifth.
"""

from __future__ import annotations

from hypothesis import settings

DEFAULT_EXAMPLES = 100  # hypothesis' own default, which the full run keeps


def examples(full: int) -> int:
    """``full`` in the full run; the loaded profile's share of it otherwise (at least one)."""
    return max(1, full * settings.default.max_examples // DEFAULT_EXAMPLES)


def reduced() -> bool:
    """True in a run whose profile keeps fewer examples than the full run (``make test-fast``)."""
    return settings.default.max_examples < DEFAULT_EXAMPLES
