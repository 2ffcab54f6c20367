"""Start-up validation: a bad setting or a bad domain stops the boot with a message that names it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from feedback_intelligence.devtools.processes import REPO, app_server, free_port
from feedback_intelligence.domain.loader import DOMAINS_ROOT

pytestmark = pytest.mark.process  # starts real processes (tests/conftest.py)


def serve(env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "feedback_intelligence", "serve"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(REPO), "FI_PORT": str(free_port()), **env},
    )


def test_a_bad_setting_stops_the_boot_naming_the_variable(tmp_path: Path) -> None:
    result = serve({"FI_LLM_SLOTS": "zero"}, tmp_path)
    assert result.returncode == 2
    assert "FI_LLM_SLOTS" in result.stderr


def test_an_unknown_backend_stops_the_boot(tmp_path: Path) -> None:
    result = serve({"FI_LLM_BACKEND": "gpt-in-the-cloud"}, tmp_path)
    assert result.returncode == 2
    assert "FI_LLM_BACKEND" in result.stderr


def test_a_bad_domain_folder_stops_the_boot_naming_the_problem(tmp_path: Path) -> None:
    broken = tmp_path / "domains" / "broken"
    shutil.copytree(DOMAINS_ROOT / "game", broken)
    descriptor = json.loads((broken / "domain.json").read_text())
    descriptor["sources"] = [s for s in descriptor["sources"] if s != "desk"]
    (broken / "domain.json").write_text(json.dumps(descriptor))
    result = serve({"FI_DOMAIN": "broken", "FI_DOMAINS_ROOT": str(tmp_path / "domains")}, tmp_path)
    assert result.returncode == 2
    assert "FI_DOMAIN" in result.stderr and "desk" in result.stderr


def test_a_new_domain_is_a_new_folder(tmp_path: Path) -> None:
    shutil.copytree(DOMAINS_ROOT / "game", tmp_path / "domains" / "arcade")
    with app_server(
        {
            "FI_DOMAIN": "arcade",
            "FI_DOMAINS_ROOT": str(tmp_path / "domains"),
            "FI_LLM_BACKEND": "ollama",
            "FI_LLM_BASE_URL": "http://127.0.0.1:9",
        }
    ) as app:
        schema = httpx.get(app.url + "/schema", timeout=10).json()
    assert schema["language"] == "en"
    assert "gameplay_balance" in schema["categories"]
