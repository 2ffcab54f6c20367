"""Each ``FI_`` variable is declared once, by one field of one group (ADR 0048). That the docs name every
variable, and only these, is tests/test_documented_settings.py's."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from feedback_intelligence.config import Settings
from feedback_intelligence.config.settings import GROUPS, variables

CONFIG = Path(__file__).resolve().parents[2] / "feedback_intelligence" / "config"
DECLARED = re.compile(r'variable\(\s*"(FI_[A-Z0-9_]+)"')


def test_every_variable_is_one_field_of_one_group() -> None:
    declared = Counter(name for path in CONFIG.glob("*.py") for name in DECLARED.findall(path.read_text()))
    assert {"FI_LOG_FORMAT", "FI_LLM_SLOTS", "FI_NOTIFY_CHANNELS"} <= set(declared)  # the walk sees them
    assert [name for name, times in declared.items() if times > 1] == []
    by_field = Counter(var for group in GROUPS.values() for var in group.variables().values())
    assert [name for name, times in by_field.items() if times > 1] == []
    assert set(declared) == set(by_field) == set(variables()), "a group that Settings does not compose"
    assert set(GROUPS) == set(Settings.model_fields)
