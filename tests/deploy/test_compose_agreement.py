"""The compose file cannot let the gate and Ollama disagree about parallelism (docs/invariants.md, invariant 4)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from feedback_intelligence.settings import Settings

COMPOSE = Path(__file__).resolve().parents[2] / "deploy" / "docker-compose.yml"
SUBSTITUTION = re.compile(r"^\$\{(?P<var>[A-Z0-9_]+)(?::-(?P<default>[^}]*))?\}$")


def compose() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE.read_text())


def substitution(value: object) -> tuple[str, str | None]:
    match = SUBSTITUTION.match(str(value))
    assert match, f"{value!r} must be a ${{VAR:-default}} substitution so both layers read one variable"
    return match["var"], match["default"]


def test_ollama_parallelism_and_the_gate_slots_come_from_one_variable_with_one_default() -> None:
    services = compose()["services"]
    ollama_var, ollama_default = substitution(services["ollama"]["environment"]["OLLAMA_NUM_PARALLEL"])
    gate_var, gate_default = substitution(services["api"]["environment"]["FI_LLM_SLOTS"])
    assert ollama_var == gate_var == "FI_LLM_SLOTS"
    assert ollama_default == gate_default == str(Settings.model_fields["llm_slots"].default)


def test_ollama_queue_is_shallow_and_overridable() -> None:
    var, default = substitution(compose()["services"]["ollama"]["environment"]["OLLAMA_MAX_QUEUE"])
    assert var == "OLLAMA_MAX_QUEUE" and default == "8"


def test_ollama_is_never_auto_started_has_a_healthcheck_gpu_and_keep_alive() -> None:
    ollama = compose()["services"]["ollama"]
    assert str(ollama.get("restart", "no")) == "no"
    assert ollama["healthcheck"]["test"]
    devices = ollama["deploy"]["resources"]["reservations"]["devices"]
    assert any("gpu" in d["capabilities"] for d in devices)
    assert "OLLAMA_KEEP_ALIVE" in ollama["environment"]


def test_the_api_talks_to_that_ollama() -> None:
    api = compose()["services"]["api"]["environment"]
    assert api["FI_LLM_BACKEND"] == "ollama"
    assert api["FI_LLM_BASE_URL"].startswith("http://ollama:")
    assert compose()["services"]["api"]["build"]["dockerfile"] == "deploy/Dockerfile"
