"""The pages' pure JS modules under Node's own test runner (no browser, no npm packages)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.prerequisites import require

pytestmark = pytest.mark.process  # starts real processes (tests/conftest.py)

JS_TESTS = Path(__file__).parent / "js"


def test_js_modules_under_node() -> None:
    require("node")
    node = shutil.which("node")
    assert node is not None
    files = sorted(str(p) for p in JS_TESTS.glob("*.test.mjs"))
    result = subprocess.run([node, "--test", *files], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "# fail 0" in result.stdout
