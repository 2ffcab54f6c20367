"""Each ``FI_`` variable is declared once, by one field of one group, and the docs name only variables
that exist (ADR 0048)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from feedback_intelligence.config import Settings
from feedback_intelligence.config.settings import GROUPS, variables

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "feedback_intelligence" / "config"
NAME = re.compile(r"\bFI_[A-Z0-9_]*[A-Z0-9]\b")
DECLARED = re.compile(r'variable\(\s*"(FI_[A-Z0-9_]+)"')
# Named in the docs, read by something other than the service: the compose files and the image
# (deploy/), the engine's build (scripts/). The ADRs are history and keep the names of their day.
READ_ELSEWHERE = [ROOT / "deploy", ROOT / "scripts"]
# Not variables of ours: the one-line error's placeholder, and the example webhook receiver's own variable.
NOT_OURS = {"FI_X", "FI_WEBHOOK_SECRET"}


def _read_elsewhere() -> set[str]:
    return {
        name
        for folder in READ_ELSEWHERE
        for path in folder.rglob("*")
        if path.is_file() and path.suffix in ("", ".sh", ".yml", ".yaml", ".conf", ".j2")
        for name in NAME.findall(path.read_text(encoding="utf-8", errors="replace"))
    }


def test_every_variable_is_one_field_of_one_group() -> None:
    declared = Counter(name for path in CONFIG.glob("*.py") for name in DECLARED.findall(path.read_text()))
    assert [name for name, times in declared.items() if times > 1] == []
    by_field = Counter(var for group in GROUPS.values() for var in group.variables().values())
    assert [name for name, times in by_field.items() if times > 1] == []
    assert set(declared) == set(by_field) == set(variables()), "a group that Settings does not compose"
    assert set(GROUPS) == set(Settings.model_fields)


def test_the_documented_variables_exist() -> None:
    docs = [ROOT / "README.md", *(p for p in (ROOT / "docs").rglob("*.md") if "adr" not in p.parts)]
    known = set(variables()) | _read_elsewhere() | NOT_OURS
    unknown = {
        f"{path.relative_to(ROOT)}: {name}"
        for path in docs
        for name in NAME.findall(path.read_text(encoding="utf-8"))
        if name not in known
    }
    assert sorted(unknown) == []


def test_a_variable_that_does_not_exist_is_found() -> None:
    assert NAME.findall("set `FI_LLM_SLOTS=2`, FI_NOT_A_SETTING. and FI_REPORT_* (a family, not a name)") == [
        "FI_LLM_SLOTS",
        "FI_NOT_A_SETTING",
    ]
    assert "FI_NOT_A_SETTING" not in variables()
