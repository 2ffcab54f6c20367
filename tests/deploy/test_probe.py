"""feedctl probe, the containers' health check: asks this host's service with a Host it accepts."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from feedback_intelligence.cli.deploy import probe_host
from feedback_intelligence.devtools.processes import REPO, app_server, free_port

DEAD_LLM = {"FI_LLM_BACKEND": "ollama", "FI_LLM_BASE_URL": "http://127.0.0.1:9", "FI_LLM_MODEL": "held"}


@pytest.mark.parametrize(
    ("allowed", "host"),
    [
        (["shop.example"], "shop.example"),
        (["*.example.fi", "x"], "probe.example.fi"),
        (["*"], "localhost"),
        ([], "localhost"),
    ],
)
def test_the_probe_sends_a_host_the_allowed_hosts_check_lets_through(allowed: list[str], host: str) -> None:
    assert probe_host(allowed) == host


def feedctl_probe(what: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "PYTHONPATH": str(REPO), **env}
    command = [sys.executable, "-m", "feedback_intelligence", "probe", what]
    return subprocess.run(command, env=full, capture_output=True, text=True, timeout=60, check=False)


@pytest.mark.process
def test_livez_passes_health_fails_while_the_model_is_unreachable_and_nothing_listening_is_2() -> None:
    env = {**DEAD_LLM, "FI_ALLOWED_HOSTS": "palaute.example.fi"}  # the public name only, as behind nginx
    with app_server(env) as app:
        port = app.url.rsplit(":", 1)[1]
        live = feedctl_probe("livez", {**env, "FI_PORT": port})
        assert live.returncode == 0, live.stderr
        ready = feedctl_probe("health", {**env, "FI_PORT": port})
        assert ready.returncode == 1 and "health: 503" in ready.stderr, ready.stderr
    nothing = feedctl_probe("livez", {**env, "FI_PORT": str(free_port())})
    assert nothing.returncode == 2 and "nothing answers" in nothing.stderr
