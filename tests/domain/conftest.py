from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from feedback_intelligence.domain.loader import DOMAINS_ROOT

Edit = Callable[[dict[str, Any]], None]


class DomainFolder:
    """A writable copy of a shipped domain, for breaking it one way at a time."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self, name: str) -> dict[str, Any]:
        return json.loads((self.path / name).read_text(encoding="utf-8"))

    def write(self, name: str, data: Any) -> None:
        (self.path / name).write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")

    def edit(self, name: str, change: Edit) -> None:
        data = self.read(name)
        change(data)
        self.write(name, data)


@pytest.fixture
def retail_copy(tmp_path: Path) -> DomainFolder:
    target = tmp_path / "retail"
    shutil.copytree(DOMAINS_ROOT / "retail", target)
    return DomainFolder(target)


@pytest.fixture
def game_copy(tmp_path: Path) -> DomainFolder:
    target = tmp_path / "game"
    shutil.copytree(DOMAINS_ROOT / "game", target)
    return DomainFolder(target)
