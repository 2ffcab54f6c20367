"""The compose file cannot let the gate and Ollama disagree about parallelism (docs/invariants.md, invariant 4)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from feedback_intelligence.config import BackendSettings

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
    assert ollama_default == gate_default == str(BackendSettings.model_fields["slots"].default)


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
    specs = BackendSettings(pool=value).specs
    assert [(spec.name, spec.slots) for spec in specs] == [("gpu0", 2), ("gpu1", 2)]


FILES = {"one-gpu": COMPOSE, "two-gpus": TWO_GPUS}


def services_of(name: str) -> dict[str, Any]:
    return yaml.safe_load(FILES[name].read_text())["services"]


@pytest.mark.parametrize("name", list(FILES))
def test_every_ollama_gets_the_model_pulled_before_the_api_starts(name: str) -> None:
    services = services_of(name)
    ollamas = [
        n for n in services if n.startswith("ollama") and "image" in services[n] and "entrypoint" not in services[n]
    ]
    pulls = {n: s for n, s in services.items() if s.get("entrypoint", [None])[0:2] == ["ollama", "pull"]}
    assert len(pulls) == len(ollamas) >= 1
    pulled_into = set()
    for pull in pulls.values():
        assert pull["entrypoint"][2] == "${FI_LLM_MODEL:-llama3.2:1b-instruct-q8_0}"  # the model the api asks for
        [(target, condition)] = pull["depends_on"].items()
        assert condition == {"condition": "service_healthy"}
        assert pull["environment"]["OLLAMA_HOST"] == f"http://{target}:11434"
        pulled_into.add(target)
    assert pulled_into == set(ollamas)
    api_waits_for = services["api"]["depends_on"]
    assert {n: c["condition"] for n, c in api_waits_for.items()} == dict.fromkeys(
        pulls, "service_completed_successfully"
    )


@pytest.mark.parametrize("name", list(FILES))
def test_the_api_restarts_unless_stopped_and_the_operator_token_is_required(name: str) -> None:
    api = services_of(name)["api"]
    assert api["restart"] == "unless-stopped"
    token = api["environment"]["FI_OPERATOR_TOKEN"]
    assert token.startswith("${FI_OPERATOR_TOKEN:?"), token  # compose refuses to start without one
    assert "FI_PRIOR_FIELDS" in api["environment"] and api["environment"]["FI_PRIOR_FIELDS"] is None  # passed on
    assert api["volumes"] == ["api-data:/data"]


def test_dedicated_gpus_restart_unless_stopped_each_with_its_own_model_volume() -> None:
    services = services_of("two-gpus")
    ollamas = {n: s for n, s in services.items() if n.startswith("ollama-gpu")}
    assert all(s["restart"] == "unless-stopped" for s in ollamas.values())
    volumes = [s["volumes"][0].split(":")[0] for s in ollamas.values()]
    assert len(set(volumes)) == 2
