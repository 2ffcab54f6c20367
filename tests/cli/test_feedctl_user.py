"""``feedctl user`` against a real FI_AUTH=local server: the first operator, a clerk, grants, disabling,
resetting a password; stores from FI_STORES."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest

from feedback_intelligence.devtools.processes import REPO, ServerProcess, app_server

pytestmark = pytest.mark.process

PASSWORD = "ensimmainen-operaattori"


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    env = {"FI_LLM_BACKEND": "ollama", "FI_LLM_BASE_URL": "http://127.0.0.1:9", "FI_LLM_MODEL": "held"}
    stores = json.dumps([{"id": "s1", "name": "Keskusta"}])
    with app_server({**env, "FI_AUTH": "local", "FI_SESSION_SECRET": "cli-test-secret", "FI_STORES": stores}) as app:
        yield app


def feedctl(
    app: ServerProcess, *args: str, password: str = PASSWORD, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FEEDCTL_URL": app.url, "PYTHONPATH": str(REPO), "FEEDCTL_PASSWORD": password}
    return subprocess.run(
        [sys.executable, "-m", "feedback_intelligence", *args],
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


@contextmanager
def signed_in(app: ServerProcess, username: str, password: str = PASSWORD) -> Iterator[httpx.Client]:
    """A browser's session (its cookie), signed in."""
    with httpx.Client(base_url=app.url, timeout=10) as http:
        answer = http.post("/auth/signin", json={"username": username, "password": password})
        assert answer.status_code == 200, answer.text
        yield http


def is_signed_in(http: httpx.Client) -> bool:
    return bool(http.get("/auth/me").json()["signedIn"])


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


def test_an_operator_resets_a_password_and_every_session_of_the_account_ends(server: ServerProcess) -> None:
    assert feedctl(server, "user", "add", "reeta", "--role", "clerk:s1").returncode == 0
    with signed_in(server, "reeta") as desk, signed_in(server, "reeta") as phone:
        reset = feedctl(server, "user", "password", "Reeta", "--password-stdin", stdin="reetan-uusi-salasana\n")
        assert reset.returncode == 0, reset.stderr
        assert reset.stdout.strip() == "reeta: password set (2 sessions ended)"
        assert not is_signed_in(desk) and not is_signed_in(phone)
    old = {"username": "reeta", "password": PASSWORD}
    assert httpx.post(server.url + "/auth/signin", json=old, timeout=10).status_code == 401
    with signed_in(server, "reeta", "reetan-uusi-salasana") as again:
        by_env = feedctl(server, "user", "password", "reeta", "--json", password="reetan-kolmas-salasana")
        assert by_env.returncode == 0, by_env.stderr
        assert json.loads(by_env.stdout) == {"username": "reeta", "sessionsEnded": 1}
        assert not is_signed_in(again)


def test_a_reset_to_a_refused_password_or_of_nobody_says_why(server: ServerProcess) -> None:
    assert feedctl(server, "user", "add", "sanna", "--role", "clerk:s1").returncode == 0
    common = feedctl(server, "user", "password", "sanna", "--password-stdin", stdin="password1\n")
    assert common.returncode == 2 and "most common" in common.stderr
    blank = feedctl(server, "user", "password", "sanna", "--password-stdin", stdin=" " * 10 + "\n")
    assert blank.returncode == 2 and "spaces only" in blank.stderr
    nothing = feedctl(server, "user", "password", "sanna", "--password-stdin", stdin="")
    assert nothing.returncode == 2 and "standard input" in nothing.stderr
    nobody = feedctl(server, "user", "password", "nobody", "--password-stdin", stdin="jonkun-salasana-1\n")
    assert nobody.returncode == 2 and "no account 'nobody'" in nobody.stderr
    assert httpx.post(server.url + "/auth/signin", json={"username": "sanna", "password": PASSWORD}).is_success


def test_a_look_alike_name_and_a_store_outside_fi_stores_are_refused(server: ServerProcess) -> None:
    assert feedctl(server, "user", "add", "olli", "--role", "clerk:s1").returncode == 0
    twin = feedctl(server, "user", "add", "\uff4f\uff4c\uff4c\uff49", "--role", "operator")  # full-width olli
    assert twin.returncode == 2 and "taken" in twin.stderr
    elsewhere = feedctl(server, "user", "add", "pertti", "--role", "clerk:s9")
    assert elsewhere.returncode == 2 and "FI_STORES" in elsewhere.stderr
    granted = feedctl(server, "user", "grant", "olli", "--role", "manager:s9")
    assert granted.returncode == 2 and "FI_STORES" in granted.stderr
