"""``feedctl user`` against a real FI_AUTH=local server: the first operator, a clerk, grants, disabling."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import httpx
import pytest

from feedback_intelligence.devtools.processes import REPO, ServerProcess, app_server

pytestmark = pytest.mark.process

PASSWORD = "ensimmainen-operaattori"


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    env = {"FI_LLM_BACKEND": "ollama", "FI_LLM_BASE_URL": "http://127.0.0.1:9", "FI_LLM_MODEL": "held"}
    with app_server({**env, "FI_AUTH": "local", "FI_SESSION_SECRET": "cli-test-secret"}) as app:
        yield app


def feedctl(app: ServerProcess, *args: str, password: str = PASSWORD) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FEEDCTL_URL": app.url, "PYTHONPATH": str(REPO), "FEEDCTL_PASSWORD": password}
    return subprocess.run(
        [sys.executable, "-m", "feedback_intelligence", *args], env=env, capture_output=True, text=True, timeout=60
    )


def test_the_first_operator_is_added_from_the_host_and_signs_in(server: ServerProcess) -> None:
    added = feedctl(server, "user", "add", "Admin", "--role", "operator", "--name", "Ylläpito")
    assert added.returncode == 0, added.stderr
    assert added.stdout.strip() == "added admin (operator:*)"
    signed = httpx.post(server.url + "/auth/signin", json={"username": "admin", "password": PASSWORD}, timeout=10)
    assert signed.status_code == 200
    assert signed.json()["grants"] == [{"role": "operator", "store": "*"}]
    assert signed.json()["displayName"] == "Ylläpito"


def test_a_clerk_of_a_store_and_the_errors_a_person_can_act_on(server: ServerProcess) -> None:
    assert feedctl(server, "user", "add", "kaisa", "--role", "clerk:s1").returncode == 0
    taken = feedctl(server, "user", "add", "KAISA", "--role", "clerk:s1")
    assert taken.returncode == 2 and "taken" in taken.stderr
    short = feedctl(server, "user", "add", "pekka", "--role", "clerk:s1", password="lyhyt")
    assert short.returncode == 2 and "at least" in short.stderr


def test_grant_and_revoke_change_a_persons_roles(server: ServerProcess) -> None:
    assert feedctl(server, "user", "add", "ville", "--role", "clerk:s1").returncode == 0
    granted = feedctl(server, "user", "grant", "ville", "--role", "manager:s1")
    assert granted.returncode == 0, granted.stderr
    assert granted.stdout.strip() == "ville: clerk:s1, manager:s1"
    revoked = feedctl(server, "user", "revoke", "ville", "--role", "clerk:s1")
    assert revoked.returncode == 0 and revoked.stdout.strip() == "ville: manager:s1"
    signed = httpx.post(server.url + "/auth/signin", json={"username": "ville", "password": PASSWORD}, timeout=10)
    assert signed.json()["grants"] == [{"role": "manager", "store": "s1"}]
    nobody = feedctl(server, "user", "grant", "nobody", "--role", "clerk:s1")
    assert nobody.returncode == 2 and "no account" in nobody.stderr
    bad = feedctl(server, "user", "grant", "ville", "--role", "boss:s1")
    assert bad.returncode == 2 and "role must be one of" in bad.stderr


def test_disable_refuses_the_sign_in_and_enable_lets_it_back(server: ServerProcess) -> None:
    assert feedctl(server, "user", "add", "leena", "--role", "clerk:s1").returncode == 0
    signin = {"username": "leena", "password": PASSWORD}
    assert httpx.post(server.url + "/auth/signin", json=signin, timeout=10).status_code == 200
    disabled = feedctl(server, "user", "disable", "leena")
    assert disabled.returncode == 0, disabled.stderr
    assert disabled.stdout.strip() == "leena: disabled (1 sessions ended)"
    assert httpx.post(server.url + "/auth/signin", json=signin, timeout=10).status_code == 401
    unknown = feedctl(server, "user", "disable", "nobody")
    assert unknown.returncode == 2 and "no account 'nobody'" in unknown.stderr
    enabled = feedctl(server, "user", "enable", "leena")
    assert enabled.returncode == 0 and enabled.stdout.strip() == "leena: enabled"
    assert httpx.post(server.url + "/auth/signin", json=signin, timeout=10).status_code == 200
