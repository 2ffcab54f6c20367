"""The docs and the settings agree: every `FI_` setting is named in docs/operations/, and every `FI_` name
the README and docs use is a setting (or one of the few variables read by something else: a script, a
compose file, an example)."""

from __future__ import annotations

import re
from pathlib import Path

from feedback_intelligence.config.settings import variables
from feedback_intelligence.config.unknown import NOT_SETTINGS, unknown

# Misspellings the docs show on purpose, as the boot's warning names them (configuration.md).
MISSPELT_EXAMPLES = {"FI_LLM_SLOT": "FI_LLM_SLOTS"}

ROOT = Path(__file__).resolve().parent.parent
OPERATIONS = ROOT / "docs" / "operations"
FI_NAME = re.compile(r"\bFI_[A-Z0-9_]*[A-Z0-9]\b")


def _setting_names() -> set[str]:
    return set(variables())


def _names_in(paths: list[Path]) -> set[str]:
    return {name for path in paths for name in FI_NAME.findall(path.read_text(encoding="utf-8"))}


def test_every_setting_is_named_in_the_operations_docs() -> None:
    undocumented = _setting_names() - _names_in(sorted(OPERATIONS.glob("*.md")))
    assert undocumented == set(), "name these in docs/operations/ (configuration.md at least)"


def test_every_fi_name_the_docs_use_is_a_setting_or_a_known_other_variable() -> None:
    # ADRs are left out: they name settings that were weighed and not taken.
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted(OPERATIONS.glob("*.md"))]
    strangers = _names_in(docs) - _setting_names() - set(NOT_SETTINGS) - set(MISSPELT_EXAMPLES)
    assert strangers == set(), "a misspelt or removed setting, or a variable to list in NOT_SETTINGS"


def test_the_docs_misspellings_are_named_at_boot_with_the_setting_meant() -> None:
    assert unknown(MISSPELT_EXAMPLES) == MISSPELT_EXAMPLES


def test_the_other_variables_are_not_settings() -> None:
    assert set(NOT_SETTINGS).isdisjoint(_setting_names())
