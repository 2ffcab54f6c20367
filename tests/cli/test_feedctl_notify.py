"""``feedctl notify test [ROUTE]`` against a running service and real SMTP servers (aiosmtpd): delivered with
and without STARTTLS, and each refusal's one-line reason, with a non-zero exit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack

import pytest

from feedback_intelligence.devtools.processes import REPO, ServerProcess, app_server
from tests.notify.smtp_servers import LOGIN, REFUSED_RECIPIENT, Inbox, self_signed, smtp_server

pytestmark = pytest.mark.process

BACKEND = {"FI_LLM_BACKEND": "ollama", "FI_LLM_BASE_URL": "http://127.0.0.1:9", "FI_LLM_MODEL": "held"}


def route(name: str, port: int, **keys: object) -> dict[str, object]:
    return {
        "name": name,
        "kind": "smtp",
        "url": f"smtp://127.0.0.1:{port}",
        "from": "fi@shop.example",
        "to": ["manager@shop.example"],
        **keys,
    }


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, Inbox, Inbox]]:
    """The service with five mail routes: a plain relay, a STARTTLS relay with a login, and three refusals."""
    cert = self_signed(tmp_path_factory.mktemp("tls"))
    with ExitStack() as stack:
        plain, plain_inbox = stack.enter_context(smtp_server())
        tls, tls_inbox = stack.enter_context(smtp_server(cert, require_starttls=True, login=True))
        trusted = {"caFile": str(cert[0]), "username": LOGIN[0]}
        channels = [
            route("plain", plain.port, starttls=False),
            route("secure", tls.port, password=LOGIN[1], **trusted),
            route("no-tls", plain.port),
            route("bad-login", tls.port, password="wrong", **trusted),
            route("bad-rcpt", plain.port, starttls=False, to=[REFUSED_RECIPIENT]),
        ]
        app = stack.enter_context(app_server({**BACKEND, "FI_NOTIFY_CHANNELS": json.dumps(channels)}))
        yield app, plain_inbox, tls_inbox


def feedctl(app: ServerProcess, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FEEDCTL_URL": app.url, "PYTHONPATH": str(REPO), "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "feedback_intelligence", *args], env=env, capture_output=True, text=True, timeout=60
    )


def test_a_plain_relay_without_starttls_delivers(service: tuple[ServerProcess, Inbox, Inbox]) -> None:
    app, plain_inbox, _ = service
    before = len(plain_inbox.messages)
    ran = feedctl(app, "notify", "test", "plain")
    assert ran.returncode == 0, ran.stderr
    assert "plain (smtp)" in ran.stdout and "delivered" in ran.stdout
    assert len(plain_inbox.messages) == before + 1  # sent before the command answered, not queued


def test_starttls_with_a_login_delivers(service: tuple[ServerProcess, Inbox, Inbox]) -> None:
    app, _, tls_inbox = service
    before = len(tls_inbox.messages)
    ran = feedctl(app, "notify", "test", "secure")
    assert ran.returncode == 0, ran.stderr
    assert "delivered" in ran.stdout and len(tls_inbox.messages) == before + 1


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("no-tls", "SMTP TLS not offered by 127.0.0.1:"),
        ("bad-login", "SMTP login refused: 535 5.7.8 Authentication credentials invalid"),
        ("bad-rcpt", f"SMTP recipient refused: {REFUSED_RECIPIENT} 550 5.1.1 No such mailbox here"),
    ],
)
def test_a_refusal_prints_its_one_line_reason_and_fails(
    service: tuple[ServerProcess, Inbox, Inbox], name: str, reason: str
) -> None:
    app, _, _ = service
    ran = feedctl(app, "notify", "test", name)
    assert ran.returncode == 1
    [line] = [line for line in ran.stdout.splitlines() if name in line]
    assert "failed" in line and reason in line
    as_json = feedctl(app, "notify", "test", name, "--json")
    [result] = json.loads(as_json.stdout)["results"]
    assert result["ok"] is False and result["detail"].startswith(reason) and as_json.returncode == 1


def test_an_unknown_route_is_named_and_fails(service: tuple[ServerProcess, Inbox, Inbox]) -> None:
    app, _, _ = service
    ran = feedctl(app, "notify", "test", "nosuch")
    assert ran.returncode == 1 and "no notify route named 'nosuch'" in ran.stderr


def test_without_a_route_every_route_is_tried(service: tuple[ServerProcess, Inbox, Inbox]) -> None:
    app, _, _ = service
    ran = feedctl(app, "notify", "test", "--json")
    results = {r["name"]: r["ok"] for r in json.loads(ran.stdout)["results"]}
    assert results == {"plain": True, "secure": True, "no-tls": False, "bad-login": False, "bad-rcpt": False}
    assert ran.returncode == 1


def test_the_mail_says_it_is_a_test(service: tuple[ServerProcess, Inbox, Inbox]) -> None:
    app, plain_inbox, _ = service
    assert feedctl(app, "notify", "test", "plain").returncode == 0
    assert plain_inbox.messages[-1]["Subject"].startswith("Testiviesti")
