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


TWO_GPUS = COMPOSE.with_name("docker-compose.two-gpus.yml")
BACKEND_SLOTS = re.compile(r'"url": "http://(?P<host>[a-z0-9-]+):11434".*?"slots": (?P<slots>\$\{[^}]+\})', re.S)


def test_each_gpus_ollama_runs_exactly_the_slots_the_gate_sends_it() -> None:
    services = yaml.safe_load(TWO_GPUS.read_text())["services"]
    backends = BACKEND_SLOTS.findall(services["api"]["environment"]["FI_LLM_BACKENDS"])
    assert len(backends) == 2
    for host, slots in backends:
        parallel = substitution(services[host]["environment"]["OLLAMA_NUM_PARALLEL"])
        assert parallel == substitution(slots) == ("FI_GPU_SLOTS", "2")


def test_each_ollama_is_pinned_to_its_own_gpu() -> None:
    services = yaml.safe_load(TWO_GPUS.read_text())["services"]
    pinned = [
        tuple(device["device_ids"])
        for name, service in services.items()
        if name.startswith("ollama")
        for device in service["deploy"]["resources"]["reservations"]["devices"]
    ]
    assert len(pinned) == 2 and len(set(pinned)) == 2


def test_the_two_gpu_backend_list_is_valid_once_substituted() -> None:
    value = yaml.safe_load(TWO_GPUS.read_text())["services"]["api"]["environment"]["FI_LLM_BACKENDS"]
    value = re.sub(r"\$\{[A-Z0-9_]+:-([^}]*)\}", r"\1", value)
    specs = Settings(llm_backends=value).backend_specs
    assert [(spec.name, spec.slots) for spec in specs] == [("gpu0", 2), ("gpu1", 2)]
